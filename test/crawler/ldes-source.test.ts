import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import { isomorphic } from 'rdf-isomorphic';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { linkedDataDocument } from '../../src/testkit/linked-data-site.ts';
import { realVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { buildServer, startServer as startArchiveServer } from '../../src/server/index.ts';
import { graphsAt } from '../query/helpers.ts';
import { crawlLog, LOADED_TIMEOUT_MS, runMain, tempDir } from '../helpers.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';

/**
 * `crawl --ldes` reads another archive's stream into a fresh archive: archive A is crawled three times from a
 * site of Linked Data documents (about 35 triples each, a blank node, links to other hosts; some change each
 * time, one is deleted and comes back, one is new, most stay the same), `serve`d with pages of three members;
 * archive B is made by `crawl --ldes` of A's /ldes alone. At every instant (between the crawls, at each
 * version's time), `query --at` gives each document the same graph in B as in A, deletions included.
 */

const N = 8;
const pgBase = await pgBaseUrl();

describe('crawl --ldes of a served archive rebuilds it: query --at gives the same graphs', () => {
  let a: string;
  let site: TestServer;
  let app: FastifyInstance;
  let root: string;
  let round = 0;
  let fullPages = 0;
  const between: number[] = [];
  const v = realVocabulary();
  const url = (i: number) => `${site.url}/doc/${i}`;
  const docs = () => Array.from({ length: N + 1 }, (_, i) => url(i));

  beforeAll(async () => {
    a = tempDir('dm-ldes-a-');
    site = await startServer((_req, res, u) => {
      const i = Number(/^\/doc\/(\d+)$/.exec(u.pathname)?.[1] ?? -1);
      // Documents 0-1 change every round, 2 is gone in round 1 and back in round 2, N appears in round 2.
      const present = i >= 0 && i <= N && !(i === 2 && round === 1) && !(i === N && round < 2);
      if (!present) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      const seed = i <= 1 || (i === 2 && round === 2) ? 1 + round : 1;
      res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8' }).end(linkedDataDocument(i, N, url, v, 4, seed));
    });
    for (round = 0; round < 3; round++) {
      between.push(Date.now());
      await new Promise((r) => setTimeout(r, 5));
      await crawl({ seeds: docs(), dataDir: a, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'], robots: false }).run();
      await new Promise((r) => setTimeout(r, 5));
    }
    between.push(Date.now());
    let listening: string;
    ({ app, url: listening } = await startArchiveServer({ dataDir: a, ldesPageSize: 3, port: 0, logger: false }));
    root = `${listening}/ldes`;
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await site?.close();
  });

  it('every version and deletion of A is one in B, at its time, and nothing else is fetched', async () => {
    const b = tempDir('dm-ldes-b-');
    const r = await runMain(['crawl', '--data', b, '--ldes', root, '--delay', '0', '--allow-private', '--json']);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out);
    // 0 and 1: 3 versions each; 2: there, gone, back; 3..N-1: 1 each; N: 1.
    expect(summary.ldes.archived).toEqual({ new: N + 1, changed: 5, unchanged: 0, deleted: 1 });
    expect(summary.ldes.failedPages).toEqual([]);
    fullPages = summary.ldes.pages.fetched;
    // Only the stream was fetched: no document of the site.
    expect(site.requests.length).toBe(3 * (N + 1));

    const instants = [...between, ...crawlLog(a).map((e) => Number(e.time))];
    for (const at of instants) {
      const [inA, inB] = [await graphsAt(a, at, docs()), await graphsAt(b, at, docs())];
      for (const d of docs()) {
        expect(isomorphic(inB.get(d)!, inA.get(d)!), `${d} at ${new Date(at).toISOString()}: ${inB.get(d)!.length} triples in B, ${inA.get(d)!.length} in A`).toBe(true);
      }
    }
    // Each version came from a page of the stream: its log row names the member and the page's WARC record.
    const members = crawlLog(b).filter((e) => String(e.diagnostics ?? '').includes('LDES member'));
    expect(members).toHaveLength(N + 1 + 5 + 1);
    expect(members.every((e) => /WARC record <urn:uuid:/.test(String(e.diagnostics)))).toBe(true);
    // The members' records are the archive's like any other: `verify` checks their graphs against the log.
    const verified = await runMain(['verify', '--data', b, '--json']);
    expect(verified.code, verified.out + verified.err).toBe(0);
    const report = JSON.parse(verified.out);
    expect(report.problems).toEqual([]);
    expect(report.unreferencedFiles).toEqual([]);
    expect(report.records).toBeGreaterThanOrEqual(members.length);

    // The WARC files are the archive: B's store and index rebuilt from them give the same graphs, deletions included.
    const rebuilt = await runMain(['rebuild', '--data', b, '--force', '--json']);
    expect(rebuilt.code, rebuilt.err).toBe(0);
    for (const at of instants) {
      const [inA, inB] = [await graphsAt(a, at, docs()), await graphsAt(b, at, docs())];
      for (const d of docs()) expect(isomorphic(inB.get(d)!, inA.get(d)!), `rebuilt: ${d} at ${new Date(at).toISOString()}`).toBe(true);
    }

    // B serves the versions it read as mementos: a document's TimeMap lists them, each replays its graph.
    const served = await buildServer({ dataDir: b });
    try {
      const timemap = await served.inject({ url: `/timemap/json/${url(0)}` });
      expect(timemap.statusCode).toBe(200);
      const list = timemap.json().mementos.list as Array<{ uri: string; datetime: string }>;
      expect(list).toHaveLength(3);
      // Replayed as it was archived (not asked for as RDF): the member's graph, there being no response of its own.
      const memento = await served.inject({ url: new URL(list[2]!.uri).pathname.replace(/^\/memento\//, '/replay/') });
      expect(memento.statusCode, memento.body).toBe(200);
      expect(memento.headers['content-type']).toMatch(/application\/n-quads/);
      const inA = (await graphsAt(a, Date.parse(list[2]!.datetime), [url(0)])).get(url(0))!;
      expect(isomorphic(inA, new N3.Parser({ format: 'N-Quads' }).parse(memento.body))).toBe(true);
    } finally {
      await served.close();
    }
  }, LOADED_TIMEOUT_MS);

  it.skipIf(!pgBase)('with --db postgres:// as the store: query --at gives the same graphs as the source archive', async () => {
    const b = tempDir('dm-ldes-pg-');
    const db = isolatedSchemaUrl(pgBase!, 'dm_ldes');
    try {
      const r = await runMain(['crawl', '--data', b, '--db', db, '--ldes', root, '--delay', '0', '--allow-private', '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).ldes.archived).toEqual({ new: N + 1, changed: 5, unchanged: 0, deleted: 1 });
      const instants = [...between, ...crawlLog(a).map((e) => Number(e.time))];
      for (const at of instants) {
        const [inA, inB] = [await graphsAt(a, at, docs()), await graphsAt(b, at, docs(), db)];
        for (const d of docs()) expect(isomorphic(inB.get(d)!, inA.get(d)!), `${d} at ${new Date(at).toISOString()}: ${inB.get(d)!.length} triples in B, ${inA.get(d)!.length} in A`).toBe(true);
      }
      // Read again: nothing new, every member archived before (the store's last capture of each document is PostgreSQL's).
      const again = await runMain(['crawl', '--data', b, '--db', db, '--ldes', root, '--delay', '0', '--allow-private', '--json']);
      expect(again.code, again.err).toBe(0);
      const summary = JSON.parse(again.out).ldes;
      expect(summary.archived).toEqual({ new: 0, changed: 0, unchanged: 0, deleted: 0 });
      expect(summary.skipped.notNewer).toBe(N + 1 + 5 + 1);
    } finally {
      await dropSchema(db);
    }
  }, LOADED_TIMEOUT_MS);

  it('--ldes-since T follows only the nodes whose bounds reach T, and archives only the changes from T on', async () => {
    const b = tempDir('dm-ldes-since-');
    const since = between[2]!;
    const r = await runMain(['crawl', '--data', b, '--ldes', root, '--ldes-since', new Date(since).toISOString(), '--delay', '0', '--allow-private', '--json']);
    expect(r.code, r.err).toBe(0);
    const summary = JSON.parse(r.out);
    // The third crawl's changes: 0 and 1 changed, 2 back, N new; new to this archive, all four.
    expect(summary.ldes.archived).toEqual({ new: 4, changed: 0, unchanged: 0, deleted: 0 });
    expect(fullPages).toBeGreaterThan(0);
    expect(summary.ldes.pages.fetched).toBeLessThan(fullPages);
    const inA = await graphsAt(a, Date.now(), [url(0), url(N)]);
    const inB = await graphsAt(b, Date.now(), [url(0), url(N)]);
    for (const d of [url(0), url(N)]) expect(isomorphic(inB.get(d)!, inA.get(d)!)).toBe(true);
  }, LOADED_TIMEOUT_MS);
});
