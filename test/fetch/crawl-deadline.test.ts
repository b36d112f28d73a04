import { describe, it, expect, afterAll } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { DEFAULTS } from '../../src/crawler/options.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { startRawServer, startProxy, type RawServer, type TestProxy } from './hostile.ts';
import { tempDir, crawlLog } from '../helpers.ts';

const closers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const c of closers) await c.close();
});

/** /0 … /29 on one server, each linking to the next. */
async function chainSite(n: number): Promise<TestServer> {
  return startServer((_req, res, url) => {
    const i = Number(url.pathname.slice(1));
    if (!(i >= 0 && i < n)) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/turtle' });
    const next = i + 1 < n ? ` ; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <${url.origin}/${i + 1}>` : '';
    res.end(`<${url.origin}/${i}> <http://purl.org/dc/terms/title> "page ${i}"${next} .\n`);
  });
}

describe('a crawl with a host that accepts and never answers', () => {
  it('ends within its deadline, records the timeout, and the healthy host is crawled', async () => {
    const silent: RawServer = await startRawServer(() => undefined);
    const healthy = await chainSite(3);
    closers.push(silent, healthy);
    const dataDir = tempDir();
    const t0 = Date.now();
    // robots: false, because robots.txt trouble deferring an origin again and again is a separate fault
    // (the frontier's bounded robots retries); the request's own deadline is what this checks.
    const summary = await crawl({
      seeds: [`http://127.0.0.1:${silent.port}/x`, `${healthy.url}/0`],
      dataDir, allowPrivate: true, robots: false, vocabularies: false, delayMs: 0, backoffBaseMs: 100, timeoutMs: 1000,
    }).run();
    // The silent host is tried DEFAULTS.maxRetries + 1 times, each ending by its deadline.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(summary.documents).toBe(3);
    const failed = crawlLog(dataDir).filter((r) => r.url.includes(`:${silent.port}/`));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((r) => /timeout/.test(r.error))).toBe(true);
  });
});

describe('a proxied crawl', () => {
  it('of an https origin whose CONNECT tunnel never finishes TLS ends by its deadline (undici alone waited 10 s per try)', async () => {
    const silent: RawServer = await startRawServer(() => undefined);
    const proxy: TestProxy = await startProxy();
    closers.push(silent, proxy);
    const dataDir = tempDir();
    const t0 = Date.now();
    await crawl({
      seeds: [`https://far.example.test:${silent.port}/x`],
      dataDir, allowPrivate: true, robots: false, vocabularies: false, delayMs: 0, backoffBaseMs: 100, timeoutMs: 1000, proxy: proxy.url,
    }).run();
    // A timeout is tried again (DEFAULTS.maxRetries): each try ends by its 1 s deadline, where undici alone took 10 s.
    const tries = DEFAULTS.maxRetries + 1;
    expect(Date.now() - t0).toBeLessThan(tries * 8_000);
    const rows = crawlLog(dataDir);
    expect(rows).toHaveLength(tries);
    expect(rows[0].error).toMatch(/TLS/);
    // A try after a tunnel that timed out may not get its CONNECT through in time (undici's client of the proxy): a connect timeout, as bounded.
    for (const r of rows) expect(['timeout-tls', 'timeout-connect']).toContain(r.reason);
  });

  it('of 30 pages prints no MaxListenersExceededWarning', async () => {
    const site = await chainSite(30);
    const proxy: TestProxy = await startProxy();
    closers.push(site, proxy);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const summary = await crawl({
        seeds: Array.from({ length: 30 }, (_, i) => `${site.url}/${i}`),
        dataDir: tempDir(), allowPrivate: true, robots: false, vocabularies: false, delayMs: 0, perHost: 16, concurrency: 16,
        proxy: proxy.url, timeoutMs: 5000, signal: new AbortController().signal,
      }).run();
      expect(summary.documents).toBe(30);
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
