import type { Observation, Strategy, StrategyContext } from '../types.ts';

/**
 * A strategy whose update mutates its state in place. The simulator calls `step` with one reused
 * state per document (no allocation per download); the live scheduler calls the pure `next`, which
 * copies the state first. One function (`step`) serves both, so the lab measures the code that runs live.
 */
export interface SteppedStrategy<S = unknown> extends Strategy<S> {
  step(state: S, obs: Observation, ctx: StrategyContext): number;
  /** A short description for listings and docs. */
  readonly summary: string;
}

export function defineStrategy<S>(spec: {
  name: string;
  summary: string;
  initial: (ctx: StrategyContext) => S;
  step: (state: S, obs: Observation, ctx: StrategyContext) => number;
  follows?: (ctx: StrategyContext, time: number) => boolean;
  pollIntervalMs?: (ctx: StrategyContext, baseMs: number) => number;
}): SteppedStrategy<S> {
  const { name, summary, initial, step, follows, pollIntervalMs } = spec;
  return {
    name,
    summary,
    initial,
    step,
    ...(follows ? { follows } : {}),
    ...(pollIntervalMs ? { pollIntervalMs } : {}),
    next(state, obs, ctx) {
      // The state may come straight from the store (JSON); a missing or foreign state restarts the strategy.
      const copy: S = state && typeof state === 'object' ? (JSON.parse(JSON.stringify(state)) as S) : initial(ctx);
      const intervalMs = step(copy, obs, ctx);
      return { state: copy, intervalMs };
    },
  };
}

/** Keeps the last 30 change states as bits (newest = bit 0): JSON-friendly and allocation-free. */
export function pushBit(bits: number, changed: boolean): number {
  return ((bits << 1) | (changed ? 1 : 0)) & 0x3fffffff;
}

export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
