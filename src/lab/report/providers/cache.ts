/**
 * Seed 002's caching claims: over the real PostgreSQL crawl trace (one host, 2,846 distinct URLs),
 * a multi-host trace of 1 M requests generated from published crawl statistics
 * (src/lab/cache/published-trace.ts), where the caches are small against the distinct URLs, and,
 * given a site built by `lab site --debian` (--large-site), the real multi-host link stream of its
 * breadth-first crawl.
 */
import fs from 'node:fs';
import path from 'node:path';
import { defaultSizes, denseIds, describeTrace, missRatioSvg, publishedStatsTrace, readTrace, readTraceLines, simulateCaches, TraceBuilder, TraceCounter, traceOf, type CacheLabResult, type FingerprintTrace } from '../../cache/index.ts';
import type { Claim, ClaimProvider, ProviderResult, ReportContext } from '../types.ts';
import { verdictOf } from '../types.ts';
import { judge, SEED_CACHE_ENTRIES, type LabSetting } from '../rules.ts';
import { pct, table } from '../format.ts';
import { readManifest, TRACE_FILE } from '../../ordering/debian-site.ts';
import { UserError } from '../../../util/errors.ts';

export interface CacheTraceInput {
  key: string;
  label: string;
  trace: FingerprintTrace;
  setting: LabSetting;
}

/** The breadth-first link stream `lab site` wrote beside the site (real pages, real links, a virtual crawl). */
async function largeSiteTrace(dir: string, ctx: ReportContext): Promise<CacheTraceInput> {
  const manifest = readManifest(dir);
  const file = path.join(dir, TRACE_FILE);
  if (!fs.existsSync(file)) throw new UserError(`${dir} has no ${TRACE_FILE}: rebuild it with \`datamonitor lab site --debian … --out ${dir}\` (without --trace-out)`);
  ctx.progress(`cache: reading ${file}`);
  const b = new TraceBuilder();
  const c = new TraceCounter();
  for await (const url of readTraceLines(file)) {
    b.push(url);
    c.add(url);
  }
  const d = c.result();
  return {
    key: 'debian',
    label: `real trace: every link extracted, in crawl order, by a breadth-first virtual crawl of ${manifest.packages.length} Debian documentation package${manifest.packages.length === 1 ? '' : 's'} served one host each (real pages and links, no HTTP; one generated portal page): ${d.requests.toLocaleString('en')} requests, ${d.distinct.toLocaleString('en')} distinct URLs on ${d.hosts.toLocaleString('en')} hosts`,
    trace: b.done(),
    setting: { requests: d.requests, hosts: d.hosts, generated: false },
  };
}

async function inputs(ctx: ReportContext & { largeSite?: string }): Promise<CacheTraceInput[]> {
  const out: CacheTraceInput[] = [];
  if (ctx.largeSite) out.push(await largeSiteTrace(ctx.largeSite, ctx));
  const pg = ctx.sharedData && path.join(ctx.sharedData, 'traces', 'postgresql-doc-15.urltrace.gz');
  if (!ctx.quick && pg && fs.existsSync(pg)) {
    const trace = await readTrace(pg);
    out.push({ key: 'pg', label: 'real trace: breadth-first crawl of the PostgreSQL 15 documentation (1 host)', trace, setting: { requests: trace.length, hosts: 1, generated: false } });
  }
  const n = ctx.quick ? 100_000 : 1_000_000;
  ctx.progress(`cache: generating a ${n.toLocaleString('en')}-request multi-host trace from published crawl statistics`);
  const urls = [...publishedStatsTrace(n, ctx.quick ? { hosts: 200, pages: 500_000 } : {})];
  const d = describeTrace(urls);
  out.push({ key: 'multihost', label: `multi-host trace generated from published crawl statistics: ${d.requests.toLocaleString('en')} requests, ${d.distinct.toLocaleString('en')} distinct URLs on ${d.hosts.toLocaleString('en')} hosts`, trace: traceOf(urls), setting: { requests: d.requests, hosts: d.hosts, generated: true } });
  return out;
}

