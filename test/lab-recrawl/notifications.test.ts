/**
 * The notification lab on generated Poisson histories (no ../shared): the simulator agrees with the
 * plain one where nothing is notified, honest notifications catch more for fewer downloads, a lying
 * sitemap ruins the naive crawler but not `notified`, and the budget comparison's numbers hold together.
 */
import { describe, it, expect } from 'vitest';
import { rng } from '../../src/lab/cache/synthetic-trace.ts';
import { historiesFromRecords, simulate } from '../../src/lab/recrawl/index.ts';
import type { HistoryRecord } from '../../src/lab/recrawl/histories.ts';
import { simulateNotified } from '../../src/lab/recrawl/notify-sim.ts';
import { announcements, channels, NOTIFICATION_DEFAULTS, type NotificationModel } from '../../src/lab/recrawl/notify-model.ts';
import { notifyStrategyAt, runNotificationLab } from '../../src/lab/recrawl/notify-lab.ts';
import { PROTOCOLS } from '../../src/lab/recrawl/protocol.ts';
import { getStrategy } from '../../src/schedule/strategies/index.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { DAY } from '../../src/schedule/types.ts';

/** Poisson documents changing every 1 week to 1 year on average (log-uniform), over 3 years: the pace of the shared histories. */
function histories(documents: number, seed: number): HistoryRecord[] {
  const random = rng(seed);
  const start = Date.UTC(2020, 0, 1);
  const end = start + 3 * 365 * DAY;
  return Array.from({ length: documents }, (_, d) => {
    const mean = 7 * DAY * Math.exp(random() * Math.log(365 / 7));
    const changes: number[] = [];
    for (let t = start - mean * Math.log(1 - random()); t < end; t -= mean * Math.log(1 - random())) changes.push(t);
    return { id: `https://docs.example.org/page-${d}.html`, source: 'docs.example.org', created: start, end, changes };
  });
}
const h = historiesFromRecords(histories(150, 5));
const sum = (a: ArrayLike<number>) => Array.from(a).reduce((x, y) => x + y, 0);
const model = (scenario: NotificationModel['scenario']): NotificationModel => ({ ...NOTIFICATION_DEFAULTS, scenario, pollMs: DAY });
const run = (name: string, scenario: NotificationModel['scenario'], maxDownloads?: number) =>
  simulateNotified(h, notifyStrategyAt(name, 1), DEFAULT_BOUNDS, { model: model(scenario), notices: 'strategy', maxDownloads });

