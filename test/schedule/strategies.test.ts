import { describe, it, expect } from 'vitest';
import { DAY, MONTH, WEEK, type Observation, type StrategyContext } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS, parseDuration } from '../../src/schedule/bounds.ts';
import { getStrategy, strategies } from '../../src/schedule/strategies/index.ts';
import { regularRate, mleRate } from '../../src/schedule/estimate.ts';
import { UserError } from '../../src/util/errors.ts';

const ctx: StrategyContext = { bounds: DEFAULT_BOUNDS };

/** Feeds a sequence of change states through the pure interface (state round-tripped through JSON, as the store does). */
function run(name: string, changes: boolean[], c: StrategyContext = ctx): number[] {
  const s = getStrategy(name);
  let state: unknown = s.initial(c);
  let t = 0;
  const out: number[] = [];
  const first: Observation = { time: t, changed: false, first: true };
  let r = s.next(state, first, c);
  state = JSON.parse(JSON.stringify(r.state));
  out.push(r.intervalMs);
  for (const ch of changes) {
    t += r.intervalMs;
    r = s.next(state, { time: t, changed: ch, first: false }, c);
    state = JSON.parse(JSON.stringify(r.state));
    out.push(r.intervalMs);
  }
  return out;
}

describe('seed 000 strategies', () => {
  it('week always waits one week, gold the true mean interval within bounds', () => {
    expect(run('week', [true, false, true])).toEqual([WEEK, WEEK, WEEK, WEEK]);
    expect(run('gold', [false], { ...ctx, trueMeanIntervalMs: 3 * DAY })).toEqual([3 * DAY, 3 * DAY]);
    expect(run('gold', [false], { ...ctx, trueMeanIntervalMs: 3600_000 })).toEqual([DAY, DAY]);
    expect(run('gold', [false], { ...ctx, trueMeanIntervalMs: Infinity })).toEqual([6 * MONTH, 6 * MONTH]);
    expect(() => run('gold', [false])).toThrow(UserError);
  });

  it('fix halves the interval after two changed snapshots and lengthens it ×1.5 after two unchanged', () => {
    // start 1 week; changed, changed → 3.5 d; then unchanged, unchanged → 5.25 d
    expect(run('fix', [true, true, false, false])).toEqual([WEEK, WEEK, WEEK / 2, WEEK / 2, (WEEK / 2) * 1.5]);
    // mixed snapshots keep the interval
    expect(run('fix', [true, false, true, false]).every((i) => i === WEEK)).toBe(true);
  });

  it('fix never leaves the bounds', () => {
    const out = run('fix', Array(40).fill(true));
    expect(Math.min(...out)).toBe(DAY);
    const slow = run('fix', Array(40).fill(false));
    expect(Math.max(...slow)).toBe(6 * MONTH);
  });

  it('dyn adapts after one snapshot above two months but needs four below a week', () => {
    // at one week dyn needs 4 unchanged snapshots before it lengthens the interval ×1.5
    expect(run('dyn', [false, false, false, false])).toEqual([WEEK, WEEK, WEEK, WEEK, WEEK * 1.5]);
    const long = { bounds: { minIntervalMs: DAY, maxIntervalMs: 365 * DAY } };
    const out = run('dyn', Array(30).fill(false), long);
    expect(out.some((v) => v > 2 * MONTH)).toBe(true);
    // once above 2 months each single unchanged snapshot doubles the interval
    const i = out.findIndex((v) => v > 2 * MONTH);
    expect(out[i + 1]).toBe(Math.min(365 * DAY, out[i]! * 2));
  });

  it('window divides by 3 when every snapshot changed and multiplies by 3 when none did', () => {
    expect(run('window', [true])).toEqual([WEEK, Math.round(WEEK / 3)]);
    expect(run('window', [false])).toEqual([WEEK, WEEK * 3]);
    // window of 1 (half of 1–3 snapshots): ×3, ×3, /3; then 2 of the last 2 (half of 4) changed → /3
    expect(run('window', [false, false, true, true])).toEqual([WEEK, 3 * WEEK, 9 * WEEK, 3 * WEEK, WEEK]);
  });

  it('state-1 learns P(change | last state) per interval', () => {
    // At 1 week: 0→1 observed, then from state 1 nothing known → keep; 1→1 → P(1|1)=1 → /3
    const out = run('state-1', [false, true, true]);
    expect(out.slice(0, 3)).toEqual([WEEK, WEEK, WEEK]);
    // after the second observation: transition 0→1 counted, context 1 unseen → keep; third: 1→1, P(1|1) = 1 → /3
    expect(out[3]).toBe(Math.round(WEEK / 3));
  });

  it('state-2 needs two previous states before it counts transitions', () => {
    const out = run('state-2', [false, false, false, false]);
    // two states before the first transition can be counted; the third download counts 00→0, P(1|00) = 0 → ×3
    expect(out.slice(0, 4)).toEqual([WEEK, WEEK, WEEK, WEEK * 3]);
  });

  it('the registry lists every strategy and rejects unknown names with the list', () => {
    expect(Object.keys(strategies)).toEqual(expect.arrayContaining(['fix', 'dyn', 'window', 'state-1', 'state-2', 'gold', 'week', 'estimator', 'poisson']));
    expect(() => getStrategy('nope')).toThrow(/fix, dyn, window/);
  });

  it('next() does not mutate the state it is given', () => {
    const s = getStrategy('state-2');
    const st = s.initial(ctx);
    const before = JSON.stringify(st);
    s.next(st, { time: 0, changed: false, first: true }, ctx);
    s.next(st, { time: 1, changed: true, first: false }, ctx);
    expect(JSON.stringify(st)).toBe(before);
  });

  it('parses durations', () => {
    expect(parseDuration('180d')).toBe(180 * DAY);
    expect(parseDuration('6mo')).toBe(6 * MONTH);
    expect(() => parseDuration('soon')).toThrow(UserError);
  });
});

describe('change-rate estimation', () => {
  it("Cho & Garcia-Molina's regular estimator", () => {
    expect(regularRate(10, 0, DAY)).toBeCloseTo(-Math.log(10.5 / 10.5) / DAY, 12);
    expect(regularRate(10, 10, DAY) * DAY).toBeCloseTo(Math.log(21), 10);
  });

  it('the irregular MLE recovers the rate of a simulated Poisson page', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const lambda = 1 / (3 * DAY);
    const n = 4000;
    const t = new Float64Array(n);
    const c = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      t[i] = (1 + 5 * rnd()) * DAY;
      c[i] = rnd() < 1 - Math.exp(-lambda * t[i]!) ? 1 : 0;
    }
    const est = mleRate({ intervals: t, changed: c, weights: new Float64Array(n).fill(1), count: n }, 1 / (365 * DAY), 1 / 3600_000);
    expect(est / lambda).toBeGreaterThan(0.93);
    expect(est / lambda).toBeLessThan(1.07);
  });

  it('the MLE hits the floor without changes and the cap when everything changed', () => {
    const w = (ch: number) => ({ intervals: [DAY, 2 * DAY], changed: [ch, ch], weights: [1, 1], count: 2 });
    expect(mleRate(w(0), 1e-12, 1e-3)).toBe(1e-12);
    expect(mleRate(w(1), 1e-12, 1e-3)).toBe(1e-3);
  });

  it('estimator shortens the interval for a page that changes every time and lengthens it for one that never does', () => {
    const fast = run('estimator', Array(10).fill(true));
    expect(fast.at(-1)).toBe(DAY);
    const slow = run('poisson', Array(10).fill(false));
    expect(slow.at(-1)!).toBeGreaterThan(3 * MONTH);
  });
});
