import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawler/crawl.ts';
import { FrontierClock } from '../../src/crawler/prerequisites.ts';
import { HostQueues } from '../../src/frontier/host-queues.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir, warcFiles } from '../helpers.ts';

const DELAY = 300;

/** A JSON-LD page whose context is on its own host, linking a second page. */
function site(robots: string) {
  return (_req: unknown, res: import('node:http').ServerResponse, url: URL) => {
    if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
    if (url.pathname === '/ctx') return res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify({ '@context': { p: { '@id': 'http://example.org/p', '@type': '@id' } } }));
    if (url.pathname === '/doc' || url.pathname === '/next') {
      const body = { '@context': '/ctx', '@id': `${url.origin}${url.pathname}#it`, p: `${url.origin}/next` };
      return res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify(body));
    }
    res.writeHead(404).end();
  };
}

/** The fetch-for header of every robots.txt response record in an archive. */
async function robotsRecords(dataDir: string): Promise<Array<string | null | undefined>> {
  const out = [];
  for (const f of warcFiles(dataDir)) {
    for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
      if (rec.warcType === 'response' && rec.warcTargetURI?.endsWith('/robots.txt')) out.push(rec.warcHeader('WARC-Datamonitor-Fetched-For'));
    }
  }
  return out;
}

/**
 * robots.txt, a JSON-LD context and the pages of one host are requests to one server: one clock spaces
 * them all (Heritrix's prerequisites), whatever each is fetched for.
 */
describe('prerequisites share the pages\' clock', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  it('spaces robots.txt, the pages and a context of their host by the delay, as the server saw them', async () => {
    server = await startServer(site('User-agent: *\nAllow: /\n'));
    // The server reads a request's time when this process's event loop gets to it: late by up to its lag,
    // measured over the crawl and allowed for (as in politeness.test.ts); lower bounds only.
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/doc`], dataDir, depth: 1, delayMs: DELAY, concurrency: 4, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    lag.disable();
    const slack = Math.max(10, lag.max / 1e6);
    expect(s.documents).toBe(2);
    const seen = server.requests.map((r) => r.path);
    expect(seen[0]).toBe('/robots.txt');
    expect(new Set(seen)).toEqual(new Set(['/robots.txt', '/doc', '/ctx', '/next']));
    // As the crawl started them (each row's time is when its fetch began, before it was sent): no slack.
    const started = crawlLog(dataDir).map((e) => [e.url as string, e.time as number] as const).sort((a, b) => a[1] - b[1]);
    expect(started).toHaveLength(4);
    for (let i = 1; i < started.length; i++) expect(started[i][1] - started[i - 1][1], `${started[i - 1][0]} -> ${started[i][0]}`).toBeGreaterThanOrEqual(DELAY);
    const times = server.requests.map((r) => r.time);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1], `${seen[i - 1]} -> ${seen[i]}`).toBeGreaterThanOrEqual(DELAY - slack);
    // robots.txt is archived as a WARC response record, with its crawl-log row.
    expect(await robotsRecords(dataDir)).toEqual(['robots']);
    expect(crawlLog(dataDir).filter((e) => e.url === `${server!.url}/robots.txt`)).toMatchObject([{ status: 200, reason: 'prerequisite' }]);
  }, 30_000);

  it('reads the sitemaps a seed\'s robots.txt names once the frontier fetched it, on the same clock', async () => {
    server = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nAllow: /\nSitemap: ${url.origin}/map.xml\n`);
      if (url.pathname === '/map.xml') return res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${url.origin}/orphan</loc></url></urlset>`);
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.href}> <http://example.org/p> "x" .\n`);
    });
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/`], dataDir, depth: 0, delayMs: DELAY, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'], sitemaps: true }).run();
    expect(s.sitemaps).toEqual({ read: 1, urls: 1 });
    expect(server.requests.map((r) => r.path)).toEqual(['/robots.txt', '/', '/map.xml', '/orphan']);
    const started = crawlLog(dataDir).map((e) => e.time as number).sort((a, b) => a - b);
    expect(started).toHaveLength(4);
    for (let i = 1; i < started.length; i++) expect(started[i] - started[i - 1]).toBeGreaterThanOrEqual(DELAY);
  }, 30_000);

  it('spaces a context on another crawled host by that host\'s clock, between its pages', async () => {
    // Host B is crawled (a chain of pages); a document of host A needs a context that B serves.
    const b = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      if (url.pathname === '/ctx') return res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify({ '@context': { p: 'http://example.org/p' } }));
      const i = Number(url.pathname.slice(2));
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(i < 5 ? `<${url.href}> <http://example.org/next> <${url.origin}/b${i + 1}> .\n` : `<${url.href}> <http://example.org/p> "end" .\n`);
    });
    server = b;
    const a = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify({ '@context': `${b.url}/ctx`, '@id': `${url.origin}/doc#it`, p: 'x' }));
    });
    try {
      const lag = monitorEventLoopDelay({ resolution: 5 });
      lag.enable();
      const dataDir = tempDir();
      // A's document waits a little (its robots.txt, then the delay), so that its context falls among B's pages.
      await crawl({
        seeds: [`${b.url}/b0`, `http://a.test:${a.port}/doc`], dataDir, depth: 10, delayMs: DELAY, concurrency: 4, allowPrivate: true, vocabularies: false,
        domains: ['127.0.0.1', 'a.test'], resolve: { 'a.test': '127.0.0.1' },
      }).run();
      lag.disable();
      const slack = Math.max(10, lag.max / 1e6);
      const seen = b.requests.map((r) => [r.path, r.time] as const);
      expect(seen.map(([p]) => p)).toContain('/ctx');
      expect(seen.filter(([p]) => /^\/b\d$/.test(p))).toHaveLength(6);
      for (let i = 1; i < seen.length; i++) expect(seen[i][1] - seen[i - 1][1], `${seen[i - 1][0]} -> ${seen[i][0]}`).toBeGreaterThanOrEqual(DELAY - slack);
    } finally {
      await a.close();
    }
  }, 30_000);

  it('asks for robots.txt as text/plain', async () => {
    server = await startServer(site('User-agent: *\nAllow: /\n'));
    await crawl({ seeds: [`${server.url}/doc`], dataDir: tempDir(), depth: 0, delayMs: 0, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    const robots = server.requests.filter((r) => r.path === '/robots.txt');
    expect(robots).toHaveLength(1);
    expect(robots[0].headers.accept).toBe('text/plain');
  });
});

