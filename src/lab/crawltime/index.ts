/**
 * The crawl-time lab (seed 000, section 5, Table 3): real crawls of batches of URLs over several
 * hosts, each crawl's time estimated first by seed 000's heuristic and by datamonitor's
 * politeness-aware estimator (src/schedule/crawl-time.ts), then measured. The hosts are virtual
 * (host names resolved to 127.0.0.1, each with its own server latency) and serve real pages (a
 * site directory) or generated Turtle; time is scaled down (milliseconds of delay where a crawl of
 * the Web has seconds) so that many crawls fit in a minute. What each estimator is told is what a
 * re-crawl cycle knows: the URLs per host, the politeness delay, and each host's mean download time
 * from the crawls before (the store's hosts table).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crawl } from '../../crawler/crawl.ts';
import { openStore } from '../../store/index.ts';
import { hostOf } from '../../frontier/normalize.ts';
import { estimateCrawlTime, estimationReport, seedEstimate, type EstimateBand, type HostLoad } from '../../schedule/crawl-time.ts';
import { startStaticSite } from '../../testkit/static-site.ts';
import { rng } from '../cache/synthetic-trace.ts';
import { UserError } from '../../util/errors.ts';
import { barChart, lineChart, stack } from '../../plot/svg.ts';

export const LAB_DOMAIN = 'crawltime.test';

export interface CrawlTimeLabOptions {
  /** Crawls to estimate and measure (default 40). */
  trials?: number;
  /** Virtual hosts (default 12); a crawl takes 1 to all of them. */
  hosts?: number;
  /** Most URLs a crawl takes of one host (default 60; fewer are likelier). */
  maxUrlsPerHost?: number;
  /** Fetch slots of the crawler, the estimators' thread count (default 8). */
  concurrency?: number;
  /** Politeness delays a crawl is run with, one picked per crawl (default 0, 10, 25, 50 ms). */
  delaysMs?: number[];
  /** Requests in flight per host a crawl is run with, one picked per crawl (default 1, 2, 4). */
  perHosts?: number[];
  /** Each host's server latency is drawn log-uniformly from this range (default 2–80 ms). */
  latencyMs?: [number, number];
  /** Serve the files of this directory (a real site) on every host; default: generated Turtle pages. */
  siteDir?: string;
  /** Random seed: the same seed gives the same crawls (default 1). */
  seed?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface CrawlTimeTrial {
  hosts: number;
  urls: number;
  /** URLs of each host in the crawl. */
  perHostUrls: number[];
  delayMs: number;
  perHost: number;
  actualMs: number;
  seedMs: number;
  /** The seed's heuristic with its threads per domain capped at the fetcher's real requests in flight per host. */
  seedPerHostMs: number;
  datamonitorMs: number;
  /** The machine's 1-minute load average when the crawl started: the estimators cannot know it. */
  load1: number;
}

export interface EstimatorSummary {
  name: EstimatorName;
  label: string;
  /** Seed 000's Table 3: over- and under-estimation by actual crawl length. */
  bands: EstimateBand[];
  /** Mean of |estimate − actual| / actual. */
  meanAbsError: number;
  /** Median of estimate / actual. */
  medianRatio: number;
  /** Share of crawls estimated within ±20 %. */
  within20: number;
  over: number;
  under: number;
}

export interface CrawlTimeLabResult {
  site: string;
  concurrency: number;
  trials: CrawlTimeTrial[];
  estimators: EstimatorSummary[];
  seconds: number;
}

/** Bands of actual crawl length for the scaled-down crawls (seed 000 used 30-minute bands over hours). */
export const LAB_BANDS = [
  { label: '< 1 s', upToMs: 1000 },
  { label: '1-2 s', upToMs: 2000 },
  { label: '2-5 s', upToMs: 5000 },
  { label: '> 5 s', upToMs: Infinity },
];

