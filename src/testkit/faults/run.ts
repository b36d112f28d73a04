/**
 * One fault case as a user meets it: a real crawl of the hostile URL together with a healthy host,
 * then what a user would check: did it end, what does the log say about the hostile URL, is the
 * healthy host all there, how much memory did it take, does `verify` pass. The tests assert on
 * this result; `npm run faults` prints it as a table.
 */
import { crawl, type CrawlSummary } from '../../crawler/crawl.ts';
import type { CrawlOptions } from '../../crawler/options.ts';
import type { Reason } from '../../vocabulary/reasons.ts';
import { verifyArchive } from '../../archive/verify.ts';
import { openStore } from '../../store/index.ts';
import { startSyntheticSite } from '../synthetic-site.ts';
import { archivedGraph, fatesUnder, readLog, reasonOf, saysOneOf, type LogRow } from './log.ts';

export type FaultScale = 'test' | 'full';

/** Sizes of the hostile payloads: the tests use small ones where the behaviour is the same, `npm run faults` the real ones. */
export interface FaultSize {
  scale: FaultScale;
  maxBodyBytes: number;
  timeoutMs: number;
  /** Inflated size of the gzip and brotli bombs. */
  bombBytes: number;
  robotsBytes: number;
  contextBytes: number;
  literalBytes: number;
  /** Blank nodes of the hard canonicalisation graph (in 4-cycles). */
  blankNodes: number;
  nesting: number;
  links: number;
  urlBytes: number;
}

const MiB = 1024 * 1024;

export const SIZES: Record<FaultScale, FaultSize> = {
  test: { scale: 'test', maxBodyBytes: 1 * MiB, timeoutMs: 2_000, bombBytes: 64 * MiB, robotsBytes: 8 * MiB, contextBytes: 8 * MiB, literalBytes: 4 * MiB, blankNodes: 4_000, nesting: 100_000, links: 100_000, urlBytes: 100 * 1024 },
  full: { scale: 'full', maxBodyBytes: 10 * MiB, timeoutMs: 5_000, bombBytes: 1024 * MiB, robotsBytes: 100 * MiB, contextBytes: 100 * MiB, literalBytes: 50 * MiB, blankNodes: 20_000, nesting: 100_000, links: 100_000, urlBytes: 100 * 1024 },
};

export interface Watched {
  /** The hostile URL whose fate is asserted. */
  url: string;
  /** Other URLs that stand for the same fate (a redirect's target, in normalised form). */
  also?: string[];
  /** Any one of these is a right answer (before and after redirects go through the frontier, say). */
  reasons: Reason[];
  /** Something the log row's diagnostics must say (a limit that was hit). */
  diagnostic?: RegExp;
  /** The archived graph must be the document's: this many triples and blank nodes (no blank-node-blind rewrite). */
  archived?: { triples: number; blankNodes: number };
}

export interface FaultFixture {
  seeds: string[];
  watch: Watched[];
  /** Requests that must never happen (an external entity, a private address): their count. */
  forbidden?: () => number;
  /** Requests the hostile server may take at most (traps, loops, self-listing sitemaps). */
  requests?: { count: () => number; max: number };
  /** URLs that must have been requested (the first hop of a redirect): a fixture refused outright proves nothing. */
  unreached?: () => string[];
  /** Reasons that must appear among the log rows under `prefix`, or for a filter in the summary's counts (a trap cut by a limit). */
  seen?: { prefix: string; reasons: Reason[] };
  /**
   * Crawl options of this case. (allowAddresses for the fixture's own address, the robots.txt retry
   * settings, the wait cap.)
   */
  crawl?: Partial<CrawlOptions> & Record<string, unknown>;
  /** A form that could not be tried here (no IPv6), for the table. */
  note?: string;
  close(): Promise<void>;
}

export type FaultGroup = 'transport' | 'waits' | 'redirects' | 'addresses' | 'content' | 'robots' | 'discovery';

export interface FaultCase {
  name: string;
  group: FaultGroup;
  about: string;
  start(size: FaultSize): Promise<FaultFixture>;
}

