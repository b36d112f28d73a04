import fs from 'node:fs';
import { crawl, isStorageStop, type CrawlOptions, type CapturedDocument, type StorageStopReason } from '../crawler/crawl.ts';
import { DEFAULTS } from '../crawler/options.ts';
import type { Sitemap } from '../extract/sitemap.ts';
import { hostOf } from '../frontier/normalize.ts';
import type { DocumentRow, DocumentStore, HostStore, MetadataStore } from '../store/types.ts';
import { withStore } from '../store/index.ts';
import { getStrategy } from '../schedule/strategies/index.ts';
import { DEFAULT_BOUNDS } from '../schedule/bounds.ts';
import { planBatch, type DueHost } from '../schedule/crawl-time.ts';
import { acquireCycleLock } from '../schedule/lock.ts';
import { HOUR, type NotificationTally, type StrategyBounds, type StrategyContext } from '../schedule/types.ts';
import { asTally, pollDelayMs } from '../schedule/notifications.ts';
import { plural } from '../util/units.ts';
import { OUTCOMES, describeOutcomes, zeroOutcomes, type Outcome } from '../vocabulary/outcomes.ts';

/**
 * One scheduler/downloader cycle (seed 000, section 3): read the URLs that are due, plan the batch
 * the crawl-time estimate says fits the cycle, download and archive it, and let each URL's
 * strategy set its next fetch from what was just observed. A lock keeps cycles from overlapping.
 */

export const DEFAULT_STRATEGY = 'poisson';

export interface CycleOptions {
  dataDir: string;
  /** The store to use, open; else the one `db` names (a postgres:// URL), else SQLite in `dataDir`. */
  store?: MetadataStore;
  db?: string;
  /** The scheduler's clock (epoch ms); tests drive it to replay years in seconds. */
  now?: () => number;
  cycleMs?: number;
  bounds?: StrategyBounds;
  /**
   * Downloads allowed per cycle. When more URLs are due, the budget goes to those most likely to
   * have changed since their last download, 1 − e^(−λ·Δt) with λ the URL's estimated change rate:
   * the choice that maximises the changes this cycle captures.
   */
  budget?: number;
  /** Fetching options (politeness, safety, limits) passed to the downloader. */
  crawl?: Partial<CrawlOptions>;
}

export interface CycleResult {
  id?: number;
  status: 'done' | 'skipped' | 'failed';
  due: number;
  planned: number;
  deferred: number;
  downloads: number;
  changed: number;
  errors: number;
  /** Why a failed cycle stopped when the archive's storage failed (its exit status: storageStopExit). */
  stoppedBy?: StorageStopReason;
  /** The cycle's crawl-log rows in the one way of counting (src/vocabulary/outcomes.ts). */
  outcomes: Record<Outcome, number>;
  estimateMs: number;
  actualMs: number;
  /** URLs a sitemap said changed since their last fetch (made due now), and URLs it listed that were not monitored yet. */
  sitemapHints?: number;
  sitemapAdded?: number;
  /** Documents a monitored stream gave members of, monitored through it from this cycle on (deferToStream). */
  streamDocuments?: number;
  /** Sitemap hints a URL's strategy declined: the sitemap had proved wrong too often (strategy `notified`). */
  sitemapIgnored?: number;
  note?: string;
}

/**
 * The schedule of a monitored sitemap: read at every minimum interval (a day by default). Not a
 * strategy of its own: its value is what it says of other URLs (lastmod), applied by `applySitemap`.
 */
export const SITEMAP_STRATEGY = 'sitemap';

/**
 * The schedule of a monitored Linked Data Event Stream (`add --ldes`): read every cycle it is due, at the
 * minimum interval, like a sitemap; its members are archived as versions of their documents (src/crawler/ldes/).
 */
export const LDES_STRATEGY = 'ldes';
/**
 * The schedule of a document a monitored stream gives members of: none of its own. The stream says when it
 * changes, so no strategy guesses when to download it again (`deferToStream`).
 */
export const STREAM_MEMBER_STRATEGY = 'ldes-member';

/**
 * Documents a stream gave members of are monitored through the stream from now on: not due by any strategy
 * (no next fetch), so that no cycle downloads them by guessing what the stream says. `datamonitor due` can
 * still make one due by hand; its download leaves it with the stream (reschedule).
 */
export async function deferToStream(store: DocumentStore, documents: readonly string[]): Promise<number> {
  let n = 0;
  for (const row of await store.getDocuments(documents)) {
    if (row.strategy === STREAM_MEMBER_STRATEGY || row.strategy === LDES_STRATEGY || row.strategy === SITEMAP_STRATEGY) continue;
    await store.updateDocument(row.url, { monitored: true, strategy: STREAM_MEMBER_STRATEGY, nextFetch: undefined, strategyState: undefined });
    n++;
  }
  return n;
}

