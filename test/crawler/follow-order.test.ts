import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { OptionError } from '../../src/util/errors.ts';
import { tempDir } from '../helpers.ts';

/**
 * `--order query` with --follow (issue #17): the frontier fetches first the IRIs the follow query binds
 * in the most solutions. The seed cites six papers once each and names five papers that all cite one
 * more: that one is bound in five solutions and is fetched first.
 */

const EX = 'http://order.test/ns#';
const Q = `PREFIX ex: <${EX}> SELECT ?n WHERE { ?p ex:cites ?n }`;

describe('--follow with --order query', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_req, res, url) => {
      const base = `http://127.0.0.1:${server.port}`;
      const lines = [`@prefix ex: <${EX}> .`];
      if (url.pathname === '/seed') {
        // Five citing papers described here (their IRIs have no documents: fragments of this one).
        for (let i = 1; i <= 5; i++) lines.push(`<${base}/seed#x${i}> ex:cites <${base}/b> .`);
        for (let i = 1; i <= 6; i++) lines.push(`<${base}/seed> ex:cites <${base}/a${i}> .`);
      } else if (/^\/(a\d|b)$/.test(url.pathname)) lines.push(`<${base}${url.pathname}> ex:title "paper" .`);
      else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
      }
      res.writeHead(200, { 'content-type': 'text/turtle' });
      res.end(lines.join('\n'));
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const options = (o: Partial<CrawlOptions>): CrawlOptions => ({
    seeds: [`${server.url}/seed`], dataDir: tempDir(), allowPrivate: true, delayMs: 0, perHost: 1, concurrency: 1, follow: Q, ...o,
  });
  /** The papers in the order they were requested. */
  const order = async (o: Partial<CrawlOptions>): Promise<string[]> => {
    const from = server.requests.length;
    await crawl(options(o)).run();
    return server.requests.slice(from).map((r) => r.path).filter((p) => /^\/(a\d|b)$/.test(p));
  };

  it('fetches the IRI bound in the most solutions first', async () => {
    const bfs = await order({});
    expect(bfs).toHaveLength(7);
    expect(bfs[0]).not.toBe('/b'); // else this test could not tell the orders apart
    const ranked = await order({ order: 'query' });
    expect(ranked).toHaveLength(7);
    expect(ranked[0]).toBe('/b');
  }, 120_000);

  it('is refused without a follow query', async () => {
    const err = await crawl(options({ follow: undefined, order: 'query' })).run().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(OptionError);
    expect((err as OptionError).message).toMatch(/needs a follow query/);
  });
});
