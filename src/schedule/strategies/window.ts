import { clampInterval, INITIAL_INTERVAL_MS } from '../bounds.ts';
import { defineStrategy, popcount, pushBit } from './define.ts';
import { adaptByRatio } from './factors.ts';

export interface WindowState {
  intervalMs: number;
  /** Every change state observed (at any interval), newest = bit 0. */
  bits: number;
  /** How many change states were observed in total. */
  n: number;
}

/** The last ten snapshots, or half of the available ones while fewer than twenty exist (at least one). */
export function windowSize(n: number): number {
  return Math.min(10, Math.max(1, n >> 1));
}

export const window = defineStrategy<WindowState>({
  name: 'window',
  summary: 'seed 000: ratio of changes in the last 10 (or half of the) snapshots sets the interval factor (1.5/2/3)',
  initial: (ctx) => ({ intervalMs: clampInterval(INITIAL_INTERVAL_MS, ctx.bounds), bits: 0, n: 0 }),
  step(s, obs, ctx) {
    if (obs.first) return s.intervalMs;
    s.bits = pushBit(s.bits, obs.changed);
    s.n++;
    const w = windowSize(s.n);
    const ratio = popcount(s.bits & ((1 << w) - 1)) / w;
    s.intervalMs = clampInterval(adaptByRatio(s.intervalMs, ratio), ctx.bounds);
    return s.intervalMs;
  },
});
