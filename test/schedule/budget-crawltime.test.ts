import { describe, it, expect } from 'vitest';
import { allocate, capturedPerCycle } from '../../src/schedule/budget.ts';
import { estimateCrawlTime, estimationReport, firstFitMakespan, hostTime, planBatch, seedEstimate } from '../../src/schedule/crawl-time.ts';

describe('budget allocation', () => {
  it('spends the budget in proportion to the change rates for captured changes', () => {
    const a = allocate([1, 2, 3, 4], 5);
    expect(a.total).toBeCloseTo(5, 5);
    expect(a.rates[3]! / a.rates[0]!).toBeCloseTo(4, 4);
  });

  it('beats a uniform split on expected captured changes', () => {
    const rates = [0.01, 0.1, 1, 5];
    const a = allocate(rates, 4);
    const uniform = rates.reduce((s, d) => s + capturedPerCycle(d, 1), 0);
    expect(a.expectedCaptured).toBeGreaterThan(uniform);
  });

  it('binary freshness starves the fastest page; harmonic never starves one', () => {
    const rates = [0.1, 0.2, 100];
    expect(allocate(rates, 1, { objective: 'freshness' }).rates[2]).toBe(0);
    const h = allocate(rates, 1, { objective: 'harmonic' });
    expect(h.total).toBeCloseTo(1, 5);
    for (const r of h.rates) expect(r).toBeGreaterThan(0);
  });

  it('respects bounds and per-host caps', () => {
    const a = allocate([1, 1, 1, 10], 6, { maxRate: 2, hosts: ['a', 'a', 'a', 'b'], hostCap: 3 });
    expect(a.rates[3]).toBeLessThanOrEqual(2 + 1e-9);
    expect(a.rates[0]! + a.rates[1]! + a.rates[2]!).toBeLessThanOrEqual(3 + 1e-6);
  });
});

describe('crawl-time estimation', () => {
  it("seed heuristic: Figure 7's host (t > 3d) gets 3 threads", () => {
    // 6 docs, d = 1 s, t = 3.5 s: threads = 3, crawltime = 3.5·6/3 + 1·2 = 9 s, on ≥ 3 threads
    expect(seedEstimate({ hosts: [{ host: 'a', urls: 6, meanDownloadMs: 3500, delayMs: 1000 }], concurrency: 8 })).toBeCloseTo(9000, 0);
    // unknown domain: 1 s delay, 2 s download → 2 threads; 4 urls: 2·4/2 + 1 = 5 s
    expect(seedEstimate({ hosts: [{ host: 'x', urls: 4 }], concurrency: 8 })).toBeCloseTo(5000, 0);
  });

  it("seed heuristic given the fetcher's real per-host concurrency: no more threads per domain than requests in flight", () => {
    const host = { host: 'a', urls: 6, meanDownloadMs: 3500, delayMs: 1000 };
    // One request in flight per host: 1 thread, 3.5 · 6 = 21 s (the seed's own assumption says 9 s).
    expect(seedEstimate({ hosts: [host], concurrency: 8, perHost: 1 }, { realPerHost: true })).toBeCloseTo(21000, 0);
    // Two: 3.5 · 6/2 + 1 = 11.5 s; four is more than ⌊t/d⌋ = 3, so the seed's 3 threads stand.
    expect(seedEstimate({ hosts: [host], concurrency: 8, perHost: 2 }, { realPerHost: true })).toBeCloseTo(11500, 0);
    expect(seedEstimate({ hosts: [host], concurrency: 8, perHost: 4 }, { realPerHost: true })).toBeCloseTo(9000, 0);
    expect(seedEstimate({ hosts: [host], concurrency: 8, perHost: 1 })).toBeCloseTo(9000, 0);
  });

  it('first-fit makespan packs items onto the given bins', () => {
    expect(Math.abs(firstFitMakespan([5000, 5000, 5000, 5000], 2) - 10_000)).toBeLessThanOrEqual(1);
    expect(firstFitMakespan([7000, 1000, 1000, 1000], 4)).toBe(7000);
  });

  it('politeness-aware: a single host is bound by its delay, many small hosts by the concurrency', () => {
    expect(hostTime({ host: 'a', urls: 10, meanDownloadMs: 100, delayMs: 1000 })).toBe(9 * 1000 + 100);
    expect(estimateCrawlTime({ hosts: [{ host: 'a', urls: 10, meanDownloadMs: 100, delayMs: 1000 }], concurrency: 16 })).toBe(9100);
    const many = Array.from({ length: 100 }, (_, i) => ({ host: `h${i}`, urls: 1, meanDownloadMs: 1000, delayMs: 1000 }));
    expect(estimateCrawlTime({ hosts: many, concurrency: 10 })).toBe(10_000);
  });

  it('planBatch takes the most overdue prefix that fits the cycle', () => {
    const due = [
      { host: 'slow', delayMs: 10_000, meanDownloadMs: 100, urls: Array.from({ length: 20 }, (_, i) => ({ url: `s${i}`, due: i })) },
      { host: 'fast', delayMs: 100, meanDownloadMs: 100, urls: [{ url: 'f0', due: 0.5 }] },
    ];
    const plan = planBatch(due, 60_000, { concurrency: 4 });
    expect(plan.estimateMs).toBeLessThanOrEqual(60_000);
    expect(plan.urls).toEqual(['s0', 'f0', 's1', 's2', 's3', 's4', 's5']);
    expect(plan.deferred).toBe(14);
  });

  it('estimation report groups over- and under-estimates by crawl length', () => {
    const m = 60_000;
    const rows = estimationReport([
      { estimateMs: 20 * m, actualMs: 10 * m },
      { estimateMs: 50 * m, actualMs: 60 * m + 1 },
      { estimateMs: 70 * m, actualMs: 65 * m },
    ]);
    expect(rows[0]).toMatchObject({ crawls: 1, over: 1, overFraction: 1 });
    expect(rows[2]!.crawls).toBe(2);
    expect(rows[2]!.under).toBe(1);
    expect(rows[2]!.underMinutes).toBeCloseTo(10, 3);
  });
});
