import { DAY, MONTH, WEEK, HOUR, type StrategyBounds } from './types.ts';
import { UserError } from '../util/errors.ts';

/** Seed 000: "We fixed the minimum crawl time to 1 day and the maximum to 6 month." */
export const DEFAULT_BOUNDS: StrategyBounds = { minIntervalMs: DAY, maxIntervalMs: 6 * MONTH };

/** Where an adaptive strategy starts before it has seen anything (the seed does not say; see docs/strategies.md). */
export const INITIAL_INTERVAL_MS = WEEK;

/** The first interval of an adaptive strategy: the context's explicit start, else the strategy's own default, clamped. */
export function startInterval(ctx: { bounds: StrategyBounds; startIntervalMs?: number }, fallbackMs = INITIAL_INTERVAL_MS): number {
  return clampInterval(ctx.startIntervalMs ?? fallbackMs, ctx.bounds);
}

export function clampInterval(ms: number, b: StrategyBounds): number {
  return ms < b.minIntervalMs ? b.minIntervalMs : Math.min(ms, b.maxIntervalMs);
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: HOUR, d: DAY, w: WEEK, mo: MONTH, y: 365 * DAY };

/** Parses a duration such as `90m`, `1d`, `2w`, `6mo`, `180d` or a bare number of milliseconds. */
export function parseDuration(text: string, what = 'duration'): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w|mo|y)?\s*$/.exec(text);
  if (!m) throw new UserError(`${what} "${text}" is not a duration: use e.g. 1d, 12h, 2w, 6mo, 180d`);
  const ms = Number(m[1]) * UNITS[m[2] ?? 'ms']!;
  if (!(ms > 0)) throw new UserError(`${what} must be positive, got "${text}"`);
  return ms;
}

export function checkBounds(b: StrategyBounds): StrategyBounds {
  if (!(b.minIntervalMs > 0) || !(b.maxIntervalMs >= b.minIntervalMs)) {
    throw new UserError(`interval bounds must satisfy 0 < min <= max (got min ${b.minIntervalMs} ms, max ${b.maxIntervalMs} ms)`);
  }
  return b;
}

/** A readable duration for tables: 1.5d, 3w, 2mo. */
export function formatDuration(ms: number): string {
  if (ms >= 365 * DAY) return `${+(ms / (365 * DAY)).toFixed(1)}y`;
  if (ms >= MONTH) return `${+(ms / MONTH).toFixed(1)}mo`;
  if (ms >= WEEK) return `${+(ms / WEEK).toFixed(1)}w`;
  if (ms >= DAY) return `${+(ms / DAY).toFixed(1)}d`;
  if (ms >= HOUR) return `${+(ms / HOUR).toFixed(1)}h`;
  return `${Math.round(ms)}ms`;
}
