import { describe, it, expect } from 'vitest';
import { DAY, MONTH, type StrategyContext } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { getStrategy, isLiveStrategy, strategies } from '../../src/schedule/strategies/index.ts';
import { historiesFromRecords, report, simulate } from '../../src/lab/recrawl/index.ts';

const ctx: StrategyContext = { bounds: DEFAULT_BOUNDS };
const T0 = Date.UTC(2020, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** Intervals returned for a first download then the given change states (state round-tripped through JSON, as the store does). */
function intervals(changes: boolean[], c: StrategyContext = ctx): number[] {
  const s = getStrategy('quiet');
  let r = s.next(s.initial(c), { time: T0, changed: false, first: true }, c);
  const out = [r.intervalMs];
  let t = T0;
  for (const changed of changes) {
    t += r.intervalMs;
    r = s.next(JSON.parse(JSON.stringify(r.state)), { time: t, changed, first: false }, c);
    out.push(r.intervalMs);
  }
  return out;
}

describe('quiet strategy', () => {
  it('is registered, live, and its first re-check waits the maximum interval (whatever the bounds)', () => {
    expect(strategies.quiet).toBeDefined();
    expect(isLiveStrategy('quiet')).toBe(true);
    expect(intervals([])).toEqual([6 * MONTH]);
    expect(intervals([], { bounds: { minIntervalMs: DAY, maxIntervalMs: 30 * DAY } })).toEqual([30 * DAY]);
  });

  it('stays at the maximum while nothing changes', () => {
    expect(intervals(Array(5).fill(false))).toEqual(Array(6).fill(6 * MONTH));
  });

  it('one change in 180 days moves the interval to about 128 days (hand-solved MAP)', () => {
    // Solve 0.25/λ + 180/(e^{180λ} − 1) = 90 (days): λ ≈ 1/127.6 per day; interval = 1/λ.
    const [, after] = intervals([true]);
    expect(after! / DAY).toBeGreaterThan(126);
    expect(after! / DAY).toBeLessThan(129);
  });

  it('a URL that changes at every visit settles near 4.8 days (the prior caps it), and a quiet one goes back to the maximum', () => {
    // Fixed point with 32 kept changes at I = 1/λ: 32/(λ(e − 1)) + 0.25/λ = 90 days → I = 90/(32/(e − 1) + 0.25) ≈ 4.77 days.
    const busy = intervals(Array(200).fill(true));
    expect(busy.at(-1)! / DAY).toBeCloseTo(90 / (32 / (Math.E - 1) + 0.25), 1);
    // Intervals only shrink while every visit sees a change.
    for (let i = 2; i < busy.length; i++) expect(busy[i]!).toBeLessThanOrEqual(busy[i - 1]!);
    const calm = intervals([...Array(200).fill(true), ...Array(40).fill(false)]);
    expect(calm.at(-1)).toBe(6 * MONTH);
  });

  it('spends no download learning a URL that never changes (poisson starts at one week and does)', () => {
    // Three years without a change: quiet downloads at 180, 360, …, 1080 days = 6 re-downloads.
    const h = historiesFromRecords([{ id: 'still', created: iso(T0), end: iso(T0 + 1095 * DAY), changes: [] }]);
    expect(report(h, simulate(h, strategies.quiet!, DEFAULT_BOUNDS)).overall.downloads).toBe(6);
    expect(report(h, simulate(h, strategies.poisson!, DEFAULT_BOUNDS)).overall.downloads).toBeGreaterThan(6);
  });
});
