import { MONTH, WEEK, type Observation, type StrategyContext } from '../types.ts';
import { clampInterval, startInterval } from '../bounds.ts';
import { defineStrategy, pushBit } from './define.ts';
import { lengthenSnapshot, shortenSnapshot } from './factors.ts';

/** fix and dyn: the last k change states observed at the current interval. */
export interface SnapshotState {
  intervalMs: number;
  /** Change states at the current interval, newest = bit 0. */
  bits: number;
  /** How many observations were made at the current interval (reset when it changes). */
  n: number;
}

/** dyn: 1 snapshot above 2 months, 2 above 1 month, 3 above 1 week, else 4. */
export function dynSnapshots(intervalMs: number): number {
  if (intervalMs > 2 * MONTH) return 1;
  if (intervalMs > MONTH) return 2;
  if (intervalMs > WEEK) return 3;
  return 4;
}

function snapshotStrategy(name: string, summary: string, snapshots: (intervalMs: number) => number) {
  return defineStrategy<SnapshotState>({
    name,
    summary,
    initial: (ctx) => ({ intervalMs: startInterval(ctx), bits: 0, n: 0 }),
    step(s: SnapshotState, obs: Observation, ctx: StrategyContext): number {
      if (obs.first) return s.intervalMs;
      s.bits = pushBit(s.bits, obs.changed);
      s.n++;
      const k = snapshots(s.intervalMs);
      if (s.n < k) return s.intervalMs;
      const mask = (1 << k) - 1;
      const last = s.bits & mask;
      // Changed in all k snapshots → crawl more often; in none → less often; mixed → keep.
      const next = last === mask ? shortenSnapshot(s.intervalMs) : last === 0 ? lengthenSnapshot(s.intervalMs) : s.intervalMs;
      const clamped = clampInterval(next, ctx.bounds);
      if (clamped !== s.intervalMs) {
        s.intervalMs = clamped;
        s.bits = 0;
        s.n = 0;
      }
      return s.intervalMs;
    },
  });
}

export const fix = snapshotStrategy('fix', 'seed 000: adapt after the last 2 snapshots at the same interval all changed / none changed', () => 2);
export const dyn = snapshotStrategy('dyn', 'seed 000: like fix, with 1–4 snapshots depending on the interval (fewer when long)', dynSnapshots);
