import { describe, it, expect } from 'vitest';
import { DAY, type StrategyContext } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { getStrategy, isLiveStrategy } from '../../src/schedule/strategies/index.ts';
import { NUTCH_DEFAULTS, nutchStrategy } from '../../src/schedule/strategies/nutch.ts';
import { historiesFromRecords, report, simulate } from '../../src/lab/recrawl/index.ts';

const ctx: StrategyContext = { bounds: DEFAULT_BOUNDS };

/** Waits returned through the pure interface, the state round-tripped through JSON as the store does. */
function waits(changes: boolean[], c: StrategyContext = ctx, s = getStrategy('nutch')): number[] {
  let r = s.next(s.initial(c), { time: 0, changed: false, first: true }, c);
  const out = [r.intervalMs];
  let t = 0;
  for (const ch of changes) {
    t += r.intervalMs;
    r = s.next(JSON.parse(JSON.stringify(r.state)), { time: t, changed: ch, first: false }, c);
    out.push(r.intervalMs);
  }
  return out;
}

describe("nutch: Nutch's AdaptiveFetchSchedule with nutch-default.xml's values", () => {
  it('starts at 30 days, × 0.8 after a change, × 1.4 after none, within 90 days; usable live', () => {
    expect(isLiveStrategy('nutch')).toBe(true);
    const w = waits([true, true, false, false, false, false, false]);
    expect(w.slice(0, 4)).toEqual([30 * DAY, 24 * DAY, Math.round(19.2 * DAY), Math.round(26.88 * DAY)]);
    expect(w.at(-1)).toBe(90 * DAY);
    expect(waits([false], { ...ctx, startIntervalMs: 2 * DAY })).toEqual([2 * DAY, Math.round(2.8 * DAY)]);
  });

  it('never waits less than the bounds allow, even for a page that changes at every visit', () => {
    expect(waits(Array(40).fill(true)).at(-1)).toBe(DAY);
  });

  it("sync delta fed with the last change seen pulls a long-quiet page's wait down (why the default leaves it inert)", () => {
    const synced = nutchStrategy({ ...NUTCH_DEFAULTS, name: 'nutch-sync', modifiedTime: 'last-seen-change' });
    const quiet = waits(Array(12).fill(false), ctx, synced);
    const plain = waits(Array(12).fill(false));
    expect(plain.at(-1)).toBe(90 * DAY);
    expect(quiet.at(-1)).toBeLessThan(plain.at(-1)!);
    // In the simulator: a page that changed once, early, then never again, over 4 years.
    const T0 = Date.UTC(2015, 0, 1);
    const h = historiesFromRecords([{ id: 'p', created: new Date(T0).toISOString(), end: new Date(T0 + 1460 * DAY).toISOString(), changes: [new Date(T0 + 10 * DAY).toISOString()] }]);
    const d = (s = getStrategy('nutch')) => report(h, simulate(h, s, DEFAULT_BOUNDS)).overall.downloads;
    expect(d(synced)).toBeGreaterThan(3 * d());
  });
});
