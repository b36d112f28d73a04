import { describe, it, expect } from 'vitest';
import { DAY, WEEK, type NotificationTally, type Observation, type StrategyContext } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { asTally, coverageOf, emptyTally, recordOutcome, trustOf } from '../../src/schedule/notifications.ts';
import { getStrategy, isLiveStrategy } from '../../src/schedule/strategies/index.ts';
import { notified, notifiedStrategy, TRUST_LASTMOD_OPTIONS } from '../../src/schedule/strategies/notified.ts';
import { poisson } from '../../src/schedule/strategies/rate.ts';

const T0 = Date.UTC(2024, 0, 1);

/** n downloads made on the source's notifications, `hits` of which found a change; each URL's estimate gave a change `expected` chance. */
function hintedDownloads(t: NotificationTally, n: number, hits: number, expected = 0.1): void {
  for (let i = 0; i < n; i++) recordOutcome(t, { first: false, changed: i < hits, notified: true }, expected);
}

describe('notified: trust in a source\'s notifications, learnt from outcomes', () => {
  it('stops following a lying sitemap once its hints keep finding nothing, and keeps following an honest one', () => {
    const lying = emptyTally();
    const honest = emptyTally();
    const ctx = (t: NotificationTally): StrategyContext => ({ bounds: DEFAULT_BOUNDS, notifications: t });
    // Unknown sources are believed at first: a new sitemap's hints are followed.
    expect(notified.follows!(ctx(lying), T0)).toBe(true);
    hintedDownloads(lying, 10, 1); // lastmod = "now" for every URL: 1 in 10 hinted downloads saw a change
    hintedDownloads(honest, 10, 10);
    expect(trustOf(lying)).toBeLessThan(0.4);
    expect(trustOf(honest)).toBeGreaterThan(0.9);
    const day = (d: number) => T0 + d * DAY;
    // The lying source: one probe, then nothing for a week, then one probe again.
    const followedLying = [1, 1, 2, 3, 5, 8, 9].map((d) => notified.follows!(ctx(lying), day(d)));
    expect(followedLying).toEqual([true, false, false, false, false, true, false]);
    expect([1, 1, 2, 3].map((d) => notified.follows!(ctx(honest), day(d)))).toEqual([true, true, true, true]);
  });

  it('does not take a lying sitemap\'s hits on URLs left alone for months as trust: they had changed anyway', () => {
    const t = emptyTally();
    hintedDownloads(t, 30, 21, 0.7); // found a change 70 % of the time, as the estimates expected
    expect(trustOf(t)).toBeLessThan(0.6);
    expect(notified.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0)).toBe(true); // a probe
    expect(notified.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0 + DAY)).toBe(false);
    const honest = emptyTally();
    hintedDownloads(honest, 30, 30, 0.7);
    expect(trustOf(honest)).toBeGreaterThan(0.9);
  });

  it('records what a notified download found in the source\'s tally (the tally is shared by the source\'s URLs)', () => {
    const t = emptyTally();
    const ctx: StrategyContext = { bounds: DEFAULT_BOUNDS, notifications: t };
    let s = notified.initial(ctx);
    s = notified.next(s, { time: T0, changed: false, first: true }, ctx).state;
    s = notified.next(s, { time: T0 + DAY, changed: false, first: false, notified: true }, ctx).state;
    notified.next(s, { time: T0 + 2 * DAY, changed: true, first: false, notified: true }, ctx);
    expect(t).toMatchObject({ hinted: 2, hintedChanged: 1, changes: 1, announced: 1 });
    expect(t.hintedExpected).toBeGreaterThan(0);
    expect(t.hintedExpected).toBeLessThan(0.1); // a new URL, prior: a change every 6 months
  });

  it('lets a source earn trust back through its probes', () => {
    const t = emptyTally();
    hintedDownloads(t, 6, 0);
    expect(notified.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0 + WEEK)).toBe(true); // a probe
    expect(notified.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0 + WEEK + DAY)).toBe(false);
    hintedDownloads(t, 30, 30); // the site fixed its sitemap
    expect(notified.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0 + WEEK + 2 * DAY)).toBe(true);
  });

  it('reads an untrusted source\'s sitemap every 4 weeks instead of every poll', () => {
    const lying = emptyTally();
    hintedDownloads(lying, 10, 0);
    const honest = emptyTally();
    hintedDownloads(honest, 10, 10);
    expect(notified.pollIntervalMs!({ bounds: DEFAULT_BOUNDS, notifications: lying }, DAY)).toBe(4 * WEEK);
    expect(notified.pollIntervalMs!({ bounds: DEFAULT_BOUNDS, notifications: honest }, DAY)).toBe(DAY);
    expect(notifiedStrategy(TRUST_LASTMOD_OPTIONS).pollIntervalMs!({ bounds: DEFAULT_BOUNDS, notifications: lying }, DAY)).toBe(DAY);
  });

  it('trust-lastmod follows every notification whatever it proved', () => {
    const naive = notifiedStrategy(TRUST_LASTMOD_OPTIONS);
    const t = emptyTally();
    hintedDownloads(t, 50, 0);
    expect(naive.follows!({ bounds: DEFAULT_BOUNDS, notifications: t }, T0)).toBe(true);
  });

  it('counts coverage: changes a scheduled download found that no notification announced lower it', () => {
    const t = emptyTally();
    for (let i = 0; i < 8; i++) recordOutcome(t, { first: false, changed: true, announced: i < 2 });
    expect(coverageOf(t)).toBeCloseTo(3 / 10, 9);
    recordOutcome(t, { first: true, changed: false }); // a first download is no observation
    expect(t.changes).toBe(8);
  });
});

