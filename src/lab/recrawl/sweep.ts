import { WEEK, type StrategyBounds } from '../../schedule/types.ts';
import { clampInterval } from '../../schedule/bounds.ts';
import { UserError } from '../../util/errors.ts';
import { defineStrategy, type SteppedStrategy } from '../../schedule/strategies/define.ts';
import { getStrategy } from '../../schedule/strategies/index.ts';
import { ESTIMATOR_OPTIONS, POISSON_OPTIONS, rateStrategy, type RateOptions } from '../../schedule/strategies/rate.ts';
import { QUIET_OPTIONS } from '../../schedule/strategies/quiet.ts';
import { NUTCH_DEFAULTS, nutchStrategy } from '../../schedule/strategies/nutch.ts';
import { documentGroups, GROUPS, report, type Metrics } from './metrics.ts';
import { simulate, type SimulationResult } from './simulate.ts';
import type { HistorySet } from './histories.ts';

/**
 * The factors every strategy's budget parameter is multiplied by (1 = the strategy as registered).
 * Up to 8 because the seed strategies' fewest downloads sit close above gold's: under seed 000's
 * protocol window reaches 1.25 × gold's downloads on python-peps only past c = 4 (1.25 × at 4,
 * 1.22 × at 8; tldr-pages 1.23 ×), and the held-out comparison starts at 1.25 ×.
 */
export const SWEEP_FACTORS: readonly number[] = [0.25, 0.35, 0.5, 0.7, 1, 1.4, 2, 2.8, 4, 5.6, 8];

const RATE: Record<string, RateOptions> = { estimator: ESTIMATOR_OPTIONS, poisson: POISSON_OPTIONS, quiet: QUIET_OPTIONS };

/** What `c` multiplies for a strategy: larger c → fewer downloads for all of them. */
export function sweepParameter(name: string): string {
  if (name === 'week') return 'interval (c × 1 week)';
  if (name === 'gold') return 'interval (c × the true mean)';
  if (name in RATE) return 'interval factor (c × its factor / λ̂)';
  if (name === 'nutch') return 'inc_rate (c × 0.4)';
  return 'lengthening strength (each lengthening factor f becomes f^c)';
}

/**
 * `name` with its budget parameter multiplied by c. Fixed and rate strategies have an interval
 * factor. The seed's feedback strategies have none that moves their budget: they steer towards a
 * change ratio, so stretching their intervals only moves where the ratio is met; raising every
 * lengthening factor to the power c shifts the ratio they settle at (c < 1: slower to back off,
 * more downloads). Nutch's own knob, inc_rate, does the same for it.
 */
// biome-ignore lint/suspicious/noExplicitAny: strategies keep per-URL states of their own types
export function sweepStrategy(name: string, c: number): SteppedStrategy<any> {
  const base = getStrategy(name);
  if (c === 1) return base;
  if (!(c > 0)) throw new UserError(`a sweep factor must be positive (got ${c})`);
  if (name === 'week') {
    return defineStrategy({ name, summary: base.summary, initial: () => ({}), step: (_s, _o, ctx) => clampInterval(c * WEEK, ctx.bounds) });
  }
  if (name === 'gold') {
    return defineStrategy({
      name,
      summary: base.summary,
      initial: () => ({}),
      step(_s, _o, ctx) {
        if (ctx.trueMeanIntervalMs === undefined) throw new UserError('strategy "gold" needs the true mean change interval (lab only)');
        return clampInterval(c * ctx.trueMeanIntervalMs, ctx.bounds);
      },
    });
  }
  const rate = RATE[name];
  if (rate) return rateStrategy({ ...rate, intervalFactor: rate.intervalFactor * c });
  if (name === 'nutch') return nutchStrategy({ ...NUTCH_DEFAULTS, incRate: NUTCH_DEFAULTS.incRate * c });
  return lengthenScaled(base as SteppedStrategy<{ intervalMs: number }>, c);
}

function lengthenScaled<S extends { intervalMs: number }>(s: SteppedStrategy<S>, c: number): SteppedStrategy<S> {
  return defineStrategy<S>({
    name: s.name,
    summary: s.summary,
    initial: s.initial,
    step(st, obs, ctx) {
      const before = st.intervalMs;
      const next = s.step(st, obs, ctx);
      if (obs.first || !(next > before)) return next;
      st.intervalMs = Math.round(clampInterval(before * (next / before) ** c, ctx.bounds));
      return st.intervalMs;
    },
  });
}