const curve = (r: CacheLabResult, policy: string) => r.curves.find((c) => c.policy === policy)!.points;

/** The claims over one trace's simulation: exported so a test can flip them with its own trace. */
export function cacheClaims(r: CacheLabResult, key: string, label: string, setting: LabSetting): Claim[] {
  const lru = curve(r, 'lru'), clock = curve(r, 'clock'), random = curve(r, 'random'), min = curve(r, 'min');
  const inf = r.distinct / r.requests;
  const base = { seed: '002', data: label, figure: `cache-${key}` };
  const claims: Claim[] = [];
  // The seed's cache size as a count of entries (its wording gives no share of the URLs to scale by).
  const at = r.sizes.indexOf(SEED_CACHE_ENTRIES);
  const hit = at < 0 ? undefined : 1 - Math.min(lru[at]!.missRatio, clock[at]!.missRatio);
  const seedSize = `${SEED_CACHE_ENTRIES.toLocaleString('en')} entries`;
  claims.push({
    ...base,
    id: `002-small-cache-80-${key}`,
    claim: 'A cache of about 50,000 entries can achieve a hit rate of almost 80 %.',
    ...judge(
      '002-small-cache-80',
      { ...setting, distinct: r.distinct },
      hit === undefined ? `no cache of ${seedSize} simulated (${r.distinct.toLocaleString('en')} distinct URLs); the infinite cache hits ${pct(1 - inf)}` : `LRU/CLOCK with ${seedSize} (${pct(SEED_CACHE_ENTRIES / r.distinct)} of the ${r.distinct.toLocaleString('en')} distinct URLs) hit ${pct(hit)} of ${r.requests.toLocaleString('en')} requests; infinite cache ${pct(1 - inf)}`,
      () => verdictOf(hit !== undefined && hit >= 0.75),
    ),
  });
  const gap = Math.max(...lru.map((p, i) => Math.abs(p.missRatio - clock[i].missRatio)));
  claims.push({ ...base, id: `002-clock-like-lru-${key}`, claim: 'CLOCK performs about as well as LRU.', ...judge('002-clock-like-lru', setting, `largest miss-ratio gap over ${r.sizes.length} sizes: ${gap.toFixed(4)}`, () => verdictOf(gap <= 0.03)) });
  const worse = Math.max(...lru.map((p, i) => random[i].missRatio - p.missRatio));
  claims.push({ ...base, id: `002-random-close-${key}`, claim: 'Random replacement is not far behind LRU and CLOCK.', ...judge('002-random-close', setting, `random's miss ratio at most ${worse.toFixed(4)} above LRU's`, () => verdictOf(worse <= 0.1)) });
  const beats = lru.filter((p, i) => Math.min(p.missRatio, clock[i].missRatio, random[i].missRatio) < min[i].missRatio - 1e-12).length;
  claims.push({ ...base, id: `002-min-floor-${key}`, claim: 'The clairvoyant cache (MIN) bounds every practical policy.', measured: `sizes where a practical policy beat MIN: ${beats} of ${r.sizes.length}`, verdict: verdictOf(beats === 0) });
  // bench/CACHE.md's own finding: a static set of the most requested URLs (clairvoyant frequencies) cannot
  // follow a crawl's temporal locality, so it trails LRU while the cache is small.
  const st = curve(r, 'static');
  const smallIdx = r.sizes.map((s, i) => [s, i] as const).filter(([s]) => s <= r.distinct / 100).map(([, i]) => i);
  const staticWorse = smallIdx.filter((i) => st[i].missRatio > lru[i].missRatio + 1e-12).length;
  claims.push({
    ...base,
    id: `002-docs-static-poor-small-${key}`,
    claim: 'A static cache (the most requested URLs, chosen with clairvoyant frequencies) does worse than LRU while the cache is small (at most 1 % of the distinct URLs). bench/CACHE.md, "static".',
    measured: smallIdx.length ? `static's miss ratio above LRU's at ${staticWorse} of ${smallIdx.length} sizes up to ${r.sizes[smallIdx[smallIdx.length - 1]].toLocaleString('en')} entries (largest gap ${Math.max(...smallIdx.map((i) => st[i].missRatio - lru[i].missRatio)).toFixed(4)})` : `no cache size up to 1 % of the ${r.distinct.toLocaleString('en')} distinct URLs`,
    verdict: smallIdx.length === 0 ? 'not testable here' : staticWorse === smallIdx.length ? 'confirmed' : staticWorse === 0 ? 'refuted' : 'mixed',
  });
  // The knee: most of the gain from no cache to the infinite cache is had with a small cache.
  const first = lru[0].missRatio;
  const gain = (i: number) => (first - lru[i].missRatio) / Math.max(1e-12, first - inf);
  const kneeAt = lru.findIndex((_, i) => gain(i) >= 0.8);
  // The largest size simulated at or under a quarter of the knee's (the sizes need not all be powers of two).
  let quarter = 0;
  for (let i = 0; i < kneeAt; i++) if (r.sizes[i]! <= r.sizes[kneeAt]! / 4) quarter = i;
  claims.push({
    ...base,
    id: `002-knee-${key}`,
    claim: 'There is a critical cache size: much smaller caches are much less effective, much larger ones bring little more.',
    // Our test of "critical point": 80 % of the gain from 1 entry to the infinite cache is reached at
    // k ≤ a quarter of the distinct URLs, and a cache of k/4 has less than 60 % of it.
    ...judge(
      '002-knee',
      setting,
      kneeAt < 0 ? 'LRU never gets 80 % of the way to the infinite cache' : `LRU gets 80 % of the way from 1 entry to the infinite cache at ${r.sizes[kneeAt]!.toLocaleString('en')} entries (${pct(r.sizes[kneeAt]! / r.distinct)} of the distinct URLs); ${r.sizes[quarter]!.toLocaleString('en')} entries get ${pct(gain(quarter))} of the way (a knee: under 60 %)`,
      () => verdictOf(kneeAt >= 0 && r.sizes[kneeAt]! <= r.distinct / 4 && gain(quarter) < 0.6),
    ),
  });
  return claims;
}