describe('the notification simulator', () => {
  it('gives exactly the plain simulator\'s counts where nothing is notified', () => {
    for (const name of ['poisson', 'estimator', 'gold']) {
      const plain = simulate(h, getStrategy(name), DEFAULT_BOUNDS);
      const ours = simulateNotified(h, getStrategy(name), DEFAULT_BOUNDS, { model: model('honest'), notices: 'ignore' });
      expect(Array.from(ours.downloads)).toEqual(Array.from(plain.downloads));
      expect(Array.from(ours.captured)).toEqual(Array.from(plain.captured));
      expect(ours.channelDownloads).toBe(0);
    }
  });

  it('with an honest daily sitemap, notified catches most changes within a day; every hinted download finds one', () => {
    const est = run('notified', 'none');
    const honest = run('notified', 'honest');
    expect(sum(honest.captured)).toBeGreaterThan(1.3 * sum(est.captured));
    expect(honest.hintedChanged).toBe(honest.hinted);
    expect(honest.delayMs / sum(honest.captured)).toBeLessThan(est.delayMs / sum(est.captured) / 4);
    expect(sum(honest.captured)).toBeLessThanOrEqual(h.changes.length);
    // It stretches its schedule where the sitemap covers the changes: fewer downloads than the naive crawler.
    expect(sum(honest.downloads)).toBeLessThan(sum(run('trust-lastmod', 'honest').downloads));
  });

  it('a lying sitemap: the naive crawler downloads everything at every poll; notified soon ignores it', () => {
    const est = run('notified', 'none');
    const cap = 20 * sum(est.downloads);
    const naive = run('trust-lastmod', 'lying', cap);
    const ours = run('notified', 'lying', cap);
    expect(naive.exceeded).toBe(true);
    expect(ours.exceeded).toBe(false);
    expect(ours.hintedChanged / ours.hinted).toBeLessThan(0.6);
    // It reads the lying sitemap every 4 weeks once it stopped believing it, not every day.
    expect(ours.channelDownloads).toBeLessThan(run('notified', 'honest').channelDownloads / 10);
    // Its document downloads stay near the estimator's (weekly probes aside), and so does what it catches.
    expect(sum(ours.downloads)).toBeLessThan(1.2 * sum(est.downloads));
    expect(sum(ours.captured)).toBeGreaterThanOrEqual(0.95 * sum(est.captured));
  });

  it('models lag, missing lastmods and mixed hosts deterministically', () => {
    const lag = announcements(h, channels(h, model('lagging')), model('lagging'), Math.min(...h.created));
    const honest = announcements(h, channels(h, model('honest')), model('honest'), Math.min(...h.created));
    for (let i = 0; i < lag.time.length; i++) expect(lag.time[i]! - lag.change[i]!).toBeGreaterThanOrEqual(NOTIFICATION_DEFAULTS.lagMs);
    const missing = channels(h, model('missing'));
    expect(sum(missing.unlisted) / h.ids.length).toBeGreaterThan(0.3);
    expect(sum(missing.unlisted) / h.ids.length).toBeLessThan(0.7);
    expect(channels(h, model('missing')).unlisted).toEqual(missing.unlisted);
    // Every change is announced, but those after a document's last poll.
    expect(honest.time.length).toBeLessThanOrEqual(h.changes.length);
    expect(honest.time.length).toBeGreaterThan(0.99 * h.changes.length);
    expect(new Set(channels(h, model('mixed')).kinds)).toEqual(new Set(['honest', 'lagging', 'missing', 'lying', 'stream', 'none']));
  });
});

describe('runNotificationLab', () => {
  it('compares at equal downloads, polls included, with intervals; counts hold together', () => {
    const r = runNotificationLab([{ name: 'generated', h }], { protocols: [PROTOCOLS.lab], scenarios: ['honest', 'lying'], factors: [0.5, 1, 2, 4], samples: 100, model: { pollMs: DAY } });
    const run0 = r.runs[0]!;
    expect(run0.estimators.map((e) => e.strategy)).toEqual(['estimator', 'poisson', 'quiet', 'gold']);
    const cap = 2 * Math.max(...r.multiples) * run0.goldDownloads;
    for (const curve of [...run0.estimators, ...run0.scenarios.flatMap((s) => [s.notified, s.trustLastmod])]) {
      for (const p of curve.points) {
        expect(p.captured).toBeLessThanOrEqual(run0.changes);
        expect(p.downloads).toBe(p.documentDownloads + p.channelDownloads);
        if (!p.exceeded && curve.strategy !== 'gold') expect(p.downloads).toBeLessThanOrEqual(cap);
      }
    }
    const honest = run0.scenarios.find((s) => s.scenario === 'honest')!;
    const lying = run0.scenarios.find((s) => s.scenario === 'lying')!;
    const top = honest.budgets.at(-1)!;
    expect(top.vsBestEstimator!.low).toBeGreaterThan(0); // honest notifications beat every estimator at 4 × gold's downloads
    // A lying sitemap: the naive crawler spends several times notified's downloads at every setting, almost all in vain.
    lying.trustLastmod.points.forEach((p, i) => expect(p.downloads).toBeGreaterThan(3 * lying.notified.points[i]!.downloads));
    expect(lying.trustLastmod.points.every((p) => p.hintPrecision! < 0.3)).toBe(true);
    expect(lying.budgets[0]!.recall['trust-lastmod']).toBeNull();
    expect(lying.budgets.at(-1)!.recall.notified).not.toBeNull();
    for (const s of run0.scenarios) for (const b of s.budgets) for (const v of Object.values(b.recall)) if (v !== null) expect(v).toBeLessThanOrEqual(1);
  }, 120_000);
});