/**
 * A sitemap's lastmod is the site telling us a URL changed: a monitored URL whose lastmod is newer
 * than its last fetch is due now, whatever its strategy expected; a listed URL not monitored yet
 * is monitored from now on; child sitemaps of an index are monitored as sitemaps.
 */
async function applySitemap(store: DocumentStore, sitemap: Sitemap, now: number, tally: NotificationTally, bounds: StrategyBounds): Promise<{ hinted: string[]; added: string[]; ignored: number }> {
  const known = new Map((await store.getDocuments(sitemap.urls.map((u) => u.loc))).map((row) => [row.url, row]));
  const hinted: string[] = [];
  const added: string[] = [];
  let ignored = 0;
  const listed = new Set<string>();
  for (const u of sitemap.urls) {
    if (listed.has(u.loc)) continue; // listed twice: the first entry decides
    listed.add(u.loc);
    const row = known.get(u.loc);
    if (!row?.monitored) added.push(u.loc);
    else if (u.lastmod !== undefined && u.lastmod > (row.lastFetched ?? 0) && (row.nextFetch ?? Infinity) > now) {
      // A strategy that judges notifications (notified) may decline one from a sitemap that has proved wrong.
      const follows = getStrategy(row.strategy ?? DEFAULT_STRATEGY).follows;
      if (follows && !follows({ bounds, notifications: tally }, now)) {
        ignored++;
        continue;
      }
      await store.updateDocument(u.loc, { nextFetch: now });
      hinted.push(u.loc);
    }
  }
  if (added.length) await store.addDocuments(added.map((url) => ({ url, host: hostOf(url), depth: 0 })), { monitored: true, strategy: DEFAULT_STRATEGY, nextFetch: now });
  const children = sitemap.sitemaps.map((c) => ({ url: c.loc, host: hostOf(c.loc), depth: 0 }));
  if (children.length) await store.addDocuments(children, { monitored: true, strategy: SITEMAP_STRATEGY, nextFetch: now });
  return { hinted, added, ignored };
}

function withCycleStore<T>(o: CycleOptions, fn: (store: MetadataStore) => Promise<T>): Promise<T> {
  return o.store ? fn(o.store) : withStore(o.dataDir, o.db, fn);
}

/**
 * The due URLs by host, with what the crawl-time estimate needs: each host's mean download time so far,
 * and the delay the downloader will keep there (the cycle's delay, or robots.txt's Crawl-delay when longer).
 */
async function dueByHost(store: HostStore, due: DocumentRow[], delayMs: number): Promise<DueHost[]> {
  const hosts = new Map<string, DueHost>();
  for (const d of due) {
    let h = hosts.get(d.host);
    if (!h) {
      const row = await store.getHost(d.host);
      h = { host: d.host, meanDownloadMs: row?.meanDownloadMs, delayMs: Math.max(delayMs, row?.crawlDelayMs ?? 0), urls: [] };
      hosts.set(d.host, h);
    }
    h.urls.push({ url: d.url, due: d.nextFetch ?? 0 });
  }
  return [...hosts.values()];
}

/**
 * What one download tells the URL's strategy, and the next fetch it sets. A failed fetch is no
 * observation of change: the URL is tried again after the shortest interval.
 */
export async function reschedule(store: DocumentStore, row: DocumentRow, doc: Pick<CapturedDocument, 'url' | 'change'>, t: number, bounds: StrategyBounds, hintedBy?: NotificationTally): Promise<'error' | 'changed' | 'unchanged'> {
  // lastFetched on the scheduler's clock (the capture wrote the wall clock; the same, except in accelerated-time tests),
  // so that sitemap lastmods and budgets compare like with like.
  if (row.strategy === STREAM_MEMBER_STRATEGY) {
    // Downloaded by hand (`due`): its schedule stays the stream's.
    await store.updateDocument(doc.url, { lastFetched: t });
    return doc.change === 'error' ? 'error' : doc.change === 'changed' ? 'changed' : 'unchanged';
  }
  if (doc.change === 'error') {
    await store.updateDocument(doc.url, { nextFetch: t + bounds.minIntervalMs, lastFetched: t });
    return 'error';
  }
  const strategy = getStrategy(row.strategy ?? DEFAULT_STRATEGY);
  // Fetched because a sitemap said it changed: the strategy is told, and given the sitemap's tally to record whether it was right.
  const ctx: StrategyContext = hintedBy ? { bounds, notifications: hintedBy } : { bounds };
  const first = row.strategyState === undefined || row.strategyState === null;
  const state = first ? strategy.initial(ctx) : row.strategyState;
  const changed = doc.change === 'changed';
  const obs = { time: t, changed, first, ...(hintedBy ? { notified: true } : {}) };
  const next = strategy.next(state, obs, ctx);
  await store.updateDocument(doc.url, { strategyState: next.state, nextFetch: t + next.intervalMs, lastFetched: t });
  return changed ? 'changed' : 'unchanged';
}

