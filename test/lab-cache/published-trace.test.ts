import { describe, it, expect } from 'vitest';
import { describeTrace, publishedStatsTrace, rng, zipf } from '../../src/lab/cache/index.ts';

describe('the multi-host trace generated from published crawl statistics', () => {
  it('spreads over at least 100 hosts, with many more distinct URLs than a small cache holds, and is reproducible', () => {
    const urls = [...publishedStatsTrace(100_000, { hosts: 200, pages: 500_000 })];
    const d = describeTrace(urls);
    expect(d.requests).toBe(100_000);
    expect(d.hosts).toBeGreaterThanOrEqual(100);
    expect(d.distinct).toBeGreaterThan(10_000);
    expect(d.distinct).toBeLessThan(d.requests); // URLs repeat: there is something to cache
    expect([...publishedStatsTrace(1000, { hosts: 200, pages: 500_000 })]).toEqual(urls.slice(0, 1000));
  });

  it('draws link targets with the in-degree power law: rank 1 is about 10^0.91 times as frequent as rank 10', () => {
    const random = rng(5);
    const counts = new Float64Array(1000);
    for (let i = 0; i < 400_000; i++) counts[zipf(random, 1000, 1 / 1.1)]++;
    const ratio = counts[0] / counts[9];
    expect(ratio).toBeGreaterThan(10 ** 0.91 * 0.8);
    expect(ratio).toBeLessThan(10 ** 0.91 * 1.25);
  });
});
