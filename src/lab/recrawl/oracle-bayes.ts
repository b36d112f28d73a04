import type { StrategyBounds } from '../../schedule/types.ts';
import { defineStrategy, type SteppedStrategy } from '../../schedule/strategies/define.ts';
import { documentCount, meanChangeIntervalMs, type HistorySet } from './histories.ts';

const YEAR = 365 * 86_400_000;

/** Change rates (per ms) a posterior is kept over: `size` points, evenly spaced in log from `min` to `max`. */
export function rateGrid(min = 1 / (30 * YEAR), max = 2 / 86_400_000, size = 48): Float64Array {
  const g = new Float64Array(size);
  for (let k = 0; k < size; k++) g[k] = Math.exp(Math.log(min) + (k * (Math.log(max) - Math.log(min))) / (size - 1));
  return g;
}

/**
 * The log prior that an oracle would give: the histogram of the documents' true mean change rates
 * (what `gold` is told, one document at a time), each rate put on its nearest grid point, with half a
 * pseudo-document everywhere. A document without changes counts as one change in three lifetimes.
 */
export function oracleLogPrior(h: HistorySet, rates: Float64Array): Float64Array {
  const k = rates.length;
  const counts = new Float64Array(k).fill(0.5);
  const lo = Math.log(rates[0]!);
  const step = (Math.log(rates[k - 1]!) - lo) / (k - 1);
  for (let d = 0; d < documentCount(h); d++) {
    const mean = meanChangeIntervalMs(h, d);
    const rate = mean === Infinity ? 1 / (3 * (h.end[d]! - h.created[d]!)) : 1 / mean;
    const at = Math.min(k - 1, Math.max(0, Math.round((Math.log(rate) - lo) / step)));
    counts[at]!++;
  }
  const total = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => Math.log(c / total));
}

export interface BayesOptions {
  rates: Float64Array;
  logPrior: Float64Array;
  /** τ: a download is worth its cost when it captures a change with at least this probability (F1/2 at the optimum). */
  threshold: number;
  /** Weight of an observation k downloads old: decay^k (1 = the rate never changes). */
  decay: number;
  bounds: StrategyBounds;
  /** Candidate intervals, evenly spaced in log between the bounds. */
  intervals?: number;
}

interface BayesState {
  /** Log-likelihood of the URL's observations at each grid rate. */
  ll: number[];
  intervalMs: number;
}

/**
 * The Bayes-optimal interval for a Poisson page whose rate is unknown: a posterior over a grid of
 * rates (prior × the likelihood of every download so far: e^{−λt} unchanged, 1 − e^{−λt} changed),
 * and the interval I that maximises (P(change within I) − τ)/I, the rate of net gain of a renewal
 * schedule (Dinkelbach), or the maximum when no interval gains. With the oracle's own histogram of
 * true rates as its prior (`oracleLogPrior`) this is what a crawler could do at best from each URL's
 * own history if it knew how rates are spread: the bench (bench/recrawl-bound.bench.ts) measures it
 * against `gold`. A lab strategy, not a live one: its prior comes from the whole history.
 */
export function bayesStrategy(o: BayesOptions): SteppedStrategy<BayesState> {
  const k = o.rates.length;
  const m = o.intervals ?? 80;
  const { minIntervalMs: min, maxIntervalMs: max } = o.bounds;
  const iv = new Float64Array(m);
  for (let i = 0; i < m; i++) iv[i] = Math.exp(Math.log(min) + (i * (Math.log(max) - Math.log(min))) / Math.max(1, m - 1));
  iv[0] = min; // exactly the bounds, not their exp(log(·)) round trip
  iv[m - 1] = max;
  const pChange = new Float64Array(k * m);
  for (let r = 0; r < k; r++) for (let i = 0; i < m; i++) pChange[r * m + i] = -Math.expm1(-o.rates[r]! * iv[i]!);
  const w = new Float64Array(k);

  const choose = (ll: number[]): number => {
    let top = -Infinity;
    for (let r = 0; r < k; r++) top = Math.max(top, o.logPrior[r]! + ll[r]!);
    let z = 0;
    for (let r = 0; r < k; r++) z += w[r] = Math.exp(o.logPrior[r]! + ll[r]! - top);
    let best = 0;
    let at = max;
    for (let i = 0; i < m; i++) {
      let p = 0;
      for (let r = 0; r < k; r++) p += w[r]! * pChange[r * m + i]!;
      const gain = (p / z - o.threshold) / iv[i]!;
      if (gain > best) {
        best = gain;
        at = iv[i]!;
      }
    }
    return at;
  };

  return defineStrategy<BayesState>({
    name: 'bayes',
    summary: 'lab bound: grid posterior over the rate, interval maximising (P(change) − τ)/I',
    initial: () => ({ ll: new Array<number>(k).fill(0), intervalMs: max }),
    step(s, obs) {
      if (!obs.first) {
        const t = s.intervalMs;
        for (let r = 0; r < k; r++) {
          const lt = obs.changed ? Math.log(-Math.expm1(-o.rates[r]! * t)) : -o.rates[r]! * t;
          s.ll[r] = o.decay * s.ll[r]! + lt;
        }
      }
      s.intervalMs = choose(s.ll);
      return s.intervalMs;
    },
  });
}
