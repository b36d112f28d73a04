import { describe, it, expect } from 'vitest';
import { DAY, MONTH } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';
import { bayesStrategy, oracleLogPrior, rateGrid } from '../../src/lab/recrawl/oracle-bayes.ts';

const rates = rateGrid();
const bounds = DEFAULT_BOUNDS;
const T0 = Date.UTC(2020, 0, 1);

/** A prior with all its mass on the grid rate nearest `perDay` changes a day; returns that rate (per ms). */
function pointPrior(perDay: number): { logPrior: Float64Array; rate: number } {
  let at = 0;
  for (let k = 1; k < rates.length; k++) if (Math.abs(Math.log(rates[k]! * DAY / perDay)) < Math.abs(Math.log(rates[at]! * DAY / perDay))) at = k;
  const logPrior = new Float64Array(rates.length).fill(-Infinity);
  logPrior[at] = 0;
  return { logPrior, rate: rates[at]! };
}

/** Intervals after a first download, then after each of `changes` (through the pure `next`, JSON round trip). */
function intervals(s: ReturnType<typeof bayesStrategy>, changes: boolean[]): number[] {
  let r = s.next(s.initial({ bounds }), { time: T0, changed: false, first: true }, { bounds });
  const out = [r.intervalMs];
  let t = T0;
  for (const changed of changes) {
    t += r.intervalMs;
    r = s.next(JSON.parse(JSON.stringify(r.state)), { time: t, changed, first: false }, { bounds });
    out.push(r.intervalMs);
  }
  return out;
}

describe('Bayes bound strategy (lab)', () => {
  it('with a known rate, picks the Dinkelbach interval: e^{−x}(1 + x) = 1 − τ at x = λI', () => {
    const { logPrior, rate } = pointPrior(1 / 10);
    for (const threshold of [0.1, 0.2, 0.4]) {
      // Solve e^{−x}(1 + x) = 1 − τ by bisection (the left side falls from 1 as x grows).
      let lo = 0;
      let hi = 20;
      for (let i = 0; i < 60; i++) {
        const x = (lo + hi) / 2;
        if (Math.exp(-x) * (1 + x) > 1 - threshold) lo = x;
        else hi = x;
      }
      const want = lo / rate;
      const [first] = intervals(bayesStrategy({ rates, logPrior, threshold, decay: 1, bounds }), []);
      // The candidate intervals are 80 log-spaced points from 1 day to 6 months: about 7 % apart.
      expect(Math.abs(Math.log(first! / want))).toBeLessThan(0.07);
    }
  });

  it('a rate known to be low stays at the maximum interval; with a spread prior, changes shorten it and quiet lengthens it', () => {
    const { logPrior } = pointPrior(1 / 3650);
    expect(intervals(bayesStrategy({ rates, logPrior, threshold: 0.2, decay: 1, bounds }), [true, true])).toEqual([6 * MONTH, 6 * MONTH, 6 * MONTH]);
    const flat = new Float64Array(rates.length).fill(-Math.log(rates.length));
    const s = bayesStrategy({ rates, logPrior: flat, threshold: 0.2, decay: 1, bounds });
    const busy = intervals(s, [true, true, true, true]);
    for (let i = 1; i < busy.length; i++) expect(busy[i]!).toBeLessThanOrEqual(busy[i - 1]!);
    expect(busy[1]!).toBeLessThan(busy[0]!);
    expect(busy.at(-1)).toBe(bounds.minIntervalMs); // a page that changed at every download is checked as often as allowed
    const calm = intervals(s, [true, false, false, false, false]);
    expect(calm.at(-1)!).toBeGreaterThan(calm[1]!);
  });

  it('the oracle prior is the histogram of the documents\' true rates', () => {
    const h = historiesFromRecords([
      { id: 'a', created: T0, end: T0 + 1000 * DAY, changes: Array.from({ length: 100 }, (_, i) => T0 + (i + 0.5) * 10 * DAY) },
      { id: 'b', created: T0, end: T0 + 1000 * DAY, changes: Array.from({ length: 100 }, (_, i) => T0 + (i + 0.5) * 10 * DAY) },
      { id: 'c', created: T0, end: T0 + 1000 * DAY, changes: [] },
    ]);
    const p = Array.from(oracleLogPrior(h, rates), Math.exp);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    const top = p.indexOf(Math.max(...p));
    expect(Math.abs(Math.log(rates[top]! * 10 * DAY))).toBeLessThan(0.2); // both busy documents: one change every 10 days
    const quietAt = p.findIndex((v, k) => k !== top && v > Math.min(...p));
    expect(Math.abs(Math.log(rates[quietAt]! * 3000 * DAY))).toBeLessThan(0.2); // no changes: one in three lifetimes
  });
});
