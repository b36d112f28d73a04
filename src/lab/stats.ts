/**
 * The lab's statistics for comparative verdicts: a paired bootstrap over the units a claim is about
 * (documents, pages, requests) and Holm's step-down correction for a family of such comparisons.
 * A comparison's interval keeps its sorted bootstrap draws (not enumerable, so not in any JSON
 * output: a thousand numbers each) so that the correction can read it at the level Holm tests it.
 */

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  /** Two-sided bootstrap p-value of "no difference": 2 × the smaller share of draws on either side of 0. */
  p: number;
}

const DRAWS = Symbol('draws');
type WithDraws = Interval & { [DRAWS]?: Float64Array };

/** The percentile interval of sorted draws at `level` (0.95: the 2.5th and 97.5th percentiles). */
function percentile(draws: Float64Array, level: number): { low: number; high: number } {
  const b = draws.length;
  const tail = (1 - level) / 2;
  return { low: draws[Math.min(b - 1, Math.floor(tail * b))]!, high: draws[Math.max(0, Math.ceil((1 - tail) * b) - 1)]! };
}

/** The same comparison's interval at another level (1 − α/k for Holm); the 95 % one when its draws are gone. */
export function intervalAt(i: Interval, level: number): { low: number; high: number } {
  const draws = (i as WithDraws)[DRAWS];
  return draws ? percentile(draws, level) : { low: i.low, high: i.high };
}

/**
 * Draws of a statistic of column sums over units resampled with replacement: `columns` are per-unit
 * values (all of one length), `stat` maps their resampled sums to the statistic. Sorted, with the
 * statistic on the whole sample and its two-sided p-value of 0.
 */
export function bootstrapSums(columns: Float64Array[], stat: (sums: Float64Array) => number, samples: number, seed: number): Interval {
  const n = columns[0]!.length;
  const c = columns.length;
  let s = seed >>> 0 || 1;
  const rnd = () => {
    // xorshift32: reproducible intervals run to run.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const sums = new Float64Array(c);
  for (let j = 0; j < c; j++) for (let d = 0; d < n; d++) sums[j] += columns[j]![d]!;
  const estimate = stat(sums);
  const stats = new Float64Array(samples);
  for (let b = 0; b < samples; b++) {
    sums.fill(0);
    for (let k = 0; k < n; k++) {
      const d = Math.floor(rnd() * n);
      for (let j = 0; j < c; j++) sums[j] += columns[j]![d]!;
    }
    stats[b] = stat(sums);
  }
  stats.sort();
  let below = 0;
  let above = 0;
  for (const v of stats) {
    if (v <= 0) below++;
    if (v >= 0) above++;
  }
  const out: Interval = { estimate, ...percentile(stats, 0.95), p: Math.min(1, (2 * Math.min(below, above)) / samples) };
  Object.defineProperty(out, DRAWS, { value: stats, enumerable: false });
  return out;
}

/** A 95 % percentile interval of Σδ / Σweight over units resampled with replacement (paired: δ is one unit's difference). */
export function bootstrapRatio(delta: Float64Array, weight: Float64Array, samples = 1000, seed = 1): Interval {
  return bootstrapSums([delta, weight], (x) => (x[1]! > 0 ? x[0]! / x[1]! : 0), samples, seed);
}

/**
 * (Σ ours − the largest Σ peer) / Σ weight, resampled: the best peer is chosen again inside each
 * resample, so the interval carries the uncertainty of which peer is best, not only of the gap to
 * the one that was best on the whole sample.
 */
export function bootstrapBestOf(ours: Float64Array, peers: Float64Array[], weight: Float64Array, samples = 1000, seed = 1): Interval {
  return bootstrapSums(
    [ours, weight, ...peers],
    (x) => {
      let best = Number.NEGATIVE_INFINITY;
      for (let j = 2; j < x.length; j++) best = Math.max(best, x[j]!);
      return x[1]! > 0 ? (x[0]! - best) / x[1]! : 0;
    },
    samples,
    seed,
  );
}

/**
 * Holm's step-down correction: sorted by p, the k-th smallest (from 0) is rejected while every one
 * before it was and p ≤ α / (m − k). Adjusted p-values: max over j ≤ k of min(1, (m − j) p₍ⱼ₎).
 */
export function holm(p: readonly number[], alpha = 0.05): { adjusted: number[]; rejected: boolean[]; level: number[] } {
  const m = p.length;
  const order = p.map((_, i) => i).sort((a, b) => p[a]! - p[b]!);
  const adjusted = new Array<number>(m).fill(1);
  const rejected = new Array<boolean>(m).fill(false);
  // The α each hypothesis is tested at: α/(m − k) at its step, or the step where the procedure stopped.
  const level = new Array<number>(m).fill(alpha);
  let running = 0;
  let stopped = -1;
  order.forEach((i, k) => {
    running = Math.max(running, Math.min(1, (m - k) * p[i]!));
    adjusted[i] = running;
    if (stopped < 0 && p[i]! > alpha / (m - k)) stopped = k;
    rejected[i] = stopped < 0;
    level[i] = alpha / (m - (stopped < 0 ? k : stopped));
  });
  return { adjusted, rejected, level };
}

export interface Corrected extends Interval {
  /** Holm-adjusted p-value within the family. */
  pAdjusted: number;
  /** The interval at the level Holm tested this comparison at (1 − α/(m − k)). */
  corrected: { low: number; high: number; level: number };
}

/**
 * A family of comparisons, each with its bootstrap interval, corrected together: each gets its
 * Holm-adjusted p-value and its interval at the level Holm tests it at. With p-values from the same
 * draws, a corrected interval excludes 0 exactly when Holm rejects "no difference" for it.
 */
export function holmFamily(family: readonly Interval[], alpha = 0.05): Corrected[] {
  const h = holm(family.map((i) => i.p), alpha);
  return family.map((i, k) => {
    const level = 1 - h.level[k]!;
    return { ...i, pAdjusted: h.adjusted[k]!, corrected: { ...intervalAt(i, level), level } };
  });
}

/** Above zero: the corrected interval's low end is; below: its high end is; else a tie (not a win). */
export function direction(c: Corrected): 'above' | 'below' | 'tie' {
  return c.corrected.low > 0 ? 'above' : c.corrected.high < 0 ? 'below' : 'tie';
}
