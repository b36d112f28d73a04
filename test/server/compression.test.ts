import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { crawl } from '../../src/crawler/crawl.ts';
import { startLinkedDataSite, type LinkedDataSite } from '../../src/testkit/linked-data-site.ts';
import { startServer as startArchiveServer } from '../../src/server/index.ts';
import { LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';

/**
 * What a Linked Data client paging through the archive receives when it says it takes compressed bodies:
 * the LDES, fragments, SPARQL results and VoID compressed (the same bytes once decoded, smaller on the wire),
 * and replay the archived bytes as they were, whatever the client accepts.
 */
describe('compressed answers for Linked Data clients', () => {
  let site: LinkedDataSite;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    site = await startLinkedDataSite({ documents: 30, hosts: 3 });
    const dataDir = tempDir('dm-compress-');
    await crawl({ seeds: [site.seed], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, maxDocs: 30 }).run();
    ({ app, url: base } = await startArchiveServer({ dataDir, port: 0, logger: false }));
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });

  const get = async (path: string, headers: Record<string, string>) => {
    const r = await request(`${base}${path}`, { headers });
    return { status: r.statusCode, headers: r.headers, body: Buffer.from(await r.body.arrayBuffer()) };
  };
  const decode = (encoding: unknown, body: Buffer): Buffer =>
    encoding === 'br' ? zlib.brotliDecompressSync(body) : encoding === 'gzip' ? zlib.gunzipSync(body) : encoding === 'deflate' ? zlib.inflateSync(body) : body;

  const paths = [
    ['the LDES root', '/ldes', 'application/n-quads'],
    ['a fragment', `/fragments?predicate=${encodeURIComponent('http://www.w3.org/2000/01/rdf-schema#label')}`, 'text/turtle'],
    ['SPARQL results', `/sparql?query=${encodeURIComponent('SELECT ?s ?label WHERE { ?s rdfs:label ?label }')}`, 'application/sparql-results+json'],
    ['the VoID description', '/.well-known/void', 'text/turtle'],
  ] as const;

  for (const [what, path, accept] of paths) {
    it(`${what}: brotli or gzip as asked, the same bytes decoded, smaller`, async () => {
      const plain = await get(path, { accept });
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.length).toBeGreaterThan(1024);
      for (const encoding of ['br', 'gzip']) {
        const packed = await get(path, { accept, 'accept-encoding': `${encoding}, identity;q=0.5` });
        expect(packed.status).toBe(200);
        expect(packed.headers['content-encoding']).toBe(encoding);
        expect(String(packed.headers.vary)).toMatch(/accept-encoding/i);
        expect(packed.body.length).toBeLessThan(plain.body.length / 2);
        expect(decode(encoding, packed.body).toString('utf8')).toBe(plain.body.toString('utf8'));
      }
    });
  }

  it('replay gives the archived bytes uncompressed, whatever the client accepts', async () => {
    const doc = site.documentUrl(0);
    const origin = await request(doc);
    const archived = Buffer.from(await origin.body.arrayBuffer());
    const r = await get(`/replay/2100/${doc}`, { 'accept-encoding': 'gzip, br' });
    const final = r.status === 302 ? await get(String(r.headers.location).replace(/^https?:\/\/[^/]+/, ''), { 'accept-encoding': 'gzip, br' }) : r;
    expect(final.status).toBe(200);
    expect(final.headers['content-encoding']).toBeUndefined();
    expect(final.body.equals(archived)).toBe(true);
  });
});
