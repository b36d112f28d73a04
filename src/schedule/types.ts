/**
 * A re-crawl strategy decides, from what one download just observed, when to fetch a URL next.
 * Strategies are pure: the per-URL state goes in and out as plain JSON (it lives in the store),
 * and the same code runs in the live scheduler and in the lab's simulator.
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
export const MONTH = 30 * DAY;

export interface StrategyBounds {
  minIntervalMs: number; // default 1 day (seed 000)
  maxIntervalMs: number; // default 6 months (seed 000)
}

export interface Observation {
  /** When this download happened (epoch ms). */
  time: number;
  /** Did the document change since the previous download? (false on the first download) */
  changed: boolean;
  /** Is this the first download of the URL? */
  first: boolean;
  /**
   * Made because a change notification (a sitemap's lastmod newer than the last fetch, an LDES member)
   * said the URL changed, not because its schedule said so. Absent: a scheduled download.
   */
  notified?: boolean;
  /** A notification had said the URL changed since its previous download (followed or not). Absent: unknown. */
  announced?: boolean;
}

export interface StrategyContext {
  bounds: StrategyBounds;
  /** The true mean change interval, for `gold` only (the lab knows it; live crawls do not). */
  trueMeanIntervalMs?: number;
  /**
   * Where an adaptive strategy starts before it has seen anything. Seed 000 does not say, and the
   * choice decides rankings on slowly changing data (docs/strategies.md), so the lab makes it a
   * parameter of every strategy; absent, each strategy uses its own default (`startInterval`).
   */
  startIntervalMs?: number;
  /**
   * What the other URLs of the same source (host, dataset) have shown so far, for strategies with a
   * prior per source (empirical Bayes, src/schedule/source-prior.ts). Only observations made before
   * now; optional: strategies that do not use it ignore it, and without it they fall back to a fixed prior.
   */
  sourcePrior?: SourcePrior;
  /**
   * What the notifications of the URL's source (its sitemap, its LDES stream) have proved so far
   * (src/schedule/notifications.ts). Absent: the source has none, or the caller keeps no tally.
   */
  notifications?: NotificationTally;
}

/**
 * A source's change notifications judged by their outcomes, kept by the caller per source (per
 * sitemap live, per synthetic host in the lab) like `SourcePrior`. Plain JSON.
 */
export interface NotificationTally {
  /** Downloads made on a notification, and how many of them found a change: can its "changed" be believed? */
  hinted: number;
  hintedChanged: number;
  /** Σ over those downloads of the chance the URL's own estimate gave a change by then: what a notification that says nothing would score. */
  hintedExpected: number;
  /** Downloads that found a change, and how many of those changes a notification had announced: how much does it cover? */
  changes: number;
  announced: number;
  /** When an untrusted source's notification was last followed anyway (a probe: trust can recover). */
  probedAt: number;
}

/** Re-downloads of a source's URLs so far: how many, how many saw a change, their summed intervals. */
export interface SourceTally {
  downloads: number;
  changes: number;
  exposureMs: number;
}

export interface SourcePrior {
  /**
   * The source's URLs' change rates fitted as a Gamma distribution (empirical Bayes), given as its
   * pseudo-counts: shape = `changes`, rate = 1/`exposureMs` (mean changes/exposureMs). 0/0 while the
   * source has too few URLs to fit.
   */
  changes: number;
  exposureMs: number;
  /** First re-checks of new URLs made within a week of their first download (probes of how new URLs behave)… */
  firstChecks: SourceTally;
  /** …and how many such probes were scheduled, done or not (many URLs of a source may appear at once). */
  probesScheduled: number;
}

export interface Strategy<S = unknown> {
  readonly name: string;
  /** State for a URL that has never been downloaded. */
  initial(ctx: StrategyContext): S;
  /** Updates the state with an observation and returns the interval until the next download. */
  next(state: S, obs: Observation, ctx: StrategyContext): { state: S; intervalMs: number };
  /**
   * Should a notification that the URL changed make it due now (at `time`)? Reads `ctx.notifications`
   * and may note a probe in it. Absent: the caller's default (live: yes, as a sitemap hint always did).
   */
  follows?(ctx: StrategyContext, time: number): boolean;
  /** How long until the source's sitemap or stream is read again, given its usual period. Absent: the usual period. */
  pollIntervalMs?(ctx: StrategyContext, baseMs: number): number;
}
