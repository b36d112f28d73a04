/**
 * Crawl-time estimation (seed 000, section 5): how long a batch of URLs takes with at most
 * `concurrency` fetches in flight, so that a cycle can be planned to fit its hour.
 */

export const DEFAULT_DELAY_MS = 1000; // seed 000: unknown domains get a 1 s crawl delay…
export const DEFAULT_DOWNLOAD_MS = 2000; // …and a 2 s mean download time

export interface HostLoad {
  host: string;
  urls: number;
  meanDownloadMs?: number;
  delayMs?: number;
}

export interface CrawlTimeInput {
  hosts: HostLoad[];
  /** Fetch slots (threads / connections) in total. */
  concurrency: number;
  /** Requests in flight per host (the fetcher's politeness rule; default 1). */
  perHost?: number;
}

function params(h: HostLoad): { n: number; t: number; d: number } {
  return { n: Math.max(0, h.urls), t: h.meanDownloadMs ?? DEFAULT_DOWNLOAD_MS, d: h.delayMs ?? DEFAULT_DELAY_MS };
}

/**
 * The seed's heuristic: threads per domain = ⌊t/d⌋ (at least 1), crawltime = t·docs/threads + d·(threads − 1)
 * (the threads start one delay apart, Figure 7), then first-fit bin packing of the domains' threads onto
 * `concurrency` threads: the smallest bin length at which first-fit (largest first) packs everything.
 * `realPerHost`: the same, with the threads per domain capped at the fetcher's requests in flight per host.
 */
export function seedEstimate(input: CrawlTimeInput, o: { realPerHost?: boolean } = {}): number {
  const items: number[] = [];
  const slots = Math.max(1, Math.floor(input.concurrency));
  // The seed assumes ⌊t/d⌋ threads per domain; a fetcher that keeps at most `perHost` requests in
  // flight per host never runs more, so `realPerHost` caps them there (issue #15, item 7).
  const cap = o.realPerHost ? Math.max(1, Math.floor(input.perHost ?? 1)) : Number.POSITIVE_INFINITY;
  for (const h of input.hosts) {
    const { n, t, d } = params(h);
    if (n === 0) continue;
    const threads = Math.max(1, Math.min(slots, Math.floor(t / d), n, cap));
    const time = (t * n) / threads + d * (threads - 1);
    for (let k = 0; k < threads; k++) items.push(time);
  }
  return firstFitMakespan(items, slots);
}