/** Bands for crawls of minutes (polite delays of a second or so), closer to the seed's 30-minute bands. */
export const MINUTE_BANDS = [
  { label: '< 1 min', upToMs: 60_000 },
  { label: '1-2 min', upToMs: 120_000 },
  { label: '2-5 min', upToMs: 300_000 },
  { label: '> 5 min', upToMs: Infinity },
];

/** Minute bands once the median crawl lasts over a minute: seconds bands would put every crawl in one band. */
export function bandsFor(actualMs: number[]): typeof LAB_BANDS {
  const s = [...actualMs].sort((a, b) => a - b);
  return s.length > 0 && s[s.length >> 1]! > 60_000 ? MINUTE_BANDS : LAB_BANDS;
}

export type EstimatorName = 'seed' | 'seed-per-host' | 'datamonitor';
const LABELS: Record<EstimatorName, string> = {
  seed: "seed 000's heuristic (first-fit bin packing of domain threads)",
  'seed-per-host': "seed 000's heuristic, threads per domain capped at the fetcher's requests in flight per host",
  datamonitor: 'datamonitor (per-host politeness chains, LPT onto the fetch slots)',
};
const ESTIMATE: Record<EstimatorName, (t: CrawlTimeTrial) => number> = { seed: (t) => t.seedMs, 'seed-per-host': (t) => t.seedPerHostMs, datamonitor: (t) => t.datamonitorMs };
const SHORT: Record<EstimatorName, string> = { seed: 'seed 000 heuristic', 'seed-per-host': 'seed heuristic, real per-host', datamonitor: 'datamonitor' };

export async function runCrawlTimeLab(o: CrawlTimeLabOptions = {}): Promise<CrawlTimeLabResult> {
  const t0 = Date.now();
  const trials = o.trials ?? 40;
  const hostCount = o.hosts ?? 12;
  const maxPerHost = o.maxUrlsPerHost ?? 60;
  const concurrency = o.concurrency ?? 8;
  const delays = o.delaysMs ?? [0, 10, 25, 50];
  const perHosts = o.perHosts ?? [1, 2, 4];
  const [latLo, latHi] = o.latencyMs ?? [2, 80];
  const random = rng(o.seed ?? 1);
  const root = o.siteDir ? siteRoot(o.siteDir) : generatedSite(200, random);
  const paths = sitePaths(root);
  if (paths.length === 0) throw new UserError(`no files to serve in '${o.siteDir}': give the folder of a website's files`);
  const hosts = Array.from({ length: hostCount }, (_, i) => `h${String(i).padStart(2, '0')}.${LAB_DOMAIN}`);
  const latency = new Map(hosts.map((h) => [h, Math.exp(Math.log(latLo) + random() * (Math.log(latHi) - Math.log(latLo)))]));
  const server = await startStaticSite(root, { latencyMs: (host) => latency.get(host) ?? 0 });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-crawltime-'));
  const url = (host: string, p: string) => `http://${host}:${server.port}${p}`;
  const run = (seeds: string[], delayMs: number, perHost: number) =>
    crawl({
      seeds, dataDir, noFollow: true, refetch: true, robots: false, allowPrivate: true, vocabularies: false, domains: [LAB_DOMAIN],
      delayMs, perHost, concurrency, resolve: Object.fromEntries(hosts.map((h) => [h, '127.0.0.1'])), minFreeBytes: 0,
    }).run();
  const out: CrawlTimeTrial[] = [];
  try {
    // What a live scheduler has learnt before it estimates: every host's mean download time.
    await run(hosts.flatMap((h) => paths.slice(0, 3).map((p) => url(h, p))), 0, 1);
    for (let i = 0; i < trials; i++) {
      const chosen = [...hosts].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * hostCount));
      const delayMs = delays[Math.floor(random() * delays.length)]!;
      const perHost = perHosts[Math.floor(random() * perHosts.length)]!;
      const batch = chosen.map((host) => {
        const n = Math.min(paths.length, 1 + Math.floor(maxPerHost * random() ** 2));
        const start = Math.floor(random() * paths.length);
        return { host, urls: Array.from({ length: n }, (_, k) => url(host, paths[(start + k) % paths.length]!)) };
      });
      const loads = await hostLoads(dataDir, batch, delayMs);
      const input = { hosts: loads, concurrency, perHost };
      const load1 = os.loadavg()[0]!;
      const summary = await run(batch.flatMap((b) => b.urls), delayMs, perHost);
      out.push({
        hosts: batch.length, urls: loads.reduce((n, l) => n + l.urls, 0), perHostUrls: loads.map((l) => l.urls), delayMs, perHost, actualMs: summary.durationMs,
        seedMs: seedEstimate(input), seedPerHostMs: seedEstimate(input, { realPerHost: true }), datamonitorMs: estimateCrawlTime(input), load1,
      });
      o.onProgress?.(i + 1, trials);
    }
  } finally {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (!o.siteDir) fs.rmSync(root, { recursive: true, force: true });
  }
  return {
    site: o.siteDir ? path.resolve(o.siteDir) : `${paths.length} generated Turtle pages`,
    concurrency, trials: out,
    estimators: (['seed', 'seed-per-host', 'datamonitor'] as const).map((name) => summarise(name, out.map((t) => ({ estimateMs: ESTIMATE[name](t), actualMs: t.actualMs })), bandsFor(out.map((t) => t.actualMs)))),
    seconds: (Date.now() - t0) / 1000,
  };
}

