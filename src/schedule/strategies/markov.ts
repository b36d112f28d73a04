import { clampInterval, startInterval } from '../bounds.ts';
import { defineStrategy, type SteppedStrategy } from './define.ts';
import { adaptByRatio } from './factors.ts';

/**
 * state-1 / state-2 (seed 000): a Markov chain over change states (0 = unchanged, 1 = changed),
 * with a separate transition table per crawl interval. The table is kept as parallel arrays so the
 * state stays plain JSON and an update allocates nothing.
 */
export interface MarkovState {
  intervalMs: number;
  /** The last `order` change states, newest = bit 0 (all intervals mixed: the `mixed` reading). */
  context: number;
  /** How many change states were observed (a transition needs `order` previous ones). */
  n: number;
  /** The intervals at which transitions were counted… */
  levels: number[];
  /** …and for each, counts[(context << 1) | next]: 2^order contexts × 2 outcomes. */
  counts: number[][];
  /** Per level (the seed's reading): the last `order` states observed at that interval, and how many. */
  contexts?: number[];
  seen?: number[];
}

/** Intervals closer than this are the same level (rounding of ×1.5 / ÷1.5 chains). */
const SAME_LEVEL_MS = 1000;

function levelOf(s: MarkovState, intervalMs: number, order: number, create: boolean): number {
  for (let i = 0; i < s.levels.length; i++) {
    if (Math.abs(s.levels[i]! - intervalMs) < SAME_LEVEL_MS) return i;
  }
  if (!create) return -1;
  s.levels.push(intervalMs);
  s.counts.push(new Array<number>(2 << order).fill(0));
  s.contexts?.push(0);
  s.seen?.push(0);
  return s.levels.length - 1;
}

export interface MarkovOptions {
  /**
   * `per-interval` (default, the seed's "we separately maintain the knowledge about the sequence of
   * observed states for each crawl frequency"): each interval keeps its own sequence of states, so a
   * transition is counted only between two states observed at the same interval. `mixed` (the lab's
   * reading before #15): one sequence over all intervals, each transition filed under the interval
   * of its newer state, even when the older state was observed at another interval.
   */
  sequences?: 'per-interval' | 'mixed';
  name?: string;
}

export function markovStrategy(order: 1 | 2, o: MarkovOptions = {}): SteppedStrategy<MarkovState> {
  const contextMask = (1 << order) - 1;
  const perInterval = (o.sequences ?? 'per-interval') === 'per-interval';
  return defineStrategy<MarkovState>({
    name: o.name ?? `state-${order}`,
    summary: `seed 000: P(change next | last ${order} state${order > 1 ? 's' : ''}) from per-interval transition counts sets the interval factor`,
    initial: (ctx) => ({ intervalMs: startInterval(ctx), context: 0, n: 0, levels: [], counts: [], ...(perInterval ? { contexts: [], seen: [] } : {}) }),
    step(s, obs, ctx) {
      if (obs.first) return s.intervalMs;
      const bit = obs.changed ? 1 : 0;
      let context: number;
      let table: number[] | undefined;
      if (perInterval) {
        // A state stored before per-interval sequences existed: start the sequences afresh.
        if (!s.contexts || !s.seen || s.contexts.length !== s.levels.length) {
          s.contexts = s.levels.map(() => 0);
          s.seen = s.levels.map(() => 0);
        }
        const i = levelOf(s, s.intervalMs, order, true);
        table = s.counts[i]!;
        if (s.seen[i]! >= order) table[(s.contexts[i]! << 1) | bit]++;
        s.contexts[i] = ((s.contexts[i]! << 1) | bit) & contextMask;
        s.seen[i]!++;
        if (s.seen[i]! < order) return s.intervalMs;
        context = s.contexts[i]!;
      } else {
        // Count the transition observed at the interval that led to this download.
        if (s.n >= order) s.counts[levelOf(s, s.intervalMs, order, true)]![(s.context << 1) | bit]++;
        s.context = ((s.context << 1) | bit) & contextMask;
        s.n++;
        if (s.n < order) return s.intervalMs;
        const i = levelOf(s, s.intervalMs, order, false);
        if (i < 0) return s.intervalMs;
        table = s.counts[i]!;
        context = s.context;
      }
      const stay = table[context << 1]!;
      const change = table[(context << 1) | 1]!;
      // No knowledge of this context at this interval yet: keep the interval.
      if (stay + change === 0) return s.intervalMs;
      s.intervalMs = clampInterval(adaptByRatio(s.intervalMs, change / (stay + change)), ctx.bounds);
      return s.intervalMs;
    },
  });
}

export const state1 = markovStrategy(1);
export const state2 = markovStrategy(2);
