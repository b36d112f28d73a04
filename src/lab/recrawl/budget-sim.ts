import { DAY, type Observation, type StrategyBounds, type StrategyContext } from '../../schedule/types.ts';
import { allocate, type BudgetObjective } from '../../schedule/budget.ts';
import { poisson, type RateState } from '../../schedule/strategies/rate.ts';
import { changeCursors, changedBy, documentCount, type HistorySet } from './histories.ts';
import type { SimulationResult } from './simulate.ts';

export interface BudgetRunOptions {
  /** Downloads per day shared by every document alive at the time. */
  downloadsPerDay: number;
  bounds: StrategyBounds;
  /** How often the rates are re-allocated (default 30 days). */
  reallocateMs?: number;
  objective?: BudgetObjective;
}

/**
 * The budget strategy in the simulator: every `reallocateMs`, the documents alive share a budget of
 * downloads per day, allocated (schedule/budget.ts) from each one's change-rate estimate (the `poisson`
 * strategy's estimator, updated at every download); each document is then visited periodically at its rate.
 */
export function simulateBudget(h: HistorySet, o: BudgetRunOptions): SimulationResult {
  const n = documentCount(h);
  const R = o.reallocateMs ?? 30 * DAY;
  const ctx: StrategyContext = { bounds: o.bounds };
  const obs: Observation = { time: 0, changed: false, first: true };
  const states: RateState[] = new Array(n);
  const last = new Float64Array(n);
  const ptr = changeCursors(h);
  const started = new Uint8Array(n);
  const downloads = new Int32Array(n);
  const captured = new Int32Array(n);
  const alive = new Int32Array(n);
  const rates = new Float64Array(n);
  let t0 = Infinity;
  let t1 = -Infinity;
  for (let d = 0; d < n; d++) {
    t0 = Math.min(t0, h.created[d]!);
    t1 = Math.max(t1, h.end[d]!);
  }
  const priorRatePerDay = DAY / o.bounds.maxIntervalMs;
  for (let T = t0; T < t1; T += R) {
    let m = 0;
    for (let d = 0; d < n; d++) {
      if (h.created[d]! >= T + R || h.end[d]! <= T) continue;
      if (!started[d]) {
        started[d] = 1;
        states[d] = poisson.initial(ctx);
        obs.first = true;
        obs.changed = false;
        obs.time = h.created[d]!;
        poisson.step(states[d]!, obs, ctx);
        last[d] = h.created[d]!;
      }
      alive[m] = d;
      rates[m] = states[d]!.ratePerDay > 0 ? states[d]!.ratePerDay : priorRatePerDay;
      m++;
    }
    if (m === 0) continue;
    const alloc = allocate(rates.subarray(0, m), o.downloadsPerDay, {
      objective: o.objective,
      minRate: DAY / o.bounds.maxIntervalMs,
      maxRate: DAY / o.bounds.minIntervalMs,
    });
    obs.first = false;
    for (let k = 0; k < m; k++) {
      const d = alive[k]!;
      const interval = DAY / alloc.rates[k]!;
      const stop = Math.min(T + R, h.end[d]!);
      let t = Math.max(last[d]! + interval, T);
      for (; t < stop; t += interval) {
        obs.changed = changedBy(h, d, ptr, t);
        obs.time = t;
        downloads[d]++;
        if (obs.changed) captured[d]++;
        poisson.step(states[d]!, obs, ctx);
        last[d] = t;
      }
    }
  }
  return { strategy: `budget(${o.downloadsPerDay}/day)`, downloads, captured };
}
