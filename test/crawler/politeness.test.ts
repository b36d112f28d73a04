import { afterEach, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

/** A site of `n` Turtle pages in a chain, with the given robots.txt. */
function chainSite(n: number, robots: string) {
  return (_req: unknown, res: import('node:http').ServerResponse, url: URL) => {
    if (url.pathname === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(robots);
    }
    const m = /^\/p(\d+)$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404);
      return res.end();
    }
    const i = Number(m[1]);
    res.writeHead(200, { 'content-type': 'text/turtle' });
    res.end(`<${url.origin}/p${i}> <http://example.org/next> <${url.origin}/p${(i + 1) % n}> , <${url.origin}/p${(i + 2) % n}> .\n`);
  };
}

function gaps(server: TestServer): number[] {
  const times = server.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.time);
  return times.slice(1).map((t, i) => t - times[i]);
}

describe('politeness', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  it('spaces requests to one host by at least --delay, with one in flight', async () => {
    server = await startServer(chainSite(6, 'User-agent: *\nAllow: /\n'));
    const s = await crawl({ seeds: [`${server.url}/p0`], dataDir: tempDir(), delayMs: 250, concurrency: 8, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    expect(s.documents).toBe(6);
    const g = gaps(server);
    expect(g.length).toBe(5);
    // Measured where the server sees them, so network jitter on a loaded machine is allowed for.
    for (const gap of g) expect(gap).toBeGreaterThanOrEqual(220);
    expect(g.reduce((a, b) => a + b, 0) / g.length).toBeGreaterThanOrEqual(245);
  });

  it('honours Crawl-delay from robots.txt when it is longer than --delay', async () => {
    server = await startServer(chainSite(4, 'User-agent: *\nCrawl-delay: 0.4\n'));
    await crawl({ seeds: [`${server.url}/p0`], dataDir: tempDir(), delayMs: 10, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    for (const gap of gaps(server)) expect(gap).toBeGreaterThanOrEqual(370);
  });

  it('skips what robots.txt disallows for our user agent and records why', async () => {
    server = await startServer(chainSite(4, 'User-agent: datamonitor\nDisallow: /p2\n\nUser-agent: *\nDisallow: /\n'));
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/p0`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    expect(server.requests.some((r) => r.path === '/p2')).toBe(false);
    expect(s.skipped.robots).toBe(1);
    expect(crawlLog(dataDir).find((e) => e.url.endsWith('/p2'))?.error).toMatch(/robots/);
    expect(s.documents).toBe(3);
  });

  it('refuses loopback addresses unless --allow-private is given', async () => {
    server = await startServer(chainSite(2, ''));
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/p0`], dataDir, delayMs: 0 }).run();
    expect(server.requests.length).toBe(0);
    expect(s.documents).toBe(0);
    expect(crawlLog(dataDir).map((e) => e.error).join(' ')).toMatch(/blocked|private|robots/i);
  });

  it('tries a 5xx again after backing off, and archives the answer that finally came', async () => {
    let calls = 0;
    server = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      if (++calls <= 2) return res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/x> <http://e.org/p> "ok" .\n`);
    });
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/x`], dataDir, delayMs: 100, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    expect(s).toMatchObject({ documents: 1, triples: 1, errors: 0 });
    // Exponential back-off between the tries: delay × 2, then delay × 4.
    const [g0, g1] = gaps(server);
    expect(g0).toBeGreaterThanOrEqual(180);
    expect(g1).toBeGreaterThanOrEqual(380);
    expect(crawlLog(dataDir).map((e) => e.status)).toEqual([200]);
  });
});