/** Smallest capacity C such that first-fit decreasing puts all items into `bins` bins of length C. */
export function firstFitMakespan(items: number[], bins: number): number {
  if (items.length === 0) return 0;
  const sorted = [...items].sort((a, b) => b - a);
  let lo = sorted[0]!;
  let hi = Math.max(lo, sorted.reduce((a, b) => a + b, 0));
  const fits = (cap: number): boolean => {
    const load: number[] = [];
    for (const x of sorted) {
      let i = 0;
      while (i < load.length && load[i]! + x > cap) i++;
      if (i === load.length) {
        if (load.length === bins) return false;
        load.push(x);
      } else load[i]! += x;
    }
    return true;
  };
  if (fits(lo)) return lo;
  while (hi - lo > 1) {
    const mid = (lo + hi) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** One host's time under a start-to-start delay d with `perHost` fetches in flight: (n − 1)·max(d, t/perHost) + t. */
export function hostTime(h: HostLoad, perHost = 1): number {
  const { n, t, d } = params(h);
  return n === 0 ? 0 : (n - 1) * Math.max(d, t / perHost) + t;
}

/**
 * The politeness-aware estimate: a host is a chain of fetches spaced by its delay, and a slot is held
 * only while fetching (not while waiting out the delay, the likely cause of the seed's overestimation).
 * Each host occupies u = n·t / T_h slots on average over its time T_h; hosts are placed on the slots
 * longest first (LPT, within 4/3 of optimal), a host spread over ⌈u⌉ slots. The result is at least the
 * longest host's time and at least the total fetch work divided by the concurrency.
 */
export function estimateCrawlTime(input: CrawlTimeInput): number {
  const perHost = Math.max(1, input.perHost ?? 1);
  const slots = Math.max(1, Math.floor(input.concurrency));
  let longest = 0;
  let work = 0;
  const pieces: number[] = [];
  for (const h of input.hosts) {
    const { n, t } = params(h);
    if (n === 0) continue;
    const T = hostTime(h, perHost);
    const busy = n * t;
    longest = Math.max(longest, T);
    work += busy;
    const width = Math.max(1, Math.min(slots, Math.ceil(busy / T - 1e-9)));
    for (let k = 0; k < width; k++) pieces.push(busy / width);
  }
  return Math.max(longest, work / slots, lptMakespan(pieces, slots));
}

/** Longest-processing-time-first list scheduling onto m slots. */
export function lptMakespan(jobs: number[], m: number): number {
  if (jobs.length === 0) return 0;
  const sorted = [...jobs].sort((a, b) => b - a);
  const load = new Float64Array(Math.min(m, sorted.length));
  for (const x of sorted) {
    let min = 0;
    for (let i = 1; i < load.length; i++) if (load[i]! < load[min]!) min = i;
    load[min]! += x;
  }
  let max = 0;
  for (const v of load) max = Math.max(max, v);
  return max;
}

export interface DueHost {
  host: string;
  meanDownloadMs?: number;
  delayMs?: number;
  /** The host's due URLs with their due time (smaller = more urgent). */
  urls: Array<{ url: string; due: number }>;
}

export interface PlanOptions {
  concurrency: number;
  perHost?: number;
  estimator?: (input: CrawlTimeInput) => number;
}

export interface BatchPlan {
  urls: string[];
  estimateMs: number;
  /** Due URLs left for a later cycle. */
  deferred: number;
}

/**
 * The largest prefix of the due URLs (most overdue first) whose estimated crawl time fits `cycleMs`.
 * The estimate grows with the prefix, so the prefix length is found by bisection.
 */
export function planBatch(due: DueHost[], cycleMs: number, opts: PlanOptions): BatchPlan {
  const estimator = opts.estimator ?? estimateCrawlTime;
  const all: Array<{ url: string; due: number; host: number }> = [];
  due.forEach((h, i) => h.urls.forEach((u) => all.push({ url: u.url, due: u.due, host: i })));
  all.sort((a, b) => a.due - b.due || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const estimateOf = (k: number): number => {
    const counts = new Array<number>(due.length).fill(0);
    for (let i = 0; i < k; i++) counts[all[i]!.host]!++;
    const hosts: HostLoad[] = [];
    due.forEach((h, i) => {
      if (counts[i]) hosts.push({ host: h.host, urls: counts[i]!, meanDownloadMs: h.meanDownloadMs, delayMs: h.delayMs });
    });
    return estimator({ hosts, concurrency: opts.concurrency, perHost: opts.perHost });
  };
  let lo = 0;
  let hi = all.length;
  if (estimateOf(hi) <= cycleMs) lo = hi;
  else {
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (estimateOf(mid) <= cycleMs) lo = mid;
      else hi = mid;
    }
  }
  return { urls: all.slice(0, lo).map((u) => u.url), estimateMs: estimateOf(lo), deferred: all.length - lo };
}

export interface EstimateBand {
  band: string;
  crawls: number;
  over: number;
  /** Mean (estimate − actual) / actual over the overestimated crawls. */
  overFraction: number;
  overMinutes: number;
  under: number;
  underFraction: number;
  underMinutes: number;
}

/** Bands of actual crawl length for `estimationReport`: seed 000's Table 3, in minutes. */
export const TABLE3_BANDS: Array<{ label: string; upToMs: number }> = [
  { label: '< 30 min', upToMs: 30 * 60_000 },
  { label: '30-60 min', upToMs: 60 * 60_000 },
  { label: '60-90 min', upToMs: 90 * 60_000 },
  { label: '90-120 min', upToMs: 120 * 60_000 },
  { label: '> 2 h', upToMs: Infinity },
];

/** Over- and under-estimation grouped by actual crawl length, like seed 000's Table 3 (or other bands). */
export function estimationReport(cycles: Array<{ estimateMs: number; actualMs: number }>, bands = TABLE3_BANDS): EstimateBand[] {
  const rows = bands.map((b) => ({ band: b.label, crawls: 0, over: 0, overFraction: 0, overMinutes: 0, under: 0, underFraction: 0, underMinutes: 0 }));
  for (const c of cycles) {
    if (!(c.actualMs > 0) || !Number.isFinite(c.estimateMs)) continue;
    const row = rows[bands.findIndex((b) => c.actualMs < b.upToMs)]!;
    row.crawls++;
    const diff = c.estimateMs - c.actualMs;
    if (diff >= 0) {
      row.over++;
      row.overFraction += diff / c.actualMs;
      row.overMinutes += diff / 60_000;
    } else {
      row.under++;
      row.underFraction += -diff / c.actualMs;
      row.underMinutes += -diff / 60_000;
    }
  }
  for (const r of rows) {
    if (r.over) (r.overFraction /= r.over), (r.overMinutes /= r.over);
    if (r.under) (r.underFraction /= r.under), (r.underMinutes /= r.under);
  }
  return rows;
}
