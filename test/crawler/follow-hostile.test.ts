import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { cli, tempDir } from '../helpers.ts';

/**
 * Query-driven crawling against Webs that flood it (issue #17): every document names 1,000 IRIs the
 * follow query binds; a trap mints new IRIs on every request, forever; a query binds literals and
 * blank nodes; a query grows slow with what was learnt. Each crawl stays bounded, ends, and says what
 * it cut.
 */

const EX = 'http://hostile.test/ns#';
const PREFIX = `PREFIX ex: <${EX}>`;
const FLOOD = 1_000;

describe('query-driven crawling on hostile Webs', () => {
  let server: TestServer;
  let minted = 0;

  beforeAll(async () => {
    server = await startServer((_req, res, url) => {
      const base = `http://127.0.0.1:${server.port}`;
      const send = (ttl: string) => {
        res.writeHead(200, { 'content-type': 'text/turtle' });
        res.end(`@prefix ex: <${EX}> .\n${ttl}`);
      };
      const flood = /^\/flood\/([\d.]+)$/.exec(url.pathname);
      if (flood) {
        // 1,000 new IRIs the follow query binds, a literal and a blank node.
        const me = `<${base}/flood/${flood[1]}>`;
        const lines = [`${me} ex:label "flood ${flood[1]}"@en ; ex:about [ ex:name "anonymous" ] .`];
        for (let i = 0; i < FLOOD; i++) lines.push(`${me} ex:next <${base}/flood/${flood[1]}.${i}> .`);
        return send(lines.join('\n'));
      }
      if (url.pathname.startsWith('/trap/')) {
        // Every answer mints three IRIs never seen before: there is no end to this Web.
        const me = `<${base}${url.pathname}>`;
        return send([1, 2, 3].map(() => `${me} ex:next <${base}/trap/${++minted}> .`).join('\n'));
      }
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const options = (seed: string, o: Partial<CrawlOptions>): CrawlOptions => ({
    seeds: [`${server.url}${seed}`], dataDir: tempDir(), allowPrivate: true, delayMs: 0, perHost: 4, concurrency: 4, depth: 1_000, ...o,
  });
  const requested = (re: RegExp, from: number) => server.requests.slice(from).filter((r) => re.test(r.path)).length;

  it('a flood of 1,000 bindings a document: at most the per-document cap of each is followed, the rest counted as follow-cap', async () => {
    const from = server.requests.length;
    const o = options('/flood/0', { follow: `${PREFIX} SELECT ?n WHERE { ?d ex:next ?n }`, followMaxPerDocument: 25, maxDocs: 60 });
    const s = await crawl(o).run();
    const q = s.query!;
    // The seed's own bindings: 25 followed, 975 cut (a crawl without the cap fetches up to 59 of them).
    expect(requested(/^\/flood\/0\.\d+$/, from)).toBeLessThanOrEqual(25);
    expect(q.cut.perDocument).toBeGreaterThanOrEqual(FLOOD - 25);
    expect(s.reasons['follow-cap']).toBe(q.cut.perDocument + q.cut.perCrawl);
    // What stays queued is bounded by the cap times the documents learnt, not 1,000 times.
    expect(s.queued + s.documents).toBeLessThanOrEqual(1 + 25 * q.learnt.documents);
    expect(s.stoppedBy).toBe('max-docs');
  }, 180_000);

  it('a trap that mints IRIs forever: the per-crawl cap ends the crawl by itself, and says so', async () => {
    const o = options('/trap/start', { follow: `${PREFIX} SELECT ?n WHERE { ?d ex:next ?n }`, followMaxBindings: 30, maxDocs: 500 });
    const s = await crawl(o).run();
    expect(s.stoppedBy).toBeUndefined(); // the frontier ran dry: not --max-docs
    expect(s.query!.learnt.documents).toBeLessThanOrEqual(31);
    expect(s.query!.cut.perCrawl).toBeGreaterThan(0);
    expect(s.reasons['follow-cap']).toBeGreaterThan(0);
  }, 180_000);

  it('a query that binds literals and blank nodes follows nothing and says what it bound', async () => {
    const o = options('/flood/0', { follow: `${PREFIX} SELECT ?x WHERE { { ?d ex:label ?x } UNION { ?d ex:about ?x } }` });
    const s = await crawl(o).run();
    expect(s.query!.learnt.documents).toBe(1);
    expect(s.query!.bindings).toBe(0);
    expect(s.query!.cut).toMatchObject({ literals: 1, blankNodes: 1, perDocument: 0, perCrawl: 0 });
  }, 60_000);

  it('a query that grows slow with what was learnt: once its time budget is spent it runs no more, and the crawl ends', async () => {
    // A cross product: its cost grows with the square of what was learnt.
    const slow = `${PREFIX} SELECT ?n WHERE { ?a ?p ?b . ?c ?q ?e . ?d ex:next ?n }`;
    const o = options('/trap/slow', { follow: slow, followBatch: 'every', followMaxQueryTimeMs: 1, maxDocs: 300 });
    const s = await crawl(o).run();
    expect(s.query!.cut.queryBudget).toBe(true);
    expect(s.stoppedBy).toBeUndefined(); // ended because the query stopped choosing, not by --max-docs
    expect(s.query!.learnt.documents).toBeLessThan(300);
  }, 180_000);

  it('on the command line: the summary says what was cut; a cap of 0 is refused naming its flag', async () => {
    const q = `${PREFIX} SELECT ?n WHERE { ?d ex:next ?n }`;
    const r = await cli(['crawl', `${server.url}/trap/cli`, '--data', tempDir(), '--allow-private', '--delay', '0', '--follow', q, '--follow-max-bindings', '5']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/cut \d+ bindings \(0 over the per-document cap, \d+ over the per-crawl cap\)/);
    expect(r.out).toMatch(/follow-cap/);
    const bad = await cli(['crawl', `${server.url}/trap/bad`, '--data', tempDir(), '--allow-private', '--follow', q, '--follow-max-per-document', '0']);
    expect(bad.code).toBe(64);
    expect(bad.err).toMatch(/--follow-max-per-document must be a number ≥ 1/);
  }, 180_000);
});