export interface FaultResult {
  name: string;
  /** The crawl ended by itself within the bound. */
  ended: boolean;
  endedMs: number;
  boundMs: number;
  summary?: CrawlSummary;
  crawlError?: string;
  watched: Array<{
    url: string; fate?: string; ok: boolean; diagnostics?: string | null; accepted: Reason[]; missingDiagnostic?: string;
    graph?: { expected: { triples: number; blankNodes: number }; archived?: { triples: number; blankNodes: number } };
  }>;
  /** Every distinct fate logged for the hostile origins. */
  fates: string[];
  seen?: { reasons: Reason[]; ok: boolean };
  forbiddenHits: number;
  requests?: { count: number; max: number };
  unreached: string[];
  healthy: { expected: number; archived: number; missing: string[] };
  rssGrowthBytes: number;
  verify: { ok: boolean; text: string };
  note?: string;
}

const HEALTHY_PAGES = 5;

/**
 * The crawl options every case starts from: small timeouts and limits so a case ends in seconds, no
 * vocabularies (they name hosts outside 127.0.0.1), and the settings the fixes of #12 add, small.
 */
export function baseOptions(size: FaultSize): Partial<CrawlOptions> & Record<string, unknown> {
  return {
    delayMs: 0, perHost: 1, concurrency: 4, vocabularies: false, allowPrivate: true,
    timeoutMs: size.timeoutMs, maxBodyBytes: size.maxBodyBytes, minFreeBytes: 0,
    // Not in CrawlOptions yet (the frontier work of #12 adds them); names to align at the merge.
    robotsRetries: 2, robotsRetryDelayMs: 200, maxWaitMs: 60_000,
  };
}

