import { DAY } from '../types.ts';
import { clampInterval, startInterval } from '../bounds.ts';
import { defineStrategy, type SteppedStrategy } from './define.ts';

/** Nutch's AdaptiveFetchSchedule state: its fetch interval and the last time it saw the page modified. */
export interface NutchState {
  /** Nutch's `fetchInterval` (not the wait: sync delta shifts the next fetch earlier). */
  intervalMs: number;
  /** The last download that saw a change (the first download counts as one). */
  modifiedMs: number;
}

/** nutch-default.xml's documented values (Nutch 1.x); `name` and the rates can be varied for sweeps. */
export interface NutchOptions {
  name: string;
  /** db.fetch.schedule.adaptive.inc_rate: unchanged → interval × (1 + inc). */
  incRate: number;
  /** db.fetch.schedule.adaptive.dec_rate: changed → interval × (1 − dec). */
  decRate: number;
  /** db.fetch.schedule.adaptive.min_interval (60 s). */
  minIntervalMs: number;
  /** db.fetch.schedule.adaptive.max_interval is 365 days, but db.fetch.interval.max (90 days) forces a re-fetch sooner: the lower one. */
  maxIntervalMs: number;
  /** db.fetch.schedule.adaptive.sync_delta and sync_delta_rate. */
  syncDelta: boolean;
  syncDeltaRate: number;
  /** db.fetch.interval.default (30 days): the first interval unless the context sets a start. */
  defaultIntervalMs: number;
  /**
   * What Nutch gets as the page's modification time. `none` (default): no Last-Modified header, so
   * Nutch uses the fetch time and sync delta is inert (delta = 0). `last-seen-change`: the last
   * download that saw a change, as if the server's Last-Modified were that; a page quiet for longer
   * than interval/rate is then pulled to the minimum wait (measured in docs/strategies.md).
   */
  modifiedTime: 'none' | 'last-seen-change';
}

export const NUTCH_DEFAULTS: NutchOptions = {
  name: 'nutch',
  incRate: 0.4,
  decRate: 0.2,
  minIntervalMs: 60_000,
  maxIntervalMs: 90 * DAY,
  syncDelta: true,
  syncDeltaRate: 0.3,
  defaultIntervalMs: 30 * DAY,
  modifiedTime: 'none',
};

/**
 * Nutch's AdaptiveFetchSchedule (org.apache.nutch.crawl.AdaptiveFetchSchedule, REFERENCE.md): what
 * the crawlers people run today do, as a peer for the seed's and datamonitor's strategies. Changed →
 * interval × (1 − dec); unchanged → × (1 + inc). With sync delta, delta = now − last modification; the
 * interval is at least delta, and the next fetch is at now − delta × rate + interval (pulled toward the
 * phase of the changes). The histories carry no Last-Modified header; without one Nutch takes the
 * fetch time as the modification time, so by default delta is 0 (`modifiedTime`). The interval is
 * kept within 60 s and 90 days (db.fetch.interval.max, below the adaptive maximum of 365 days; Nutch
 * re-fetches a page scheduled further out at once, which this leaves out), and the wait within the
 * context's bounds.
 */
export function nutchStrategy(o: NutchOptions = NUTCH_DEFAULTS): SteppedStrategy<NutchState> {
  const own = { minIntervalMs: o.minIntervalMs, maxIntervalMs: o.maxIntervalMs };
  return defineStrategy<NutchState>({
    name: o.name,
    summary: `Nutch's AdaptiveFetchSchedule with nutch-default.xml's values: changed → ×${1 - o.decRate}, unchanged → ×${1 + o.incRate}, sync delta ${o.syncDeltaRate}, ${o.minIntervalMs / 1000} s to ${o.maxIntervalMs / DAY} days, start ${o.defaultIntervalMs / DAY} days`,
    initial: (ctx) => ({ intervalMs: clampInterval(ctx.startIntervalMs ?? o.defaultIntervalMs, own), modifiedMs: Number.NaN }),
    step(s, obs, ctx) {
      if (obs.first || Number.isNaN(s.modifiedMs)) {
        s.modifiedMs = obs.time;
        return startInterval(ctx, s.intervalMs);
      }
      let interval = s.intervalMs * (obs.changed ? 1 - o.decRate : 1 + o.incRate);
      if (obs.changed || o.modifiedTime === 'none') s.modifiedMs = obs.time;
      let wait = interval;
      if (o.syncDelta) {
        const delta = obs.time - s.modifiedMs;
        if (delta > interval) interval = delta;
        interval = clampInterval(interval, own);
        wait = interval - delta * o.syncDeltaRate;
      } else interval = clampInterval(interval, own);
      s.intervalMs = interval;
      return Math.round(clampInterval(wait, ctx.bounds));
    },
  });
}

export const nutch = nutchStrategy();
