import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import { Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startLinkedDataWeb, type LinkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { crawlLog, tempDir } from '../helpers.ts';

/**
 * A crawl whose frontier holds only a few dozen URLs in memory (`frontierMemory`) and spills the rest to disk
 * fetches what an unbounded crawl fetches, each URL once; a crawl stopped with URLs on disk loses none of them
 * (they are queued in the store, and a resume fetches them); the spill leaves nothing behind in the data directory.
 */

const DOCS = 300;
const HOSTS = 6;

describe('a crawl with a bounded frontier', () => {
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  const run = (dataDir: string, extra: Record<string, unknown>) =>
    crawl({ seeds: [web.seed], dataDir, proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 50, delayMs: 0, perHost: 2, domains: ['lod.test'], vocabularies: false, ...extra }).run();
  /** Fetches of each URL the servers saw during `body`. */
  const hitsDuring = async (body: () => Promise<unknown>): Promise<Map<string, number>> => {
    const before = new Map(web.hits);
    await body();
    return new Map([...web.hits].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as [string, number]).filter(([, n]) => n > 0));
  };

  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: DOCS, hosts: HOSTS });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  it('fetches what the unbounded crawl fetches, each URL once, with at most its bound in memory', async () => {
    let open: CrawlSummary | undefined;
    let bounded: CrawlSummary | undefined;
    const openHits = await hitsDuring(async () => (open = await run(tempDir(), { frontierMemory: Number.POSITIVE_INFINITY })));
    const dataDir = tempDir();
    // A killed crawl's spill (its process gone) is cleared by the next crawl of the directory.
    fs.mkdirSync(path.join(dataDir, '.frontier-999999999-abc'));
    const boundedHits = await hitsDuring(async () => (bounded = await run(dataDir, { frontierMemory: 20 })));
    expect(open!.frontier!.spilled).toBe(0);
    expect(bounded!.frontier!.spilled, 'URLs waited on disk').toBeGreaterThan(100);
    expect(open!.frontier!.peakInMemory).toBeGreaterThan(150);
    expect(bounded!.frontier!.peakInMemory).toBeLessThanOrEqual(20);
    expect([...boundedHits.keys()].sort()).toEqual([...openHits.keys()].sort());
    expect([...boundedHits].filter(([u, n]) => n > 1 && !u.endsWith('/robots.txt'))).toEqual([]);
    expect(bounded!.documents).toBe(open!.documents);
    expect(bounded!.queued).toBe(0);
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('.frontier-') || n.startsWith('.seen-'))).toEqual([]);
  }, 60_000);

  it('loses no spilled URL when it stops early: a resume fetches the rest, none twice', async () => {
    const dataDir = tempDir();
    const hits = await hitsDuring(async () => {
      const first = await run(dataDir, { frontierMemory: 10, maxDocs: 120 });
      expect(first.stoppedBy).toBe('max-docs');
      expect(first.frontier!.spilled).toBeGreaterThan(0);
      expect(first.frontier!.peakInMemory).toBeLessThanOrEqual(10);
      expect(first.queued).toBeGreaterThan(0);
      const second = await run(dataDir, { frontierMemory: 10 });
      expect(second.resumed).toBe(true);
      expect(second.queued).toBe(0);
    });
    const archived = new Set(crawlLog(dataDir).filter((e) => e.status === 200).map((e) => e.final_url ?? e.url));
    // Every document of the Web (its vocabulary is not fetched: vocabularies false).
    const docs = web.documentUrls().filter((u) => /\/doc\/\d+$/.test(u));
    expect(docs.length).toBe(DOCS);
    for (const u of docs) expect(archived, u).toContain(u);
    expect([...hits].filter(([u, n]) => n > 1 && !u.endsWith('/robots.txt'))).toEqual([]);
  }, 60_000);
});

/**
 * Many more hosts than the bound: 2,000 hosts behind the proxy, two documents each, seeded host by host (so a
 * host's second document is the next URL in order, and politeness makes the frontier serve other hosts meanwhile),
 * with 100 queued URLs in memory. Whole origins wait on disk with their politeness state and come back in order.
 */
