import { clampInterval } from '../bounds.ts';
import { DAY } from '../types.ts';
import { coverageOf, decideFollow, isTrusted, pollDelayMs, recordOutcome, TRUST_DEFAULTS, type TrustOptions } from '../notifications.ts';
import type { RateState } from './rate.ts';
import { POISSON_OPTIONS, rateStrategy, type RateOptions } from './rate.ts';
import { defineStrategy, type SteppedStrategy } from './define.ts';

export interface NotifiedState {
  rate: RateState;
  /** Changes this URL's downloads found, and how many of them a notification had announced. */
  seen: number;
  announced: number;
  /** When the URL was last downloaded (the estimator must learn from the interval actually waited: a notification cuts it short). */
  last?: number;
}

export interface NotifiedOptions {
  name: string;
  summary: string;
  /** The estimator that schedules the URL where notifications do not (the same as `poisson` by default). */
  base: RateOptions;
  trust: TrustOptions;
  /** Pseudo-changes of the source's coverage in a URL's own coverage estimate (a URL may be one a sitemap leaves out). */
  coverageStrength: number;
  /** The scheduled interval is stretched by at most this: notifications alone never leave a URL unchecked for long. */
  maxStretch: number;
  /** `always`: follow every notification, never stretch: the naive "trust lastmod" crawler, for comparison. */
  mode: 'learn' | 'always';
}

/**
 * notified: a URL is downloaded when its source's change notification says it changed, if that
 * source has proved trustworthy (src/schedule/notifications.ts: downloads made on its notifications
 * found changes its estimates did not expect), and on its estimator's schedule otherwise. It records
 * each download's outcome in the source's tally (`ctx.notifications`), shared by the source's URLs. Where a trusted source also announced
 * most of the changes this URL's downloads found (coverage, the URL's own pulled towards its
 * source's), the schedule only has to catch the unannounced ones, at rate λ(1 − coverage): the interval
 * is stretched by 1/(1 − coverage), at most `maxStretch`. Without notifications it is its estimator.
 */
export function notifiedStrategy(o: NotifiedOptions): SteppedStrategy<NotifiedState> {
  const base = rateStrategy(o.base);
  return defineStrategy<NotifiedState>({
    name: o.name,
    summary: o.summary,
    initial: (ctx) => ({ rate: base.initial(ctx), seen: 0, announced: 0 }),
    step(s, obs, ctx) {
      const t = ctx.notifications;
      const elapsed = s.last === undefined ? 0 : obs.time - s.last;
      if (!obs.first && elapsed > 0) s.rate.intervalMs = elapsed;
      // What the URL's own estimate gave for a change by now: a notification is worth what it adds to that.
      const perMs = s.rate.ratePerDay > 0 ? s.rate.ratePerDay / DAY : o.base.priorChanges > 0 ? o.base.priorChanges / o.base.priorExposureMs : 1 / ctx.bounds.maxIntervalMs;
      const expected = -Math.expm1(-perMs * elapsed);
      const interval = base.step(s.rate, obs, ctx);
      s.last = obs.time;
      if (obs.first) return interval;
      if (t) recordOutcome(t, obs, expected);
      if (obs.changed) {
        s.seen++;
        if (obs.notified || obs.announced) s.announced++;
      }
      if (o.mode === 'always' || !t || !isTrusted(t, o.trust)) return interval;
      const k = o.coverageStrength;
      const coverage = (s.announced + k * coverageOf(t)) / (s.seen + k);
      const stretch = Math.min(o.maxStretch, 1 / Math.max(1e-9, 1 - coverage));
      return Math.round(clampInterval(interval * stretch, ctx.bounds));
    },
    follows: (ctx, time) => o.mode === 'always' || (ctx.notifications !== undefined && decideFollow(ctx.notifications, time, o.trust)),
    // An untrusted source is read less often: its polls cost downloads and tell nothing until it earns trust back.
    pollIntervalMs: (ctx, baseMs) => (o.mode === 'always' ? baseMs : pollDelayMs(ctx.notifications, baseMs, o.trust)),
  });
}

export const NOTIFIED_OPTIONS: NotifiedOptions = {
  name: 'notified',
  summary: "follows a source's change notifications (sitemap lastmod, LDES) while they prove true, stretches the schedule by what they cover; else poisson",
  base: { ...POISSON_OPTIONS, name: 'notified' },
  trust: TRUST_DEFAULTS,
  coverageStrength: 2,
  maxStretch: 8,
  mode: 'learn',
};

export const notified = notifiedStrategy(NOTIFIED_OPTIONS);

/** The naive crawler: poisson's schedule, and every notification followed. */
export const TRUST_LASTMOD_OPTIONS: NotifiedOptions = {
  ...NOTIFIED_OPTIONS,
  name: 'trust-lastmod',
  summary: 'poisson, and every change notification followed whatever it proved (the naive sitemap crawler)',
  base: { ...POISSON_OPTIONS, name: 'trust-lastmod' },
  mode: 'always',
};
