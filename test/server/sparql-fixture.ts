import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server/index.ts';
import { openVersionStore } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';
import { turtle, T0, DAY } from '../query/helpers.ts';

export const PEOPLE = 'http://example.org/people.ttl';
export const ORG = 'http://example.org/org.ttl';
export const PEOPLE_TTL = `@prefix schema: <http://schema.org/> . @prefix foaf: <http://xmlns.com/foaf/0.1/> .
ex:alice a schema:Person ; foaf:name "Alice"@en ; foaf:knows [ foaf:name "Carol" ; schema:age 7 ] .
ex:bob a schema:Person ; foaf:name "Bob" .`;
export const ORG_TTL = `@prefix schema: <http://schema.org/> .
ex:acme a schema:Organization ; schema:name "ACME" ; schema:member ex:alice .`;

/**
 * An archive data directory holding two documents (one with a blank node), as `query` and `serve` read
 * it: versions.sqlite written through the versioned store's own API, no crawl needed.
 */
export async function protocolArchive(): Promise<string> {
  const dataDir = tempDir('dm-protocol-');
  const archive = openVersionStore(dataDir);
  await archive.putVersion(PEOPLE, T0, turtle(PEOPLE_TTL));
  await archive.putVersion(ORG, T0 + DAY, turtle(ORG_TTL));
  await archive.close();
  const store = await openStore(dataDir); // an empty crawl log: nothing for the server to catch up
  await store.init();
  await store.close();
  return dataDir;
}

/** A server over the archive, listening on 127.0.0.1 (real clients need a socket), with its base URL. */
export async function listening(dataDir: string): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer({ dataDir });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  return { app, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}
