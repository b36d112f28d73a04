/**
 * Real re-crawl cycles against a site on 127.0.0.1 whose sitemap is honest or lies (lastmod = now for
 * every URL), in accelerated time: the `notified` strategy stops following a lying sitemap and
 * follows an honest one.
 */
import { describe, expect, it } from 'vitest';
import { runCycle, SITEMAP_STRATEGY } from '../../src/recrawl/cycle.ts';
import { openStore } from '../../src/store/index.ts';
import { hostOf } from '../../src/frontier/normalize.ts';
import { startReplayServer } from '../../src/lab/recrawl/replay-server.ts';
import type { HistoryRecord } from '../../src/lab/recrawl/histories.ts';
import { asTally, isTrusted } from '../../src/schedule/notifications.ts';
import { DAY, HOUR } from '../../src/schedule/types.ts';
import { crawlLog, tempDir } from '../helpers.ts';

const day0 = Date.parse('2024-03-01T00:00:00Z');
const DAYS = 40;
const at = (d: number) => day0 + d * DAY + 12 * HOUR;
const iso = (t: number) => new Date(t).toISOString();
// Changes at least two days apart, at noon: a daily cycle at 01:00 sees each on its own.
const RECORDS: HistoryRecord[] = [
  { id: 'news', changes: [3, 8, 13, 17, 22, 27, 31, 36] },
  { id: 'guide', changes: [10, 30] },
  { id: 'faq', changes: [25] },
  { id: 'about', changes: [] },
  { id: 'legal', changes: [] },
].map((r) => ({ id: r.id, source: 'site', created: iso(day0), end: iso(day0 + 60 * DAY), changes: r.changes.map((d) => iso(at(d))) }));
const REAL = RECORDS.reduce((n, r) => n + r.changes.length, 0);

interface Outcome {
  downloads: number;
  captured: number;
  /** Document-days on which the archive's copy was older than the site's (after that day's cycle). */
  staleDays: number;
  ignored: number;
  /** Downloads of the sitemap itself. */
  sitemapReads: number;
  trusted?: boolean;
}

/** A cycle every day at 01:00; every document monitored with `strategy`, the sitemap too unless `sitemap` is none. */
async function daily(strategy: string, sitemap: 'none' | 'honest' | 'lying'): Promise<Outcome> {
  const server = await startReplayServer(RECORDS, { sitemap: sitemap === 'lying' ? 'lying' : 'honest' });
  const dataDir = tempDir();
  const store = await openStore(dataDir);
  await store.init();
  try {
    server.clock = day0 + HOUR;
    const docs = RECORDS.map((r) => server.urlOf(r.id));
    const sitemapUrl = `${server.url}/sitemap.xml`;
    await store.addDocuments(docs.map((url) => ({ url, host: hostOf(url), depth: 0 })), { monitored: true, strategy, nextFetch: server.clock });
    if (sitemap !== 'none') await store.addDocuments([{ url: sitemapUrl, host: hostOf(sitemapUrl), depth: 0 }], { monitored: true, strategy: SITEMAP_STRATEGY, nextFetch: server.clock });
    let ignored = 0;
    let staleDays = 0;
    for (let d = 0; d < DAYS; d++) {
      server.clock = day0 + d * DAY + HOUR;
      const r = await runCycle({ dataDir, store, now: () => server.clock, crawl: { delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] } });
      expect(r.status, r.note).toBe('done');
      ignored += r.sitemapIgnored ?? 0;
      const rows = new Map((await store.getDocuments(docs)).map((row) => [row.url, row]));
      for (const rec of RECORDS) {
        const lastChange = rec.changes.map((c) => Date.parse(String(c))).filter((c) => c <= server.clock).at(-1);
        if (lastChange !== undefined && lastChange > (rows.get(server.urlOf(rec.id))?.lastFetched ?? 0)) staleDays++;
      }
    }
    const tally = sitemap === 'none' ? undefined : (await store.getDocuments([sitemapUrl]))[0]?.strategyState;
    const log = crawlLog(dataDir).filter((e) => docs.includes(e.url));
    const sitemapReads = crawlLog(dataDir).filter((e) => e.url === sitemapUrl).length;
    return { downloads: log.length, captured: log.filter((e) => e.change === 'changed').length, staleDays, ignored, sitemapReads, ...(tally ? { trusted: isTrusted(asTally(tally)) } : {}) };
  } finally {
    await store.close();
    await server.close();
  }
}

describe('notified in the live cycle, in accelerated time', () => {
  it('stops trusting a sitemap that says every URL changed every day: far fewer wasted downloads than trusting it', async () => {
    const trusting = await daily('poisson', 'lying'); // the cycle's default: every sitemap hint followed
    const learning = await daily('notified', 'lying');
    const wasted = (o: Outcome) => o.downloads - o.captured;
    expect(trusting.downloads).toBeGreaterThan(RECORDS.length * (DAYS - 2)); // every URL, every day
    expect(wasted(learning)).toBeLessThan(wasted(trusting) / 3);
    expect(learning.ignored).toBeGreaterThan(0);
    expect(learning.trusted).toBe(false);
    // …and reads it less often: each read is a download too.
    expect(trusting.sitemapReads).toBeGreaterThanOrEqual(DAYS - 1);
    expect(learning.sitemapReads).toBeLessThan(DAYS / 2);
    // What it gives up: it catches changes on its estimator's schedule, as without a sitemap.
    const alone = await daily('notified', 'none');
    expect(learning.captured).toBeGreaterThanOrEqual(alone.captured - 2);
  }, 600_000);

  it('follows an honest sitemap: changes caught sooner than by the estimator alone', async () => {
    const alone = await daily('notified', 'none');
    const honest = await daily('notified', 'honest');
    expect(honest.captured).toBe(REAL); // every change, in the cycle after it
    expect(alone.captured).toBeLessThan(REAL);
    expect(honest.staleDays).toBeLessThan(alone.staleDays / 2);
    expect(honest.ignored).toBe(0);
    expect(honest.trusted).toBe(true);
    expect(honest.sitemapReads).toBeGreaterThanOrEqual(DAYS - 1);
  }, 600_000);
});
