import { DAY, type StrategyBounds } from '../../schedule/types.ts';
import { rateStrategy, type RateOptions } from '../../schedule/strategies/rate.ts';
import type { SteppedStrategy } from '../../schedule/strategies/define.ts';
import type { HistorySet } from './histories.ts';
import { applyProtocol, PROTOCOLS, type Protocol } from './protocol.ts';
import { simulate, type SimulationResult } from './simulate.ts';
import { report } from './metrics.ts';
import { atDownloads, SWEEP_FACTORS, sweep, type StrategySweep, type SweepPoint } from './sweep.ts';
import { bootstrapBestOf, bootstrapRatio, type Interval } from '../stats.ts';

/** The seed's strategies a live crawl can run (gold needs the future; it is compared separately). */
export const SEED_LIVE = ['fix', 'dyn', 'window', 'state-1', 'state-2', 'week'] as const;

/** One setting of datamonitor's rate family (estimator, poisson and quiet are three points of it). */
export interface RateConfig {
  decay: number;
  /** Gamma prior: pseudo-changes over pseudo-exposure days (0/0: the plain MLE, as `estimator`). */
  priorChanges: number;
  priorDays: number;
  /** 'max': start at the maximum interval (as `quiet`); else days. */
  start: 'max' | number;
}

/** The grid searched: decay × prior × start (the interval factor is the budget parameter, swept). */
export function rateGrid(): RateConfig[] {
  const out: RateConfig[] = [];
  for (const decay of [0.85, 1])
    for (const [priorChanges, priorDays] of [[0, 0], [0.5, 90], [0.25, 90]] as const)
      for (const start of [7, 'max'] as const) out.push({ decay, priorChanges, priorDays, start });
  return out;
}

export function configName(c: RateConfig): string {
  return `rate(decay ${c.decay}, prior ${c.priorChanges}/${c.priorDays}d, start ${c.start === 'max' ? 'max' : `${c.start}d`})`;
}

function configStrategy(c: RateConfig, factor: number): SteppedStrategy<unknown> {
  const o: RateOptions = {
    name: configName(c),
    summary: 'tuning candidate',
    capacity: 32,
    decay: c.decay,
    priorChanges: c.priorChanges,
    priorExposureMs: c.priorDays * DAY,
    intervalFactor: factor,
    regularClosedForm: c.priorChanges === 0,
    initialIntervalMs: c.start === 'max' ? Number.POSITIVE_INFINITY : c.start * DAY,
  };
  return rateStrategy(o) as SteppedStrategy<unknown>;
}

/** A curve with each point's per-document counts, for interpolation and the bootstrap. */
interface Curve {
  name: string;
  points: SweepPoint[];
  runs: SimulationResult[];
}

function configCurve(h: HistorySet, c: RateConfig, bounds: StrategyBounds, factors: readonly number[]): Curve {
  const points: SweepPoint[] = [];
  const runs: SimulationResult[] = [];
  for (const f of factors) {
    const sim = simulate(h, configStrategy(c, f), bounds);
    const m = report(h, sim).overall;
    runs.push(sim);
    points.push({ factor: f, downloads: m.downloads, captured: m.captured, recall: m.recallMicro, precision: m.precisionMicro, recallMacro: m.recallMacro, precisionMacro: m.precisionMacro });
  }
  return { name: configName(c), points, runs };
}

function fromSweep(s: StrategySweep): Curve {
  return { name: s.strategy, points: s.points, runs: s.perDocument! };
}

/** Per-document captured counts of a curve at `downloads` (the two neighbouring runs mixed), or undefined outside it. */
function capturedAt(c: Curve, downloads: number): Float64Array | undefined {
  const at = atDownloads(c.points, downloads);
  if (!at) return undefined;
  const lo = c.runs[c.points.indexOf(at.lo)]!.captured;
  const hi = c.runs[c.points.indexOf(at.hi)]!.captured;
  const out = new Float64Array(lo.length);
  for (let d = 0; d < lo.length; d++) out[d] = lo[d]! + at.w * (hi[d]! - lo[d]!);
  return out;
}

export { bootstrapRatio } from '../stats.ts';

