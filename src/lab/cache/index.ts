/** The caching lab (seed 002): read a URL trace, simulate the cache policies, report and plot. */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../util/errors.ts';
import { missRatioSvg } from './plot.ts';
import { simulateCaches, LAB_POLICIES, type CacheLabResult, type LabPolicy, type SimulateOptions } from './simulate.ts';
import { readTrace } from './trace.ts';

export { simulateCaches, replayMisses, denseIds, defaultSizes, LAB_POLICIES, COUNTING_NOTE } from './simulate.ts';
export type { CacheLabResult, CacheCurve, CachePoint, LabPolicy, SimulateOptions } from './simulate.ts';
export { minMisses, nextUses } from './min.ts';
export { readTrace, readTraceLines, traceOf, TraceBuilder } from './trace.ts';
export type { FingerprintTrace } from './trace.ts';
export { missRatioSvg } from './plot.ts';
export { syntheticTrace, syntheticUrl, skewed, rng } from './synthetic-trace.ts';

export interface CacheLabOptions extends SimulateOptions {
  trace: string;
  /** Where to write the SVG plot. */
  plot?: string;
}

/** Parses a `--sizes` list: "1,2,4", "1-1024" (powers of two in between) or "2^0-2^19". */
export function parseSizes(spec: string): number[] {
  const sizes = new Set<number>();
  const num = (s: string) => {
    const m = /^\s*(?:2\^(\d+)|(\d+))\s*$/.exec(s);
    if (!m) throw new UserError(`--sizes: '${s}' is not a cache size (use numbers like 1024 or 2^10, a list "1,8,64" or a range "1-1024")`);
    return m[1] !== undefined ? 2 ** Number(m[1]) : Number(m[2]);
  };
  for (const part of spec.split(',')) {
    if (!part.trim()) continue;
    const range = part.split(/(?<=\d)-(?=\s*(?:2\^)?\d)/);
    if (range.length === 2) {
      const a = num(range[0]), b = num(range[1]);
      if (a < 1 || b < a) throw new UserError(`--sizes: range '${part}' must go from a size ≥ 1 up`);
      for (let s = a; s <= b; s *= 2) sizes.add(s);
    } else sizes.add(num(part));
  }
  if (sizes.size === 0) throw new UserError('--sizes: no sizes given');
  return [...sizes].sort((a, b) => a - b);
}

export function parsePolicies(spec: string): LabPolicy[] {
  const list = spec.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const p of list) {
    if (!(LAB_POLICIES as readonly string[]).includes(p)) throw new UserError(`--policies: unknown policy '${p}' (choose from ${LAB_POLICIES.join(', ')})`);
  }
  if (list.length === 0) throw new UserError('--policies: no policy given');
  return list as LabPolicy[];
}

export async function runCacheLab(opts: CacheLabOptions): Promise<CacheLabResult & { trace: string; seconds: number; plot?: string }> {
  const t0 = performance.now();
  const trace = await readTrace(opts.trace);
  if (trace.length === 0) throw new UserError(`trace ${opts.trace} holds no URLs (expected one URL a line)`);
  const result = simulateCaches(trace, opts);
  if (opts.plot) {
    fs.mkdirSync(path.dirname(path.resolve(opts.plot)), { recursive: true });
    fs.writeFileSync(opts.plot, missRatioSvg(result, `Miss ratio against cache size: ${path.basename(opts.trace)}`));
  }
  return { trace: opts.trace, ...result, seconds: (performance.now() - t0) / 1000, plot: opts.plot };
}

/** The result as a markdown table: one row per cache size, one column per policy. */
export function formatCacheTable(result: CacheLabResult): string {
  const head = `| cache size | ${result.curves.map((c) => c.policy).join(' | ')} |`;
  const rule = `| ---: | ${result.curves.map(() => '---:').join(' | ')} |`;
  const rows = result.sizes.map((size, i) => `| ${size} | ${result.curves.map((c) => c.points[i].missRatio.toFixed(4)).join(' | ')} |`);
  return [head, rule, ...rows].join('\n');
}
export { publishedStatsTrace, describeTrace, TraceCounter, CRAWL_STATISTICS, zipf } from './published-trace.ts';