/** What the estimators are told about a batch: URLs per host, the delay, and the host's mean download time so far. */
async function hostLoads(dataDir: string, batch: Array<{ host: string; urls: string[] }>, delayMs: number): Promise<HostLoad[]> {
  const store = await openStore(dataDir);
  try {
    const loads: HostLoad[] = [];
    for (const b of batch) loads.push({ host: b.host, urls: b.urls.length, meanDownloadMs: (await store.getHost(hostOf(b.urls[0]!)))?.meanDownloadMs, delayMs });
    return loads;
  } finally {
    await store.close();
  }
}

function summarise(name: EstimatorName, rows: Array<{ estimateMs: number; actualMs: number }>, bands = LAB_BANDS): EstimatorSummary {
  const ratios = rows.map((r) => r.estimateMs / r.actualMs).sort((a, b) => a - b);
  const mid = ratios.length >> 1;
  return {
    name,
    label: LABELS[name],
    bands: estimationReport(rows, bands),
    meanAbsError: rows.reduce((s, r) => s + Math.abs(r.estimateMs - r.actualMs) / r.actualMs, 0) / Math.max(1, rows.length),
    medianRatio: ratios.length === 0 ? NaN : ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2,
    within20: rows.filter((r) => Math.abs(r.estimateMs - r.actualMs) <= 0.2 * r.actualMs).length / Math.max(1, rows.length),
    over: rows.filter((r) => r.estimateMs >= r.actualMs).length,
    under: rows.filter((r) => r.estimateMs < r.actualMs).length,
  };
}

