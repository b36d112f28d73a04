import { clampInterval, startInterval } from '../bounds.ts';
import { defineStrategy, popcount, pushBit, type SteppedStrategy } from './define.ts';
import { adaptByRatio } from './factors.ts';

export interface WindowState {
  intervalMs: number;
  /** Change states observed (at any interval, or at the current one: `snapshots`), newest = bit 0. */
  bits: number;
  /** How many change states were observed. */
  n: number;
}

/** The last ten snapshots, or half of the available ones while fewer than twenty exist (at least one). */
export function windowSize(n: number): number {
  return Math.min(10, Math.max(1, n >> 1));
}

export interface WindowOptions {
  /**
   * `all` (default): the ratio over every snapshot, whatever interval took it (the seed's window
   * section says "the last ten snapshots or half of the available snapshots" with no mention of the
   * interval). `same-interval`: only snapshots taken at the current interval, reset when it changes,
   * as fix and dyn do ("this strategy is similar to the previous one"). Measured in docs/strategies.md.
   */
  snapshots?: 'all' | 'same-interval';
  name?: string;
}

export function windowStrategy(o: WindowOptions = {}): SteppedStrategy<WindowState> {
  const reset = o.snapshots === 'same-interval';
  return defineStrategy<WindowState>({
    name: o.name ?? 'window',
    summary: 'seed 000: ratio of changes in the last 10 (or half of the) snapshots sets the interval factor (1.5/2/3)',
    initial: (ctx) => ({ intervalMs: startInterval(ctx), bits: 0, n: 0 }),
    step(s, obs, ctx) {
      if (obs.first) return s.intervalMs;
      s.bits = pushBit(s.bits, obs.changed);
      s.n++;
      const w = windowSize(s.n);
      const ratio = popcount(s.bits & ((1 << w) - 1)) / w;
      const next = clampInterval(adaptByRatio(s.intervalMs, ratio), ctx.bounds);
      if (reset && next !== s.intervalMs) {
        s.bits = 0;
        s.n = 0;
      }
      s.intervalMs = next;
      return s.intervalMs;
    },
  });
}

export const window = windowStrategy();