describe('notified: scheduling', () => {
  /** The same observations through two strategies; their intervals. */
  function intervals(ctx: StrategyContext, pattern: boolean[], announced = false): { ours: number[]; base: number[] } {
    let s = notified.initial(ctx);
    let b = poisson.initial(ctx);
    const ours: number[] = [];
    const base: number[] = [];
    let t = T0;
    pattern.forEach((changed, i) => {
      const obs: Observation = { time: t, changed, first: i === 0, announced: announced && changed };
      const n = notified.next(JSON.parse(JSON.stringify(s)), obs, ctx); // state through JSON, as the store keeps it
      const p = poisson.next(b, obs, { bounds: ctx.bounds });
      s = n.state;
      b = p.state;
      ours.push(n.intervalMs);
      base.push(p.intervalMs);
      t += n.intervalMs;
    });
    return { ours, base };
  }
  const pattern = [false, true, false, true, true, false, false, true, false, true, true, true];

  it('is its estimator (poisson) where there are no notifications', () => {
    const { ours, base } = intervals({ bounds: DEFAULT_BOUNDS }, pattern);
    expect(ours).toEqual(base);
  });

  it('is its estimator where the source is not trusted', () => {
    const t = emptyTally();
    hintedDownloads(t, 20, 2);
    const { ours, base } = intervals({ bounds: DEFAULT_BOUNDS, notifications: t }, pattern, true);
    expect(ours).toEqual(base);
  });

  it('waits longer where a trusted source announced the changes, never past the maximum', () => {
    const t = emptyTally();
    hintedDownloads(t, 20, 20);
    for (let i = 0; i < 20; i++) recordOutcome(t, { first: false, changed: true, announced: true });
    const { ours, base } = intervals({ bounds: DEFAULT_BOUNDS, notifications: t }, pattern, true);
    for (let i = 1; i < ours.length; i++) {
      expect(ours[i]).toBeGreaterThanOrEqual(base[i]!);
      expect(ours[i]).toBeLessThanOrEqual(DEFAULT_BOUNDS.maxIntervalMs);
    }
    expect(ours.slice(1).some((x, i) => x > base[i + 1]!)).toBe(true);
  });

  it('is a live strategy, and a stored tally that is not one restarts', () => {
    expect(isLiveStrategy('notified')).toBe(true);
    expect(getStrategy('notified')).toBe(notified);
    expect(asTally('garbage')).toEqual(emptyTally());
    expect(asTally({ hinted: 3, hintedChanged: 9, changes: -1, announced: 2, probedAt: null })).toEqual({ hinted: 3, hintedChanged: 3, hintedExpected: 0, changes: 0, announced: 0, probedAt: Number.NEGATIVE_INFINITY });
  });
});