export function cacheProviderFor(options: { largeSite?: string } = {}): ClaimProvider {
  return {
    name: 'cache',
    seed: '002',
    title: 'URL caching (seed 002)',
    async run(ctx): Promise<ProviderResult> {
      const res: ProviderResult = { claims: [], figures: {}, details: [] };
      for (const t of await inputs({ ...ctx, ...options })) {
        ctx.progress(`cache: simulating 6 policies over ${t.label}`);
        // Powers of two, and the seed's own cache size where the trace has more distinct URLs than that.
        const { distinct } = denseIds(t.trace);
        const sizes = [...new Set([...defaultSizes(distinct), ...(distinct > SEED_CACHE_ENTRIES ? [SEED_CACHE_ENTRIES] : [])])].sort((a, b) => a - b);
        const r = simulateCaches(t.trace, { sizes });
        res.claims.push(...cacheClaims(r, t.key, t.label, t.setting));
        res.figures[`cache-${t.key}`] = { title: `Miss ratio against cache size: ${t.label}`, svg: missRatioSvg(r, `Miss ratio: ${t.label.split(':')[0]} (${r.requests.toLocaleString('en')} requests, ${r.distinct.toLocaleString('en')} distinct)`) };
        res.details!.push(`<h4>${t.label}</h4>`, table(['cache size', ...r.curves.map((c) => c.policy)], r.sizes.map((s, i) => [s.toLocaleString('en'), ...r.curves.map((c) => c.points[i].missRatio.toFixed(4))])));
      }
      return res;
    },
  };
}

export const cacheProvider: ClaimProvider = cacheProviderFor();