describe('FrontierClock', () => {
  const origin = 'http://h.example';
  const entry = (path: string, key: number) => ({ url: origin + path, host: 'h.example', origin, depth: 0, key });

  it('gives a side request its turn while a document holds its origin\'s only slot, spaced from the document', async () => {
    const frontier = new HostQueues({ delayMs: 150, perHost: 1 });
    frontier.push(entry('/doc', 0));
    frontier.push(entry('/next', 1));
    const popped = Date.now();
    expect(frontier.pop(popped)?.url).toBe(`${origin}/doc`); // the document's slot, held while its context loads
    const clock = new FrontierClock(frontier, 10_000);
    const release = await clock.turn(origin);
    const turn = Date.now();
    expect(turn - popped).toBeGreaterThanOrEqual(150);
    release(turn);
    frontier.release(origin, Date.now(), { ok: true });
    // The next URL of the origin waits the delay after the side request.
    expect(frontier.pop(Date.now())).toBeUndefined();
    expect(frontier.nextReadyAt()).toBeGreaterThanOrEqual(turn + 150);
  });

  it('keeps the turn it was given for the side request: the origin\'s URLs cannot take it first', () => {
    const frontier = new HostQueues({ delayMs: 100, perHost: 2 });
    for (let i = 0; i < 3; i++) frontier.push(entry(`/p${i}`, i));
    expect(frontier.pop(1000)?.url).toBe(`${origin}/p0`);
    expect(frontier.claim(origin, 1050)).toBe(1100);
    // Without the promise, a URL would start at 1100 and the side request wait again, as long as URLs are queued.
    expect(frontier.pop(1100)).toBeUndefined();
    expect(frontier.claim(origin, 1100)).toBe(0);
    expect(frontier.pop(1199)).toBeUndefined();
    expect(frontier.pop(1200)?.url).toBe(`${origin}/p1`);
  });

  it('fails at once rather than wait out a back-off longer than it takes', async () => {
    const frontier = new HostQueues({ delayMs: 0, perHost: 1 });
    frontier.push(entry('/doc', 0));
    frontier.pop(Date.now());
    frontier.release(origin, Date.now(), { ok: true, notBefore: Date.now() + 60_000, reason: 'Retry-After' });
    await expect(new FrontierClock(frontier, 10_000).turn(origin)).rejects.toThrow(/not to be asked before/);
    // The origin's back-off is not promised to anyone: another origin of its hostname goes on.
    const other = 'https://h.example';
    frontier.push({ url: `${other}/x`, host: 'h.example', origin: other, depth: 0, key: 1 });
    expect(frontier.pop(Date.now())?.url).toBe(`${other}/x`);
  });
});

/**
 * An origin that cannot be reached (its port refuses) has no robots.txt answer to keep, so each of its
 * URLs would be preceded by a robots.txt prerequisite of its own; those failures must count against the
 * origin as its pages' do, so that after a few the origin's queue is dropped instead of being asked for
 * URL by URL, each twice, one delay apart.
 */
describe('an unreachable origin', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  it('is given up after a few failed requests, robots.txt included, not asked for each of its URLs', async () => {
    const closed = await startServer((_req, res) => res.end());
    const dead = closed.url;
    await closed.close();
    const links = Array.from({ length: 60 }, (_, i) => `<${dead}/p${i}>`).join(', ');
    server = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc> <http://example.org/links> ${links} .\n`);
    });
    const dataDir = tempDir();
    const s = await crawl({ seeds: [`${server.url}/doc`], dataDir, depth: 1, delayMs: 100, concurrency: 4, allowPrivate: true, vocabularies: false }).run();
    expect(s.documents).toBe(1);
    const deadRows = crawlLog(dataDir).filter((e) => String(e.url).startsWith(dead));
    // Requests that got no answer (robots.txt or pages) end at the origin's failure bound; the rest are skipped.
    const requested = deadRows.filter((e) => e.reason !== 'failing-origin');
    expect(requested.length).toBeLessThanOrEqual(8);
    expect(deadRows.filter((e) => e.reason === 'failing-origin').length).toBeGreaterThanOrEqual(50);
  }, 60_000);
});