function siteRoot(dir: string): string {
  const root = path.resolve(dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new UserError(`--site '${dir}' is not a directory: give the folder of a website's files`);
  return root;
}

/** The URL paths of a site's files (up to 2,000, each under 1 MiB), in name order. */
function sitePaths(root: string): string[] {
  const paths: string[] = [];
  for (const rel of (fs.readdirSync(root, { recursive: true }) as string[]).sort()) {
    const stat = fs.statSync(path.join(root, rel));
    if (!stat.isFile() || stat.size > 1 << 20) continue;
    paths.push('/' + rel.split(path.sep).map(encodeURIComponent).join('/'));
    if (paths.length >= 2000) break;
  }
  return paths;
}

/** A temporary site of `n` Turtle pages of 1 to 30 KB. */
function generatedSite(n: number, random: () => number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-crawltime-site-'));
  fs.mkdirSync(path.join(root, 'p'));
  for (let i = 0; i < n; i++) {
    const size = 1000 + Math.floor(random() * 29_000);
    fs.writeFileSync(path.join(root, 'p', `${i}.ttl`), `<http://example.org/p/${i}> <http://example.org/text> "${'lorem ipsum '.repeat(Math.ceil(size / 12)).slice(0, size)}" .\n`);
  }
  return root;
}

const pct = (v: number) => `${(100 * v).toFixed(0)} %`;

/** The machine's load over the crawls (each crawl records its own), as a reader of the figures needs it. */
export function loadRange(r: CrawlTimeLabResult): string {
  const l = r.trials.map((t) => t.load1);
  return `1-minute load average ${Math.min(...l).toFixed(1)}–${Math.max(...l).toFixed(1)} at the crawls' starts on ${os.cpus().length} cores`;
}

/** The lab's tables in Markdown: one summary row per estimator, then seed 000's Table 3 for each. */
export function formatCrawlTimeReport(r: CrawlTimeLabResult): string {
  const t = r.trials;
  const lines = [
    `${t.length} crawls of ${Math.min(...t.map((x) => x.urls))}–${Math.max(...t.map((x) => x.urls))} URLs on 1–${Math.max(...t.map((x) => x.hosts))} hosts (${r.site}), ${r.concurrency} fetch slots; ` +
      `delays ${[...new Set(t.map((x) => x.delayMs))].sort((a, b) => a - b).join('/')} ms, ${[...new Set(t.map((x) => x.perHost))].sort().join('/')} requests in flight per host; actual ${(Math.min(...t.map((x) => x.actualMs)) / 1000).toFixed(2)}–${(Math.max(...t.map((x) => x.actualMs)) / 1000).toFixed(2)} s; ${loadRange(r)}.`,
    '',
    '| estimator | mean \\|error\\| | median estimate ÷ actual | within ±20 % | over | under |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...r.estimators.map((e) => `| ${e.label} | ${pct(e.meanAbsError)} | ${e.medianRatio.toFixed(2)} | ${pct(e.within20)} | ${e.over} | ${e.under} |`),
  ];
  for (const e of r.estimators) {
    lines.push('', `Table 3, ${e.label}:`, '', '| actual crawl length | crawls | over | mean over | under | mean under |', '| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const b of e.bands) if (b.crawls) lines.push(`| ${b.band} | ${b.crawls} | ${b.over} | ${b.over ? pct(b.overFraction) : '–'} | ${b.under} | ${b.under ? pct(b.underFraction) : '–'} |`);
  }
  return lines.join('\n');
}

/** Estimate ÷ actual against the actual crawl time, per estimator (1 = exact), and Table 3's mean errors by crawl length. */
export function crawlTimePlot(r: CrawlTimeLabResult): string {
  const xs = r.trials.map((t) => t.actualMs / 1000);
  const scatter = lineChart({
    title: 'Crawl-time estimate ÷ actual crawl time (1 = exact)',
    xLabel: 'actual crawl time (s)', yLabel: 'estimate ÷ actual', width: 760, height: 380, yMin: 0,
    series: [
      ...r.estimators.map((e) => ({ name: SHORT[e.name], line: false, points: r.trials.map((t, i) => [xs[i]!, ESTIMATE[e.name](t) / t.actualMs] as [number, number]) })),
      { name: 'exact', markers: false, points: [[Math.min(...xs), 1], [Math.max(...xs), 1]] as Array<[number, number]> },
    ],
  });
  const bands = r.estimators[0]!.bands.filter((b) => b.crawls > 0).map((b) => b.band);
  const bars = barChart({
    title: 'Mean error by actual crawl length (seed 000 Table 3)', yLabel: 'mean |estimate − actual| ÷ actual (%)', width: 760, height: 340,
    categories: bands,
    series: r.estimators.map((e) => ({
      name: SHORT[e.name],
      values: e.bands.filter((b) => b.crawls > 0).map((b) => (100 * (b.over * b.overFraction + b.under * b.underFraction)) / b.crawls),
    })),
  });
  return stack([scatter, bars]);
}
