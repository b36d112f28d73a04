import fs from 'node:fs';
import path from 'node:path';
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
    // Each origin keeps its best URL in memory and takes back a refill of 16 at least: 20 + 16 per origin, not the hundreds queued.
    expect(open!.frontier!.peakInMemory).toBeGreaterThan(150);
    expect(bounded!.frontier!.peakInMemory).toBeLessThanOrEqual(20 + 16 * (HOSTS + 2));
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