export interface SweepPoint {
  /** The factor c. */
  factor: number;
  downloads: number;
  captured: number;
  /** Micro (Σ captured / Σ changes, Σ captured / Σ downloads) and macro (mean per document). */
  recall: number;
  precision: number;
  recallMacro: number;
  precisionMacro: number;
}

export interface BandPoints {
  band: string;
  documents: number;
  changes: number;
  points: SweepPoint[];
}

export interface StrategySweep {
  strategy: string;
  parameter: string;
  points: SweepPoint[];
  /** The same points restricted to each change-rate band that has documents. */
  bands: BandPoints[];
  /** Per point, per document: what `bootstrap` resamples (not in the JSON output). */
  perDocument?: SimulationResult[];
}

function point(factor: number, m: Metrics): SweepPoint {
  return {
    factor,
    downloads: m.downloads,
    captured: m.captured,
    recall: m.recallMicro,
    precision: m.precisionMicro,
    recallMacro: m.recallMacro,
    precisionMacro: m.precisionMacro,
  };
}

export interface SweepOptions {
  bounds: StrategyBounds;
  startIntervalMs?: number;
  factors?: readonly number[];
  /** Keep each run's per-document counts (for bootstrap intervals). */
  keepRuns?: boolean;
  onProgress?: (text: string) => void;
}

/** Runs every factor of one strategy over `h` (already cut by its protocol). */
export function sweep(h: HistorySet, name: string, o: SweepOptions): StrategySweep {
  const groups = documentGroups(h);
  const points: SweepPoint[] = [];
  const bands = GROUPS.map((g) => ({ band: g.label, documents: 0, changes: 0, points: [] as SweepPoint[] }));
  const runs: SimulationResult[] = [];
  for (const c of o.factors ?? SWEEP_FACTORS) {
    o.onProgress?.(`sweeping ${name}: c = ${c}`);
    const sim = simulate(h, sweepStrategy(name, c), o.bounds, { startIntervalMs: o.startIntervalMs });
    if (o.keepRuns) runs.push(sim);
    const r = report(h, sim, groups);
    points.push(point(c, r.overall));
    r.groups.forEach((g, i) => {
      bands[i]!.documents = g.documents;
      bands[i]!.changes = g.changes;
      bands[i]!.points.push(point(c, g));
    });
  }
  return { strategy: name, parameter: sweepParameter(name), points, bands: bands.filter((b) => b.documents > 0), ...(o.keepRuns ? { perDocument: runs } : {}) };
}

/** The points no other point beats on both downloads (fewer) and captured (more), by downloads. */
export function paretoFront<P extends { downloads: number; captured: number }>(points: P[]): P[] {
  const sorted = [...points].sort((a, b) => a.downloads - b.downloads || b.captured - a.captured);
  const out: P[] = [];
  for (const p of sorted) if (!out.length || p.captured > out.at(-1)!.captured) out.push(p);
  return out;
}

/**
 * A strategy's curve at `downloads`: linear between the two nearest points of its own front (a
 * crawler can mix two settings over its URLs to get any budget between them); undefined outside.
 * Returns the interpolated point and the weight of the upper one, for the per-document version.
 */
export function atDownloads(points: SweepPoint[], downloads: number): { point: SweepPoint; lo: SweepPoint; hi: SweepPoint; w: number } | undefined {
  const f = paretoFront(points);
  if (!f.length || downloads < f[0]!.downloads || downloads > f.at(-1)!.downloads) return undefined;
  let i = 0;
  while (i < f.length - 1 && f[i + 1]!.downloads < downloads) i++;
  const lo = f[i]!;
  const hi = f[Math.min(i + 1, f.length - 1)]!;
  const w = hi.downloads === lo.downloads ? 0 : (downloads - lo.downloads) / (hi.downloads - lo.downloads);
  const mix = (a: number, b: number) => a + w * (b - a);
  const p: SweepPoint = {
    factor: mix(lo.factor, hi.factor),
    downloads,
    captured: mix(lo.captured, hi.captured),
    recall: mix(lo.recall, hi.recall),
    precision: downloads > 0 ? mix(lo.captured, hi.captured) / downloads : 0,
    recallMacro: mix(lo.recallMacro, hi.recallMacro),
    precisionMacro: mix(lo.precisionMacro, hi.precisionMacro),
  };
  return { point: p, lo, hi, w };
}