describe('a crawl of many more hosts than its frontier holds', () => {
  const HOSTS = 2_000;
  const DELAY = 100;
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: 2 * HOSTS, hosts: HOSTS });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  it('holds at most its bound in memory, fetches every document once, each host politely and in order', async () => {
    const seeds = Array.from({ length: HOSTS }, (_, h) => [web.document(h), web.document(h + HOSTS)]).flat();
    const dataDir = tempDir();
    // When each request was written to the connection (the proxy's or the server's clock would add their own lag).
    const sent: Array<{ url: string; time: number }> = [];
    const onSend = (message: unknown) => sent.push({ url: (message as { request: { path: string } }).request.path, time: Date.now() });
    diagnostics.subscribe('undici:client:sendHeaders', onSend);
    let s: CrawlSummary;
    try {
      s = await crawl({ seeds, dataDir, proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 0, delayMs: DELAY, perHost: 1, concurrency: 32, domains: ['lod.test'], vocabularies: false, frontierMemory: 100 }).run();
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', onSend);
    }
    expect(s.documents).toBe(2 * HOSTS);
    expect(s.queued).toBe(0);
    expect(s.hosts).toBe(HOSTS);
    expect(s.frontier!.peakInMemory).toBeLessThanOrEqual(100);
    expect(s.frontier!.spilled).toBeGreaterThan(HOSTS);
    const docs = web.requests.filter((r) => r.path.startsWith('/doc/'));
    expect(docs.length).toBe(2 * HOSTS);
    expect(new Set(docs.map((r) => `${r.host}${r.path}`)).size).toBe(2 * HOSTS);
    const byHost = new Map<string, typeof sent>();
    for (const r of sent) {
      const host = new URL(r.url).host;
      byHost.set(host, [...(byHost.get(host) ?? []), r]);
    }
    expect(byHost.size).toBe(HOSTS);
    for (const [host, rs] of byHost) {
      const h = Number(/^data(\d+)\./.exec(host)![1]);
      // robots.txt (fetched for the first document, just before it), then the host's documents in the seeds'
      // order, the second at least the delay after the first.
      expect(rs.map((r) => new URL(r.url).pathname), host).toEqual(['/robots.txt', `/doc/${h}`, `/doc/${h + HOSTS}`]);
      expect(rs[2]!.time - rs[1]!.time, host).toBeGreaterThanOrEqual(DELAY);
    }
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('.frontier-'))).toEqual([]);
  }, 180_000);
});

/**
 * What a crawl keeps per origin stays within its bound too (issue #30: 100,000 hosts under `--frontier-memory 10000`
 * in 659 MB, most of it per-host state): 1,000 hosts behind the proxy, one document each, 40 origins' URLs in memory.
 * Looked at while the crawl runs: the parsed robots.txt answers (the rest wait in the spill, read back when an origin
 * comes back) and undici's dispatchers (undici's proxy agent kept one per origin ever asked) stay within the bound plus
 * the requests in flight, and each host's robots.txt is still fetched once. (The frontier's own origins in memory:
 * test/frontier/spill.test.ts.)
 */
describe('a crawl of many hosts keeps per-origin state within its bound', () => {
  const HOSTS = 1_000;
  const BOUND = 40;
  const CONCURRENCY = 16;
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: HOSTS, hosts: HOSTS });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  it('robots.txt answers and undici dispatchers in memory stay under bound + concurrency', async () => {
    const Robots = (createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => object)('http://a.test/robots.txt', '').constructor;
    const live = () => ({
      robots: v8.queryObjects(Robots as new () => unknown, { format: 'count' }) as number,
      dispatchers: v8.queryObjects(Dispatcher, { format: 'count' }) as number,
    });
    const idle = live();
    const peak = { robots: 0, dispatchers: 0 };
    // Each look walks the whole heap (half a second or more): twice is enough, a quarter and half-way through (progress
    // comes every 200 ms at most and not at the end: the looks leave it time to come).
    const at = [HOSTS / 4, HOSTS / 2];
    const seeds = Array.from({ length: HOSTS }, (_, h) => web.document(h));
    const s = await crawl({ seeds, dataDir: tempDir(), proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 0, delayMs: 0, perHost: 1, concurrency: CONCURRENCY, domains: ['lod.test'], vocabularies: false, frontierMemory: BOUND })
      .onProgress((p) => {
        if (at.length === 0 || p.documents < at[0]!) return;
        at.shift();
        for (const [k, n] of Object.entries(live())) peak[k as keyof typeof peak] = Math.max(peak[k as keyof typeof peak], n - idle[k as keyof typeof idle]);
      })
      .run();
    expect(at, 'both looks taken').toEqual([]);
    expect(s.documents).toBe(HOSTS);
    expect(s.frontier!.peakInMemory).toBeLessThanOrEqual(BOUND);
    const robotsFetches = [...web.hits].filter(([k]) => k.endsWith('/robots.txt'));
    expect(robotsFetches.length).toBe(HOSTS);
    expect(robotsFetches.filter(([, n]) => n > 1)).toEqual([]);
    // Each look came after the crawl had been through many more hosts than these bounds.
    expect(peak.robots, 'parsed robots.txt answers in memory').toBeLessThanOrEqual(BOUND + 2 * CONCURRENCY);
    // Two fetchers (pages, and robots.txt beside them), each a dozen agents and a client a connection to the proxy.
    expect(peak.dispatchers, 'undici dispatchers').toBeLessThanOrEqual(2 * (12 + CONCURRENCY));
  }, 120_000);
});
