import { WEEK, type NotificationTally, type Observation } from './types.ts';

/**
 * Change notifications judged by what they were worth. A sitemap's lastmod or an LDES member says a
 * URL changed; whether that is true is only learnt by downloading it. Real sitemaps omit lastmod, set
 * it to the sitemap's own generation time for every URL, or lag; a stream is exact but covers only
 * some sources. So a source's notifications are believed as far as their outcomes so far allow:
 *
 * - trust: of the downloads made on a notification, the share that found a change beyond what the
 *   URL's own estimate expected (a lying sitemap still "hits" a URL left alone for months: it changed
 *   anyway), with a Beta prior (believed until shown otherwise; a lying source loses it within a few downloads);
 * - coverage: of the changes downloads found, the share a notification had announced.
 *
 * The caller keeps one tally per source (per sitemap live, per synthetic host in the lab) and hands it
 * to the strategy of each of the source's URLs (`ctx.notifications`); the `notified` strategy records
 * each download's outcome in it (`recordOutcome`), since only it knows what its estimate expected.
 */
export interface TrustOptions {
  /** Beta prior on trust: pseudo downloads on a notification that found a change, and that did not. */
  priorHits: number;
  priorMisses: number;
  /** Notifications are followed while trust is at least this. */
  threshold: number;
  /** An untrusted source still has one notification followed this often (trust can recover). */
  probeMs: number;
  /** An untrusted source's sitemap or stream is read only this often (each read is a download). */
  untrustedPollMs: number;
}

export const TRUST_DEFAULTS: TrustOptions = { priorHits: 4, priorMisses: 1, threshold: 0.6, probeMs: WEEK, untrustedPollMs: 4 * WEEK };

/** How long until a source's notifications are read again: the usual period while trusted, else at least `untrustedPollMs`. */
export function pollDelayMs(t: NotificationTally | undefined, baseMs: number, o: TrustOptions = TRUST_DEFAULTS): number {
  return !t || isTrusted(t, o) ? baseMs : Math.max(baseMs, o.untrustedPollMs);
}

export function emptyTally(): NotificationTally {
  return { hinted: 0, hintedChanged: 0, hintedExpected: 0, changes: 0, announced: 0, probedAt: Number.NEGATIVE_INFINITY };
}

/**
 * Posterior mean of the share of a notification's "changed" that is news: of the hinted downloads the
 * estimate did not already expect to find changed, the share that did. 1 for an honest sitemap; about 0
 * for a lying one, whatever the URLs' pace.
 */
export function trustOf(t: NotificationTally, o: TrustOptions = TRUST_DEFAULTS): number {
  const beyond = Math.max(0, t.hintedChanged - t.hintedExpected);
  return (beyond + o.priorHits) / (Math.max(0, t.hinted - t.hintedExpected) + o.priorHits + o.priorMisses);
}

/** Posterior mean (uniform prior) of P(a change is announced by a notification). */
export function coverageOf(t: NotificationTally): number {
  return (t.announced + 1) / (t.changes + 2);
}

export function isTrusted(t: NotificationTally, o: TrustOptions = TRUST_DEFAULTS): boolean {
  return trustOf(t, o) >= o.threshold;
}

/**
 * Follow a notification received at `time`? Yes while the source is trusted; otherwise one every
 * `probeMs` (noted in the tally), so a source that was wrong for a while can earn trust back.
 */
export function decideFollow(t: NotificationTally, time: number, o: TrustOptions = TRUST_DEFAULTS): boolean {
  if (isTrusted(t, o)) return true;
  if (time - t.probedAt < o.probeMs) return false;
  t.probedAt = time;
  return true;
}

/**
 * One re-download of one of the source's URLs: a notified one tells trust (`expected`: the chance the
 * URL's estimate gave a change by now), a change tells coverage.
 */
export function recordOutcome(t: NotificationTally, obs: Pick<Observation, 'first' | 'changed' | 'notified' | 'announced'>, expected = 0): void {
  if (obs.first) return;
  if (obs.notified) {
    t.hinted++;
    t.hintedExpected += Math.min(1, Math.max(0, expected));
    if (obs.changed) t.hintedChanged++;
  }
  if (obs.changed) {
    t.changes++;
    if (obs.notified || obs.announced) t.announced++;
  }
}

/** A tally read back from the store (JSON): anything else starts afresh. */
export function asTally(v: unknown): NotificationTally {
  const t = v as Partial<NotificationTally> | null | undefined;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
  if (!t || typeof t !== 'object') return emptyTally();
  return {
    hinted: n(t.hinted),
    hintedChanged: Math.min(n(t.hintedChanged), n(t.hinted)),
    hintedExpected: Math.min(n(t.hintedExpected), n(t.hinted)),
    changes: n(t.changes),
    announced: Math.min(n(t.announced), n(t.changes)),
    probedAt: typeof t.probedAt === 'number' && Number.isFinite(t.probedAt) ? t.probedAt : Number.NEGATIVE_INFINITY,
  };
}