export async function runFaultCase(c: FaultCase, dataDir: string, o: { scale?: FaultScale; boundMs?: number } = {}): Promise<FaultResult> {
  const size = SIZES[o.scale ?? 'test'];
  const boundMs = o.boundMs ?? (size.scale === 'test' ? 30_000 : 90_000);
  const healthy = await startSyntheticSite({ pages: HEALTHY_PAGES, linksPerPage: 2 });
  const fixture = await c.start(size);
  const healthySeeds = Array.from({ length: HEALTHY_PAGES }, (_, i) => `${healthy.url}/page/${i}`);
  let peak = process.memoryUsage().rss;
  const before = peak;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const stop = new AbortController();
  const t0 = Date.now();
  let summary: CrawlSummary | undefined;
  let crawlError: string | undefined;
  let ended = false;
  try {
    const options = { ...baseOptions(size), ...fixture.crawl, seeds: [...fixture.seeds, ...healthySeeds], dataDir, signal: stop.signal } as CrawlOptions;
    const run = crawl(options).run().then(
      (s) => void (summary = s),
      (e: Error) => void (crawlError = e.stack ?? e.message),
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'bound'>((resolve) => (timer = setTimeout(() => resolve('bound'), boundMs)));
    ended = (await Promise.race([run.then(() => 'ended' as const), bound])) === 'ended';
    clearTimeout(timer);
    const endedMs = Date.now() - t0;
    if (!ended) {
      // Past the bound: ask it to stop, and give it a little while to close its files.
      stop.abort();
      await Promise.race([run, new Promise((r) => setTimeout(r, 5_000))]);
    }
    clearInterval(sampler);
    const rows: LogRow[] = safeLog(dataDir);
    const watched = fixture.watch.map((w) => {
      const urls = [w.url, ...(w.also ?? [])];
      const fates = urls.map((u) => reasonOf(dataDir, u, rows)).filter((f): f is string => f !== undefined);
      const ok = fates.some((f) => saysOneOf(f, w.reasons));
      const row = rows.filter((r) => urls.includes(r.url)).pop();
      const diagOk = !w.diagnostic || (row?.diagnostics ? w.diagnostic.test(row.diagnostics) : false);
      const graph = w.archived && row ? archivedGraph(dataDir, row) : undefined;
      // A document over its budget may be archived as bytes only; a graph that is archived must be the document's.
      const graphOk = !w.archived || (graph ? graph.triples === w.archived.triples && graph.blankNodes === w.archived.blankNodes : fates.some((f) => saysOneOf(f, ['over-budget'])));
      return {
        url: w.url, fate: fates.join(' → ') || undefined, ok: ok && diagOk && graphOk, diagnostics: row?.diagnostics, accepted: w.reasons,
        missingDiagnostic: diagOk ? undefined : String(w.diagnostic),
        graph: w.archived && { expected: w.archived, archived: graph },
      };
    });
    const prefixes = [...new Set(fixture.watch.map((w) => new URL(w.url).origin))];
    const fates = [...new Set(prefixes.flatMap((p) => fatesUnder(rows, p)))];
    const seen = fixture.seen && {
      reasons: fixture.seen.reasons,
      // A filter's rejections are counted in the summary, not logged row by row (README, "Every URL's fate").
      ok: fixture.seen.reasons.every((r) => fatesUnder(rows, fixture.seen!.prefix).some((f) => saysOneOf(f, [r])) || (summary?.reasons?.[r] ?? 0) > 0),
    };
    const archived = healthySeeds.filter((u) => rows.some((r) => r.url === u && r.status === 200 && r.warc_file));
    return {
      name: c.name, ended, endedMs, boundMs, summary, crawlError, watched, fates, seen,
      forbiddenHits: fixture.forbidden?.() ?? 0,
      requests: fixture.requests && { count: fixture.requests.count(), max: fixture.requests.max },
      unreached: fixture.unreached?.() ?? [],
      healthy: { expected: healthySeeds.length, archived: archived.length, missing: healthySeeds.filter((u) => !archived.includes(u)) },
      rssGrowthBytes: peak - before,
      verify: await verify(dataDir),
      note: fixture.note,
    };
  } finally {
    clearInterval(sampler);
    await fixture.close();
    await healthy.close();
  }
}

function safeLog(dataDir: string): LogRow[] {
  try {
    return readLog(dataDir);
  } catch {
    return [];
  }
}

async function verify(dataDir: string): Promise<{ ok: boolean; text: string }> {
  try {
    const store = await openStore(dataDir, undefined, { readonly: true });
    try {
      const r = await verifyArchive(dataDir, store);
      const problems = r.problems.slice(0, 3).map((p) => `${p.kind} ${p.url}: ${p.detail}`);
      if (r.openFiles.length) problems.push(`${r.openFiles.length} WARC file(s) still open`);
      return { ok: r.problemCount === 0 && r.openFiles.length === 0, text: problems.length ? problems.join('; ') : `intact (${r.records} records)` };
    } finally {
      await store.close();
    }
  } catch (e) {
    return { ok: false, text: `verify failed: ${(e as Error).message}` };
  }
}

/** What a result says is wrong, one line each (empty: the case holds). */
export function faultProblems(r: FaultResult, rssLimitBytes = 400 * MiB): string[] {
  const p: string[] = [];
  if (r.crawlError) p.push(`the crawl threw: ${r.crawlError.split('\n')[0]}`);
  if (!r.ended) p.push(`did not end within ${r.boundMs / 1000} s (hung)`);
  else if (r.summary?.stoppedBy) p.push(`stopped by ${r.summary.stoppedBy}`);
  for (const w of r.watched) {
    if (w.ok) continue;
    const g = w.graph && `; archived graph ${w.graph.archived ? `${w.graph.archived.triples} triples, ${w.graph.archived.blankNodes} blank nodes` : 'none'} (the document has ${w.graph.expected.triples}, ${w.graph.expected.blankNodes})`;
    const d = w.missingDiagnostic && `; no diagnostic matching ${w.missingDiagnostic}`;
    p.push(`${short(w.url)}: fate ${w.fate === undefined ? 'not in the crawl log' : JSON.stringify(w.fate.slice(0, 160))}, expected ${w.accepted.join('|')}${g ?? ''}${d ?? ''}`);
  }
  if (r.seen && !r.seen.ok) p.push(`the log does not show ${r.seen.reasons.join(', ')} (saw ${r.fates.map((f) => f.slice(0, 60)).join(' / ')})`);
  if (r.forbiddenHits > 0) p.push(`${r.forbiddenHits} request(s) that must never happen`);
  if (r.requests && r.requests.count > r.requests.max) p.push(`${r.requests.count} requests to the hostile server (at most ${r.requests.max})`);
  if (r.unreached.length) p.push(`never requested, so the case proves nothing: ${r.unreached.map(short).join(', ')}`);
  if (r.healthy.archived < r.healthy.expected) p.push(`healthy host: ${r.healthy.archived}/${r.healthy.expected} pages archived`);
  if (r.rssGrowthBytes > rssLimitBytes) p.push(`RSS grew ${Math.round(r.rssGrowthBytes / MiB)} MiB`);
  if (!r.verify.ok) p.push(`verify: ${r.verify.text}`);
  return p;
}

const short = (u: string) => (u.length > 100 ? `${u.slice(0, 80)}…(${u.length} chars)` : u);
