import { clampInterval, INITIAL_INTERVAL_MS, startInterval } from '../bounds.ts';
import { isRegular, mleRate, regularRate, type ObservationWindow } from '../estimate.ts';
import { defineStrategy, type SteppedStrategy } from './define.ts';

/** The last observations as a ring (plain arrays: the state is JSON). */
export interface RateState {
  intervalMs: number;
  /** Interval that led to each observation, ring of `capacity`. */
  t: number[];
  /** 1 if that observation saw a change. */
  c: number[];
  /** Observations so far (the ring position is n % capacity). */
  n: number;
  /** The last estimate, changes per day (for `status` displays and the budget allocator). */
  ratePerDay: number;
}

export interface RateOptions {
  name: string;
  summary: string;
  /** How many recent observations to keep. */
  capacity: number;
  /** Weight of an observation k downloads old: decay^k. */
  decay: number;
  /** Gamma prior: pseudo-changes (shape − 1) and pseudo-exposure (ms); 0/0 is the plain MLE. */
  priorChanges: number;
  priorExposureMs: number;
  /** Next interval = intervalFactor / λ̂. 1 is "once per expected change"; see docs/strategies.md. */
  intervalFactor: number;
  /** Use Cho & Garcia-Molina's closed form when all kept intervals are equal (no prior only). */
  regularClosedForm: boolean;
  /** First interval, before any observation (default INITIAL_INTERVAL_MS). */
  initialIntervalMs?: number;
}

const DAY_MS = 86_400_000;
/** The longest observation window a rate strategy may keep. */
export const MAX_WINDOW = 256;
// Scratch buffers for the ordered, weighted window: reused across calls (no allocation per update).
const scratchT = new Float64Array(MAX_WINDOW);
const scratchC = new Float64Array(MAX_WINDOW);
const scratchW = new Float64Array(MAX_WINDOW);
const scratch: ObservationWindow = { intervals: scratchT, changed: scratchC, weights: scratchW, count: 0 };

/** A URL that has not been downloaded yet: an empty ring of `capacity` observations. */
export function emptyRateState(capacity: number, intervalMs: number): RateState {
  if (capacity > MAX_WINDOW) throw new Error(`rate strategy window ${capacity} > ${MAX_WINDOW}`);
  return { intervalMs, t: new Array<number>(capacity).fill(0), c: new Array<number>(capacity).fill(0), n: 0, ratePerDay: 0 };
}

/**
 * Records one observation (the interval just waited, whether it saw a change) in the URL's ring
 * and returns the window newest first, weighted by `decay` per step of age (shared scratch: use it
 * before the next call). `n` and `x` are the weighted observation and change counts.
 */
export function observe(s: RateState, changed: boolean, capacity: number, decay: number): { window: ObservationWindow; n: number; x: number } {
  const slot = s.n % capacity;
  s.t[slot] = s.intervalMs;
  s.c[slot] = changed ? 1 : 0;
  s.n++;
  const count = Math.min(s.n, capacity);
  let weight = 1;
  let n = 0;
  let x = 0;
  for (let age = 0; age < count; age++) {
    const i = (s.n - 1 - age) % capacity;
    scratchT[age] = s.t[i]!;
    scratchC[age] = s.c[i]!;
    scratchW[age] = weight;
    n += weight;
    x += weight * s.c[i]!;
    weight *= decay;
  }
  scratch.count = count;
  return { window: scratch, n, x };
}

export function rateStrategy(o: RateOptions): SteppedStrategy<RateState> {
  return defineStrategy<RateState>({
    name: o.name,
    summary: o.summary,
    initial: (ctx) => emptyRateState(o.capacity, startInterval(ctx, o.initialIntervalMs ?? INITIAL_INTERVAL_MS)),
    step(s, obs, ctx) {
      if (obs.first) return s.intervalMs;
      const { window, n: nw, x: xw } = observe(s, obs.changed, o.capacity, o.decay);
      const floor = 1 / ctx.bounds.maxIntervalMs;
      const cap = 1 / ctx.bounds.minIntervalMs;
      let lambda =
        o.regularClosedForm && isRegular(window)
          ? regularRate(nw, xw, window.intervals[0]!)
          : mleRate(window, floor, cap, o.priorChanges, o.priorExposureMs);
      lambda = lambda < floor ? floor : Math.min(lambda, cap);
      s.ratePerDay = lambda * DAY_MS;
      s.intervalMs = Math.round(clampInterval(o.intervalFactor / lambda, ctx.bounds));
      return s.intervalMs;
    },
  });
}

/** Cho & Garcia-Molina's estimator: the closed form on regular intervals, the MLE otherwise; interval = 1/λ̂. */
export const ESTIMATOR_OPTIONS: RateOptions = {
  name: 'estimator',
  summary: "Cho & Garcia-Molina's change-rate estimate (closed form / MLE, last 32 observations, decay 0.9); interval = 1/λ",
  capacity: 32,
  decay: 0.9,
  priorChanges: 0,
  priorExposureMs: 0,
  intervalFactor: 1,
  regularClosedForm: true,
};
export const estimator = rateStrategy(ESTIMATOR_OPTIONS);

/**
 * poisson: the same estimate with a Gamma prior (0.5 pseudo-change per 90 days, i.e. a prior mean
 * interval of 6 months: most documents change rarely) so one observation never jumps to a bound,
 * and interval = 1.2/λ̂. For a Poisson page visited every I, with x = λI, micro F1 = 2C/(changes + downloads)
 * is maximised where e^{−x}(1 + x) = 1 − F1/2 (Dinkelbach), x ≈ 0.8–1.15 for F1 between 0.4 and 0.64;
 * the grid over the shared histories (docs/strategies.md) put the factor at 1.2 because real changes
 * come in bursts that a longer interval absorbs at little loss.
 */
export const POISSON_OPTIONS: RateOptions = {
  name: 'poisson',
  summary: 'Poisson rate MAP estimate (Gamma prior, last 32 observations, decay 0.85); interval = 1.2/λ (F1-optimal factor)',
  capacity: 32,
  decay: 0.85,
  priorChanges: 0.5,
  priorExposureMs: 90 * DAY_MS,
  intervalFactor: 1.2,
  regularClosedForm: false,
};
export const poisson = rateStrategy(POISSON_OPTIONS);
