import { MONTH } from '../types.ts';

/**
 * Seed 000's factors. The seed speaks of "frequency" but means the crawl interval; "increase the
 * frequency" = shorten the interval. Intervals are rounded to whole ms so that levels revisited
 * after an increase and a decrease compare equal (state-* keys its knowledge by interval).
 */

/** fix/dyn: shorten by 1.5 if the interval is above one month, else by 2. */
export function shortenSnapshot(intervalMs: number): number {
  return Math.round(intervalMs > MONTH ? intervalMs / 1.5 : intervalMs / 2);
}

/** fix/dyn: lengthen by 1.5 if the interval is below one month, else by 2. */
export function lengthenSnapshot(intervalMs: number): number {
  return Math.round(intervalMs < MONTH ? intervalMs * 1.5 : intervalMs * 2);
}

/**
 * window and state-*: the higher the ratio (or probability) of change, the more the interval shrinks:
 * r > 0.9 → /3, > 0.75 → /2, > 0.6 → /1.5; r < 0.1 → ×3, < 0.25 → ×2, < 0.4 → ×1.5; else unchanged.
 */
export function adaptByRatio(intervalMs: number, r: number): number {
  if (r > 0.9) return Math.round(intervalMs / 3);
  if (r > 0.75) return Math.round(intervalMs / 2);
  if (r > 0.6) return Math.round(intervalMs / 1.5);
  if (r < 0.1) return Math.round(intervalMs * 3);
  if (r < 0.25) return Math.round(intervalMs * 2);
  if (r < 0.4) return Math.round(intervalMs * 1.5);
  return intervalMs;
}
