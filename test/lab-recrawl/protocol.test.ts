import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { DAY, MONTH, WEEK, type StrategyContext } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { strategies } from '../../src/schedule/strategies/index.ts';
import { markovStrategy } from '../../src/schedule/strategies/markov.ts';
import { windowStrategy } from '../../src/schedule/strategies/window.ts';
import { applyProtocol, historiesFromRecords, PROTOCOLS, report, runRecrawlLab, simulate } from '../../src/lab/recrawl/index.ts';
import type { SteppedStrategy } from '../../src/schedule/strategies/define.ts';

const YEAR = 365 * DAY;
const T0 = Date.UTC(2010, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const repoRoot = path.resolve(import.meta.dirname, '../..');

/** A page edited every `everyDays` days for `years` years. */
function regular(id: string, everyDays: number, years: number) {
  const changes: string[] = [];
  for (let t = T0 + everyDays * DAY; t < T0 + years * YEAR; t += everyDays * DAY) changes.push(iso(t));
  return { id, created: iso(T0), end: iso(T0 + years * YEAR), changes };
}

/** The intervals a strategy returns for a sequence of change states (first download, then one per state). */
function intervals<S>(s: SteppedStrategy<S>, changes: boolean[], ctx: StrategyContext = { bounds: DEFAULT_BOUNDS }): number[] {
  const st = s.initial(ctx);
  let t = 0;
  const out = [s.step(st, { time: t, changed: false, first: true }, ctx)];
  for (const c of changes) {
    t += out.at(-1)!;
    out.push(s.step(st, { time: t, changed: c, first: false }, ctx));
  }
  return out;
}

describe('protocols', () => {
  it("seed: 3 years from creation, documents with at least 3 years, groups and gold by the whole history's mean", () => {
    const h = historiesFromRecords([regular('ten-years', 30, 10), regular('two-years', 10, 2), { id: 'quiet-late', created: iso(T0), end: iso(T0 + 5 * YEAR), changes: [iso(T0 + 4 * YEAR)] }]);
    const s = applyProtocol(h, PROTOCOLS.seed);
    expect(s.ids).toEqual(['ten-years', 'quiet-late']);
    expect(s.diagnostics.join()).toMatch(/left out 1 document/);
    expect(s.end[0]! - s.created[0]!).toBe(3 * YEAR);
    // Only the changes inside the 3 years are simulated: 36 monthly edits, and none of quiet-late's.
    expect(s.changeStart[1]! - s.changeStart[0]!).toBe(36);
    expect(s.changeStart[2]! - s.changeStart[1]!).toBe(0);
    // gold is told quiet-late's whole-history mean (5 years for 1 change, clamped to 6 months), not "never".
    const gold = report(s, simulate(s, strategies.gold!, DEFAULT_BOUNDS));
    expect(gold.groups.find((g) => g.group === '> 1 year')!.documents).toBe(1);
    const lab = runRecrawlLab(h, { strategies: ['week'], protocol: PROTOCOLS.lab });
    const seed = runRecrawlLab(h, { strategies: ['week'], protocol: PROTOCOLS.seed });
    expect([lab.documents, seed.documents]).toEqual([3, 2]);
    expect(seed.reports[0]!.overall.downloads).toBe(2 * Math.floor((3 * YEAR) / WEEK));
  });

  it('the start interval is a parameter of every adaptive strategy', () => {
    const h = historiesFromRecords([{ id: 'never', created: iso(T0), end: iso(T0 + YEAR), changes: [] }]);
    for (const name of ['fix', 'dyn', 'window', 'state-1', 'state-2', 'estimator', 'poisson', 'quiet']) {
      const first = (startIntervalMs?: number) => {
        const ctx: StrategyContext = { bounds: DEFAULT_BOUNDS, startIntervalMs };
        const s = strategies[name]!;
        return s.step(s.initial(ctx), { time: 0, changed: false, first: true }, ctx);
      };
      expect(first(30 * DAY), name).toBe(30 * DAY);
      expect(first(10 * YEAR), name).toBe(6 * MONTH); // clamped to the bounds
    }
    // A page that never changes: starting at the maximum costs 2 downloads a year, starting at a week more.
    const at = (start: number) => simulate(h, strategies.fix!, DEFAULT_BOUNDS, { startIntervalMs: start }).downloads[0];
    expect(at(6 * MONTH)).toBe(2);
    expect(at(WEEK)).toBeGreaterThan(2);
  });

  it('state-*: a transition is counted only between two states seen at the same interval (the seed), or across intervals (mixed)', () => {
    const perInterval = intervals(markovStrategy(1), [true, true, true, true]);
    const mixed = intervals(markovStrategy(1, { sequences: 'mixed' }), [true, true, true, true]);
    // Both shorten ÷3 once two changes were seen at one week…
    expect(perInterval.slice(0, 3)).toEqual([WEEK, WEEK, Math.round(WEEK / 3)]);
    expect(mixed.slice(0, 3)).toEqual([WEEK, WEEK, Math.round(WEEK / 3)]);
    // …then mixed files week→2.3-day as a transition of the new interval and shortens at once; per interval waits for a second state there.
    expect(mixed[3]).toBe(DAY);
    expect(perInterval[3]).toBe(Math.round(WEEK / 3));
    expect(perInterval[4]).toBe(DAY);
  });

  it('window: all snapshots (default) or only those at the current interval', () => {
    const seq = [true, false, true, false, true];
    const all = intervals(windowStrategy(), seq);
    const same = intervals(windowStrategy({ snapshots: 'same-interval' }), seq);
    expect(all.slice(0, 4)).toEqual(same.slice(0, 4));
    // With 4 snapshots, all looks at the last 2 (one changed: keep); same-interval only at the 1 since the last change of interval.
    expect(all[4]).toBe(WEEK / 3);
    expect(same[4]).toBe(WEEK);
  });
});

describe('datamonitor lab recrawl --protocol', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recrawl-protocol-'));
  const file = path.join(dir, 'h.jsonl');
  fs.writeFileSync(file, [regular('a', 30, 5), regular('b', 7, 2)].map((r) => JSON.stringify(r)).join('\n') + '\n');
  const cli = path.join(repoRoot, 'bin/datamonitor.mjs');

  it('runs the seed protocol with an explicit start interval', () => {
    const out = execFileSync('node', [cli, 'lab', 'recrawl', '--histories', file, '--protocol', 'seed', '--start-interval', '30d', '--strategies', 'fix', '--json'], { encoding: 'utf8' });
    const json = JSON.parse(out);
    expect(json).toMatchObject({ protocol: 'seed', documents: 1, startIntervalMs: 30 * DAY });
  });

  it('rejects an unknown protocol', () => {
    const r = spawnSync('node', [cli, 'lab', 'recrawl', '--histories', file, '--protocol', 'wiki'], { encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/--protocol must be lab or seed/);
  });
});