export interface Gap {
  /** The download budget (a multiple of gold's downloads at its own setting). */
  downloads: number;
  multiple: number;
  /** The best live seed strategy at this budget (highest micro recall on its own curve). */
  seedBest: string;
  /**
   * datamonitor's micro recall minus the best seed strategy's, with a 95 % bootstrap interval over
   * documents in which the best seed strategy is chosen again in each resample; null where a curve does not reach.
   */
  vsSeedBest: Interval | null;
  vsGold: Interval | null;
  /** Why vsSeedBest is null: which curve does not reach this budget over the factors swept. */
  unreached?: string;
}

/** What one file offers: its seed curves and each grid config's curve, computed once for every fold. */
interface FileCurves {
  file: string;
  h: HistorySet;
  changes: Float64Array;
  seed: Curve[];
  gold: Curve;
  configs: Curve[];
  goldDownloads: number;
}

export interface TuningOptions {
  protocol?: Protocol;
  factors?: readonly number[];
  multiples?: readonly number[];
  grid?: RateConfig[];
  samples?: number;
  onProgress?: (text: string) => void;
}

/**
 * The same factors as `lab recrawl --budget-sweep`: every curve, seed strategies' and datamonitor's,
 * gets the same range, wide enough that on every shared file and the ChangeLog corpus some seed
 * strategy reaches 1.25, 1.5 and 2 × gold's downloads under both protocols (0.35–2.8 left python-peps'
 * 1.25 × without a seed comparison). A budget still unreached is named in the claim, not dropped.
 */
export const TUNING_FACTORS: readonly number[] = SWEEP_FACTORS;
export const TUNING_MULTIPLES: readonly number[] = [1.25, 1.5, 2];

function prepare(file: string, all: HistorySet, o: TuningOptions): FileCurves {
  const protocol = o.protocol ?? PROTOCOLS.lab;
  const h = applyProtocol(all, protocol);
  const factors = o.factors ?? TUNING_FACTORS;
  const bounds = protocol.bounds;
  o.onProgress?.(`${file}: seed strategies`);
  const seed = SEED_LIVE.map((n) => fromSweep(sweep(h, n, { bounds, factors, keepRuns: true })));
  const gold = fromSweep(sweep(h, 'gold', { bounds, factors, keepRuns: true }));
  const configs = (o.grid ?? rateGrid()).map((c) => {
    o.onProgress?.(`${file}: ${configName(c)}`);
    return configCurve(h, c, bounds, factors);
  });
  const changes = new Float64Array(h.ids.length);
  for (let d = 0; d < changes.length; d++) changes[d] = h.changeStart[d + 1]! - h.changeStart[d]!;
  return { file, h, changes, seed, gold, configs, goldDownloads: gold.points.find((p) => p.factor === 1)!.downloads };
}

/** Micro recall gap of a config to the best seed curve at a budget (no interval): the tuning objective's term. */
function gapAt(f: FileCurves, ci: number, downloads: number): number | undefined {
  const dm = atDownloads(f.configs[ci]!.points, downloads);
  if (!dm) return undefined;
  let best = -Infinity;
  for (const s of f.seed) {
    const at = atDownloads(s.points, downloads);
    if (at && at.point.recall > best) best = at.point.recall;
  }
  return best === -Infinity ? undefined : dm.point.recall - best;
}

