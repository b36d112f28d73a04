import { WEEK, type NotificationTally, type Observation } from './types.ts';

/**
 * Change notifications judged by what they were worth. A sitemap's lastmod or an LDES member says a
 * URL changed; whether that is true is only learnt by downloading it. Real sitemaps omit lastmod, set
 * it to the sitemap's own generation time for every URL, or lag; a stream is exact but covers only
 * some sources. So a source's notifications are believed as far as their outcomes so far allow:
 *
 * - trust: of the downloads made on a notification, the share that found a change, with a Beta prior
 *   (`trustPrior`: believed until shown otherwise; a lying sitemap loses it within a few downloads);
 * - coverage: of the changes downloads found, the share a notification had announced.
 *
 * The caller keeps one tally per source (per sitemap live, per synthetic host in the lab) and records
 * every download of the source's URLs with `recordOutcome`, after the strategy has used it.
 */
export interface TrustOptions {
  /** Beta prior on trust: pseudo downloads on a notification that found a change, and that did not. */
  priorHits: number;
  priorMisses: number;
  /** Notifications are followed while trust is at least this. */
  threshold: number;
  /** An untrusted source still has one notification followed this often (trust can recover). */
  probeMs: number;
}

export const TRUST_DEFAULTS: TrustOptions = { priorHits: 4, priorMisses: 1, threshold: 0.6, probeMs: WEEK };

export function emptyTally(): NotificationTally {
  return { hinted: 0, hintedChanged: 0, changes: 0, announced: 0, probedAt: Number.NEGATIVE_INFINITY };
}

/** Posterior mean of P(a download made on this source's notification finds a change). */
export function trustOf(t: NotificationTally, o: TrustOptions = TRUST_DEFAULTS): number {
  return (t.hintedChanged + o.priorHits) / (t.hinted + o.priorHits + o.priorMisses);
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

/** One re-download of one of the source's URLs: a notified one tells trust, a change tells coverage. */
export function recordOutcome(t: NotificationTally, obs: Pick<Observation, 'first' | 'changed' | 'notified' | 'announced'>): void {
  if (obs.first) return;
  if (obs.notified) {
    t.hinted++;
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
    changes: n(t.changes),
    announced: Math.min(n(t.announced), n(t.changes)),
    probedAt: typeof t.probedAt === 'number' && Number.isFinite(t.probedAt) ? t.probedAt : Number.NEGATIVE_INFINITY,
  };
}
