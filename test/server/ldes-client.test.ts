import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { isomorphic } from 'rdf-isomorphic';
import { intoConfig, replicateLDES } from 'ldes-client';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { startServer as startArchiveServer } from '../../src/server/index.ts';
import { graphsAt } from '../query/helpers.ts';
import { LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';

/**
 * The archive's LDES read by a real LDES client (ldes-client from the registry, unmodified): over an archive
 * crawled three times from a site on 127.0.0.1 (documents changed, one deleted and back, one new, one the same),
 * served with pages of two members so that the client walks split windows and next pages. The client's
 * members rebuild each document's graph at an instant T (its latest member at or before T; a deletion: no
 * graph), which must be the graph `datamonitor query --at T` gives.
 */
const { quad, defaultGraph } = N3.DataFactory;

const A = ['@prefix ex: <http://example.org/> .\nex:alice ex:name "Alice" .\n', '@prefix ex: <http://example.org/> .\nex:alice ex:name "Alice B." ; ex:knows [ ex:name "Carol" ] .\n',
  '@prefix ex: <http://example.org/> .\nex:alice ex:name "Alice C." ; ex:knows [ ex:name "Carol" ], ex:bob .\n'];
const B = '@prefix ex: <http://example.org/> .\nex:bob ex:name "Bob" ; ex:label [ ex:text "B"@en ] .\n';
const C = ['<http://example.org/c> <http://example.org/n> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n', '<http://example.org/c> <http://example.org/n> "2"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'];
const GONE = ['<http://example.org/gone> a <http://example.org/Thing> .\n', '', '<http://example.org/gone> a <http://example.org/Thing>, <http://example.org/Back> .\n'];
const D = '<http://example.org/d> <http://example.org/name> "Dan" .\n';

interface Member { id: string; time: number; versionOf: string; deleted: boolean; graph: Quad[] }

/** Every member the client emits in ascending order, and the URLs it fetched. */
async function replicate(url: string, opts: { after?: Date } = {}): Promise<{ members: Member[]; fetched: string[] }> {
  const fetched: string[] = [];
  const logged = ((input: RequestInfo | URL, init?: RequestInit) => {
    fetched.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  }) as typeof fetch;
  const client = replicateLDES(intoConfig({ url, fetch: logged, ...(opts.after ? { after: opts.after } : {}) }), 'ascending');
  const reader = client.stream({ highWaterMark: 10 }).getReader();
  const members: Member[] = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) break;
    const m = next.value;
    const id = m.id.value;
    members.push({
      id,
      time: Date.parse(String(m.timestamp instanceof Date ? m.timestamp.toISOString() : m.timestamp)),
      versionOf: String(m.isVersionOf),
      deleted: m.quads.some((q) => q.subject.value === id && q.predicate.value === 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type' && q.object.value === 'https://www.w3.org/ns/activitystreams#Delete'),
      graph: m.quads.filter((q) => q.graph.value === id).map((q) => quad(q.subject, q.predicate, q.object, defaultGraph())),
    });
  }
  return { members, fetched };
}


/** A document's graph at `at` from the stream: its latest member at or before `at`; none, or a deletion: no triples. */
function rebuilt(members: Member[], document: string, at: number): Quad[] {
  const latest = members.filter((m) => m.versionOf === document && m.time <= at).at(-1);
  return latest && !latest.deleted ? latest.graph : [];
}

describe('the LDES replayed by ldes-client rebuilds every document as `query --at` has it', () => {
  let dataDir: string;
  let site: TestServer;
  let app: FastifyInstance;
  let root: string;
  let round = 0;
  const between: number[] = [];
  const docs = (base: string) => ['a.ttl', 'b.ttl', 'c.nt', 'gone.ttl', 'd.nt'].map((p) => `${base}/${p}`);

  beforeAll(async () => {
    dataDir = tempDir('dm-ldes-');
    site = await startServer((_req, res, url) => {
      const ttl = { 'content-type': 'text/turtle' };
      const nt = { 'content-type': 'application/n-triples' };
      if (url.pathname === '/a.ttl') return res.writeHead(200, ttl).end(A[round]);
      if (url.pathname === '/b.ttl') return res.writeHead(200, ttl).end(B);
      if (url.pathname === '/c.nt') return res.writeHead(200, nt).end(C[Math.min(round, 1)]);
      if (url.pathname === '/gone.ttl' && round !== 1) return res.writeHead(200, ttl).end(GONE[round]);
      if (url.pathname === '/d.nt' && round === 2) return res.writeHead(200, nt).end(D);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    for (round = 0; round < 3; round++) {
      between.push(Date.now());
      await new Promise((r) => setTimeout(r, 5));
      await crawl({ seeds: docs(site.url), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'], robots: false }).run();
      await new Promise((r) => setTimeout(r, 5));
    }
    between.push(Date.now());
    let listening: string;
    ({ app, url: listening } = await startArchiveServer({ dataDir, ldesPageSize: 2, port: 0, logger: false }));
    root = `${listening}/ldes`;
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });

  it('every change is a member, in order, and the graphs at each instant are those of `query --at`', async () => {
    const { members, fetched } = await replicate(root);
    const documents = docs(site.url);
    // a: 3 versions; b: 1 (its later captures found the same graph); c: 2; gone: 3 (there, deleted, back changed); d: 1.
    const perDocument = Object.fromEntries(documents.map((d) => [d.replace(/.*\//, ''), members.filter((m) => m.versionOf === d).length]));
    expect(perDocument).toEqual({ 'a.ttl': 3, 'b.ttl': 1, 'c.nt': 2, 'gone.ttl': 3, 'd.nt': 1 });
    expect(members.filter((m) => m.deleted).map((m) => m.versionOf)).toEqual([`${site.url}/gone.ttl`]);
    expect(new Set(members.map((m) => m.id)).size).toBe(members.length);
    expect(members.map((m) => m.time)).toEqual(members.map((m) => m.time).sort((x, y) => x - y));
    // Pages of two: the client went down split windows to seconds or finer (each crawl's three or more changes
    // share a minute, however slow the machine), each fragment once.
    const widths = fetched.filter((u) => u.includes('?')).map((u) => new URL(u).searchParams).map((q) => Date.parse(q.get('to')!) - Date.parse(q.get('from')!));
    expect(Math.min(...widths)).toBeLessThanOrEqual(1000);
    expect(new Set(fetched.filter((u) => u.includes('?'))).size).toBe(fetched.filter((u) => u.includes('?')).length);

    // Between the crawls, after them, and at each member's own instant (a version counts at its time).
    const instants = [...between, ...members.map((m) => m.time)];
    for (const at of instants) {
      const truth = await graphsAt(dataDir, at, documents);
      for (const d of documents) {
        const mine = rebuilt(members, d, at);
        expect(isomorphic(mine, truth.get(d)!), `${d} at ${new Date(at).toISOString()}: ${mine.length} triples from the stream, ${truth.get(d)!.length} by query --at`).toBe(true);
      }
    }
  }, LOADED_TIMEOUT_MS);

  it('a client that starts at an instant follows only the windows after it', async () => {
    const all = await replicate(root);
    const after = new Date(between[2]!);
    const later = await replicate(root, { after });
    // Members of one instant come in no defined order (the client reads the pages concurrently): compare by time, then id.
    const ordered = (ms: typeof all.members) => [...ms].sort((a, b) => a.time - b.time || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((m) => m.id);
    expect(ordered(later.members)).toEqual(ordered(all.members.filter((m) => m.time > after.getTime())));
    expect(later.fetched.length).toBeLessThan(all.fetched.length);
  }, LOADED_TIMEOUT_MS);
});