function gaps(f: FileCurves, ci: number, multiples: readonly number[], samples: number): Gap[] {
  return multiples.map((multiple) => {
    const downloads = multiple * f.goldDownloads;
    let seedBest = '';
    let best = -Infinity;
    for (const s of f.seed) {
      const at = atDownloads(s.points, downloads);
      if (at && at.point.recall > best) {
        best = at.point.recall;
        seedBest = s.name;
      }
    }
    const dm = capturedAt(f.configs[ci]!, downloads);
    const range = (c: Curve) => `${Math.min(...c.points.map((p) => p.downloads))}–${Math.max(...c.points.map((p) => p.downloads))}`;
    const unreached = !seedBest
      ? `no seed strategy reaches ${Math.round(downloads)} downloads (their ranges: ${f.seed.map((s) => `${s.name} ${range(s)}`).join(', ')})`
      : !dm
        ? `datamonitor's setting does not reach ${Math.round(downloads)} downloads (its range ${range(f.configs[ci]!)})`
        : undefined;
    const diff = (peer: Curve | undefined) => {
      const p = peer && capturedAt(peer, downloads);
      if (!dm || !p) return null;
      const delta = new Float64Array(dm.length);
      for (let d = 0; d < dm.length; d++) delta[d] = dm[d]! - p[d]!;
      return bootstrapRatio(delta, f.changes, samples);
    };
    // Every seed strategy that reaches the budget, the best of them picked again in each resample.
    const peers = f.seed.map((s) => capturedAt(s, downloads)).filter((c): c is Float64Array => c !== undefined);
    const vsSeedBest = dm && peers.length ? bootstrapBestOf(dm, peers, f.changes, samples) : null;
    return { downloads: Math.round(downloads), multiple, seedBest, vsSeedBest, vsGold: diff(f.gold), ...(unreached ? { unreached } : {}) };
  });
}

export interface FoldResult {
  heldOut: string;
  tunedOn: string[];
  config: RateConfig;
  configName: string;
  /** Mean gap (recall points / 100) to the best seed strategy over the tuning files and budgets. */
  tuningObjective: number;
  heldOutGaps: Gap[];
}

/**
 * Leave-one-file-out tuning of datamonitor's rate family: for each file, the grid setting with the
 * best mean micro-recall gap to the best live seed strategy at equal downloads (budgets: multiples of
 * gold's downloads) on the other files is chosen, then measured on the held-out file with 95 %
 * bootstrap intervals over its documents. Its interval factor is the budget parameter: swept, not tuned.
 */
export function leaveOneFileOut(files: Array<{ name: string; h: HistorySet }>, o: TuningOptions = {}): FoldResult[] {
  const multiples = o.multiples ?? TUNING_MULTIPLES;
  const grid = o.grid ?? rateGrid();
  const prepared = files.map((f) => prepare(f.name, f.h, { ...o, grid }));
  // Per file and config: the mean gap over the budgets every curve reaches (missing budgets skipped).
  const objective = prepared.map((f) =>
    grid.map((_, ci) => {
      const g = multiples.map((m) => gapAt(f, ci, m * f.goldDownloads)).filter((x): x is number => x !== undefined);
      return g.length ? g.reduce((a, b) => a + b, 0) / g.length : Number.NEGATIVE_INFINITY;
    }),
  );
  return prepared.map((held, hi) => {
    let bestCi = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    grid.forEach((_, ci) => {
      const others = prepared.map((_, fi) => fi).filter((fi) => fi !== hi);
      const score = others.reduce((a, fi) => a + objective[fi]![ci]!, 0) / Math.max(1, others.length);
      if (score > bestScore) {
        bestScore = score;
        bestCi = ci;
      }
    });
    o.onProgress?.(`held out ${held.file}: ${configName(grid[bestCi]!)}`);
    return {
      heldOut: held.file,
      tunedOn: prepared.filter((_, fi) => fi !== hi).map((f) => f.file),
      config: grid[bestCi]!,
      configName: configName(grid[bestCi]!),
      tuningObjective: bestScore,
      heldOutGaps: gaps(held, bestCi, multiples, o.samples ?? 1000),
    };
  });
}

const pts = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
const ci = (g: { estimate: number; low: number; high: number } | null) => (g ? `${pts(g.estimate)} [${pts(g.low)}, ${pts(g.high)}]` : '–');

export function formatFolds(folds: FoldResult[]): string {
  const out = ['| held-out file | setting chosen on the other files | budget (× gold) | downloads | best live seed strategy there | recall − it, points [95 % CI] | recall − gold [95 % CI] |', '| --- | --- | ---: | ---: | --- | ---: | ---: |'];
  for (const f of folds) for (const g of f.heldOutGaps) out.push(`| ${f.heldOut} | ${f.configName} | ${g.multiple} | ${g.downloads} | ${g.seedBest || '–'} | ${g.unreached ? `not compared: ${g.unreached}` : ci(g.vsSeedBest)} | ${ci(g.vsGold)} |`);
  return out.join('\n');
}