/** Assumed change rate of a URL whose strategy keeps no estimate: once a week. */
const DEFAULT_RATE_PER_DAY = 1 / 7;

function spendBudget(due: DocumentRow[], budget: number, now: number): DocumentRow[] {
  const score = (d: DocumentRow): number => {
    const rate = (d.strategyState as { ratePerDay?: number } | undefined)?.ratePerDay;
    const lambda = (rate && rate > 0 ? rate : DEFAULT_RATE_PER_DAY) / 86_400_000;
    if (d.lastFetched === undefined) return 2; // never fetched: always worth a download
    return 1 - Math.exp(-lambda * Math.max(0, now - d.lastFetched));
  };
  return due.map((d) => ({ d, s: score(d) })).sort((a, b) => b.s - a.s).slice(0, budget).map((x) => x.d);
}

export async function runCycle(o: CycleOptions): Promise<CycleResult> {
  fs.mkdirSync(o.dataDir, { recursive: true });
  const now = o.now ?? Date.now;
  const cycleMs = o.cycleMs ?? HOUR;
  const bounds = o.bounds ?? DEFAULT_BOUNDS;
  const empty = { due: 0, planned: 0, deferred: 0, downloads: 0, changed: 0, errors: 0, outcomes: zeroOutcomes(), estimateMs: 0, actualMs: 0 };
  const lock = acquireCycleLock(o.dataDir);
  if ('heldBy' in lock) {
    const note = `skipped: the previous cycle is still running (${lock.heldBy})`;
    await withCycleStore(o, async (store) => {
      await store.startCycle({ startedAt: now(), endedAt: now(), urls: 0, status: 'skipped', note });
    });
    return { status: 'skipped', note, ...empty };
  }
  try {
    return await withCycleStore(o, async (store) => {
      const started = now();
      const t0 = Date.now();
      const allDue = await store.dueDocuments(started, 1_000_000);
      const due = o.budget !== undefined && allDue.length > o.budget ? spendBudget(allDue, o.budget, started) : allDue;
      const concurrency = o.crawl?.concurrency ?? 16;
      const perHost = o.crawl?.perHost ?? 1;
      const delayMs = o.crawl?.delayMs ?? DEFAULTS.delayMs;
      const plan = planBatch(await dueByHost(store, due, delayMs), cycleMs, { concurrency, perHost });
      const id = await store.startCycle({ startedAt: started, urls: plan.urls.length, estimateMs: plan.estimateMs, status: 'running' });
      const byUrl = new Map(due.map((d) => [d.url, d]));
      const r: CycleResult = { id, status: 'done', due: allDue.length, planned: plan.urls.length, deferred: plan.deferred + allDue.length - due.length, downloads: 0, changed: 0, errors: 0, outcomes: zeroOutcomes(), estimateMs: plan.estimateMs, actualMs: 0 };
      try {
        // Due sitemaps are read in the same pass; what they say changed is fetched in a second pass of
        // this cycle, not an hour later.
        const madeDue: string[] = [];
        // Each sitemap's tally of what its hints proved (kept in its row's strategy state), and which sitemap hinted which URL.
        const tallies = new Map<string, NotificationTally>();
        const hintedBy = new Map<string, NotificationTally>();
        const download = async (urls: string[], rows: Map<string, DocumentRow>, maxTimeMs: number): Promise<void> => {
          const isSitemap = (u: string) => rows.get(u)?.strategy === SITEMAP_STRATEGY;
          const isStream = (u: string) => rows.get(u)?.strategy === LDES_STRATEGY;
          const downloader = crawl({
            ...o.crawl, seeds: urls.filter((u) => !isSitemap(u) && !isStream(u)), sitemapUrls: urls.filter(isSitemap), dataDir: o.dataDir, store,
            refetch: true, noFollow: true, cycleId: id, maxTimeMs,
            ldes: urls.filter(isStream), onStreamDocuments: async (docs) => void (r.streamDocuments = (r.streamDocuments ?? 0) + (await deferToStream(store, docs))),
          });
          const yielded = new Set<string>();
          for await (const doc of downloader) {
            const row = rows.get(doc.url);
            if (!row) continue;
            yielded.add(doc.url);
            r.downloads++;
            if (row.strategy === LDES_STRATEGY) {
              await store.updateDocument(doc.url, { nextFetch: now() + bounds.minIntervalMs });
              if (doc.change === 'error') r.errors++;
              continue;
            }
            if (row.strategy === SITEMAP_STRATEGY) {
              await store.updateDocument(doc.url, { nextFetch: now() + bounds.minIntervalMs });
              if (doc.sitemap) {
                const tally = tallies.get(doc.url) ?? asTally(row.strategyState);
                tallies.set(doc.url, tally);
                const { hinted, added, ignored } = await applySitemap(store, doc.sitemap, now(), tally, bounds);
                for (const u of hinted) hintedBy.set(u, tally);
                r.sitemapHints = (r.sitemapHints ?? 0) + hinted.length;
                r.sitemapAdded = (r.sitemapAdded ?? 0) + added.length;
                if (ignored) r.sitemapIgnored = (r.sitemapIgnored ?? 0) + ignored;
                // A sitemap that proved wrong is read less often (each read is a download).
                const wait = pollDelayMs(tally, bounds.minIntervalMs);
                if (wait > bounds.minIntervalMs) await store.updateDocument(doc.url, { nextFetch: now() + wait });
                madeDue.push(...hinted, ...added);
              }
              if (doc.change === 'error') r.errors++;
              continue;
            }
            const outcome = await reschedule(store, row, doc, now(), bounds, hintedBy.get(doc.url));
            if (outcome === 'error') r.errors++;
            if (outcome === 'changed') r.changed++;
          }
          // A URL that answered with a redirect is not yielded (its target is, under its own URL), yet it was
          // fetched: without telling its strategy, its next fetch stayed in the past and every cycle fetched it
          // again. Its fetch is an observation like any other: changed when the redirect's bytes did.
          const missed = urls.filter((u) => !yielded.has(u) && !isSitemap(u) && !isStream(u));
          for (const after of missed.length > 0 ? await store.getDocuments(missed) : []) {
            const before = rows.get(after.url);
            if (!before || after.lastFetched === undefined || after.lastFetched === before.lastFetched) continue; // not fetched (refused, stopped)
            r.downloads++;
            const change = before.checksum === undefined ? 'new' : after.checksum === before.checksum ? 'unchanged' : 'changed';
            if ((await reschedule(store, after, { url: after.url, change }, now(), bounds)) === 'changed') r.changed++;
          }
          // Out of disk: the URLs not downloaded stay due for the next cycle, and this one says why it failed.
          const stop = downloader.summary;
          if (stop) for (const k of OUTCOMES) r.outcomes[k] += stop.outcomes[k];
          if (stop && isStorageStop(stop.stoppedBy)) {
            r.stoppedBy = stop.stoppedBy;
            throw new Error(stop.stopMessage ?? stop.stoppedBy);
          }
        };
        const cycleBudgetMs = o.crawl?.maxTimeMs ?? cycleMs;
        if (plan.urls.length > 0) await download(plan.urls, byUrl, cycleBudgetMs);
        const left = cycleBudgetMs - (Date.now() - t0);
        if (madeDue.length > 0 && left > 0) {
          // The second pass is planned like the first, into what is left of the cycle; the rest stays due.
          const rows = new Map((await store.getDocuments([...new Set(madeDue)])).map((row) => [row.url, row]));
          const second = planBatch(await dueByHost(store, [...rows.values()], delayMs), left, { concurrency, perHost });
          r.planned += second.urls.length;
          r.deferred += second.deferred;
          r.estimateMs += second.estimateMs;
          await download(second.urls, rows, left);
        }
        for (const [url, tally] of tallies) await store.updateDocument(url, { strategyState: tally });
        r.actualMs = Date.now() - t0;
        await store.finishCycle(id, {
          endedAt: now(), actualMs: r.actualMs, estimateMs: r.estimateMs, urls: r.planned, status: 'done',
          note: `${plural(r.downloads, 'download')} (${describeOutcomes(r.outcomes)}), ${r.deferred} deferred`,
        });
      } catch (e) {
        r.status = 'failed';
        r.note = (e as Error).message;
        r.actualMs = Date.now() - t0;
        // A store that failed (its database lost, its disk full) may not take this last row either: the
        // cycle's result still says why, and the URLs not downloaded stay due.
        const recorded = store.finishCycle(id, { endedAt: now(), actualMs: r.actualMs, status: 'failed', note: r.note }).then(() => store.flush());
        await (r.stoppedBy ? recorded.catch(() => undefined) : recorded);
        return r;
      }
      await store.flush();
      return r;
    });
  } finally {
    lock.release();
  }
}
