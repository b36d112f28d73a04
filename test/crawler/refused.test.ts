import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { runMain as cli, crawlLog, documents, tempDir } from '../helpers.ts'; // in this process: a command line as a process cost a CPU-second of start-up


// 127.0.0.1 is what --allow-private is for: without it, each URL is refused before any request.
describe('a refused address is a policy skip, not a failing server', () => {
  let site: TestServer;
  let dataDir: string;
  let first: Awaited<ReturnType<typeof cli>>;
  const urls = () => [1, 2, 3, 4].map((i) => `${site.url}/p${i}`);

  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.href}> <http://purl.org/dc/terms/title> "page" .\n`);
    });
    dataDir = tempDir();
    // The default 1 s delay: back-off for the four refused URLs would take 14 s (2 + 4 + 8).
    first = await cli(['crawl', ...urls(), '--data', dataDir, '--domain', '127.0.0.1', '--json']);
  }, 60_000);
  afterAll(() => site.close());

  it('ends at once, with exit status 69, no download counted, and each URL skipped with reason refused-address', () => {
    expect(first.code).toBe(69);
    expect(first.err).toMatch(/no seed could be crawled/);
    const summary = JSON.parse(first.out);
    expect(summary.durationMs).toBeLessThan(10_000);
    expect(summary).toMatchObject({ documents: 0, errors: 0, allSeedsFailed: true, skipped: { hostFailing: 0 } });
    expect(summary.reasons['refused-address']).toBe(4);
    expect(site.requests).toHaveLength(0);
    expect(documents(dataDir).map((d) => d.state)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    expect(crawlLog(dataDir).map((e) => e.reason)).toEqual(['refused-address', 'refused-address', 'refused-address', 'refused-address']);
  });

  it('is reconsidered when the policy changes: a crawl with --allow-private takes the refused URLs up again', async () => {
    const again = await cli(['crawl', '--data', dataDir, '--domain', '127.0.0.1', '--allow-private', '--delay', '0', '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ documents: 4, new: 4 });
    expect(documents(dataDir).every((d) => d.state === 'fetched')).toBe(true);
  }, 60_000);

  it('`add` brings a refused URL back, and `run` skips it without the 24 h penalty of a failure', async () => {
    const dir = tempDir();
    const url = `${site.url}/monitored`;
    expect((await cli(['crawl', url, '--data', dir, '--domain', '127.0.0.1', '--json'])).code).toBe(69);
    expect(documents(dir)).toMatchObject([{ state: 'skipped', monitored: 0 }]);
    expect((await cli(['add', url, '--data', dir])).code).toBe(0);
    expect(documents(dir)).toMatchObject([{ state: 'queued', monitored: 1 }]);
    const refused = JSON.parse((await cli(['run', '--data', dir, '--json'])).out);
    expect(refused).toMatchObject({ downloads: 0, errors: 0 });
    const [doc] = documents(dir);
    expect(doc.state).toBe('skipped');
    expect(doc.next_fetch).toBeLessThanOrEqual(Date.now()); // still due: the next cycle tries it again
    const allowed = JSON.parse((await cli(['run', '--data', dir, '--allow-private', '--delay', '0', '--json'])).out);
    expect(allowed).toMatchObject({ downloads: 1, errors: 0 });
  }, 60_000);
});
