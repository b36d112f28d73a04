import { clampInterval, INITIAL_INTERVAL_MS } from '../bounds.ts';
import { defineStrategy } from './define.ts';
import { adaptByRatio } from './factors.ts';

/**
 * state-1 / state-2 (seed 000): a Markov chain over change states (0 = unchanged, 1 = changed),
 * with a separate transition table per crawl interval. The table is kept as parallel arrays so the
 * state stays plain JSON and an update allocates nothing.
 */
export interface MarkovState {
  intervalMs: number;
  /** The last `order` change states, newest = bit 0. */
  context: number;
  /** How many change states were observed (a transition needs `order` previous ones). */
  n: number;
  /** The intervals at which transitions were counted… */
  levels: number[];
  /** …and for each, counts[(context << 1) | next]: 2^order contexts × 2 outcomes. */
  counts: number[][];
}

/** Intervals closer than this are the same level (rounding of ×1.5 / ÷1.5 chains). */
const SAME_LEVEL_MS = 1000;

function tableFor(s: MarkovState, intervalMs: number, order: number, create: boolean): number[] | undefined {
  for (let i = 0; i < s.levels.length; i++) {
    if (Math.abs(s.levels[i]! - intervalMs) < SAME_LEVEL_MS) return s.counts[i];
  }
  if (!create) return undefined;
  const table = new Array<number>(2 << order).fill(0);
  s.levels.push(intervalMs);
  s.counts.push(table);
  return table;
}

function markovStrategy(order: 1 | 2) {
  const contextMask = (1 << order) - 1;
  return defineStrategy<MarkovState>({
    name: `state-${order}`,
    summary: `seed 000: P(change next | last ${order} state${order > 1 ? 's' : ''}) from per-interval transition counts sets the interval factor`,
    initial: (ctx) => ({ intervalMs: clampInterval(INITIAL_INTERVAL_MS, ctx.bounds), context: 0, n: 0, levels: [], counts: [] }),
    step(s, obs, ctx) {
      if (obs.first) return s.intervalMs;
      const bit = obs.changed ? 1 : 0;
      // Count the transition observed at the interval that led to this download.
      if (s.n >= order) tableFor(s, s.intervalMs, order, true)![(s.context << 1) | bit]++;
      s.context = ((s.context << 1) | bit) & contextMask;
      s.n++;
      if (s.n < order) return s.intervalMs;
      const table = tableFor(s, s.intervalMs, order, false);
      if (!table) return s.intervalMs;
      const stay = table[s.context << 1]!;
      const change = table[(s.context << 1) | 1]!;
      // No knowledge of this context at this interval yet: keep the interval.
      if (stay + change === 0) return s.intervalMs;
      s.intervalMs = clampInterval(adaptByRatio(s.intervalMs, change / (stay + change)), ctx.bounds);
      return s.intervalMs;
    },
  });
}

export const state1 = markovStrategy(1);
export const state2 = markovStrategy(2);
