import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { DAY, WEEK } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';
import { atDownloads, paretoFront, sweep, type SweepPoint } from '../../src/lab/recrawl/sweep.ts';
import { runBudgetSweep } from '../../src/lab/recrawl/budget-sweep.ts';

const T0 = Date.UTC(2012, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();
const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Documents with Poisson changes of mean interval 3 days to 1 year (deterministic generator). */
function poissonSet(n: number, years: number) {
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  return Array.from({ length: n }, (_, i) => {
    const mean = 3 * DAY * (365 / 3) ** (i / (n - 1));
    const changes: string[] = [];
    for (let t = T0 - Math.log(rnd()) * mean; t < T0 + years * 365 * DAY; t += -Math.log(rnd()) * mean) changes.push(iso(t));
    return { id: `doc${i}`, created: iso(T0), end: iso(T0 + years * 365 * DAY), changes };
  });
}

const pt = (downloads: number, captured: number, factor = 1): SweepPoint => ({ factor, downloads, captured, recall: captured / 100, precision: captured / downloads, recallMacro: 0, precisionMacro: 0 });

describe('budget sweep', () => {
  it('the front keeps only points no other beats on both downloads and captured', () => {
    const f = paretoFront([pt(10, 5), pt(20, 4), pt(15, 8), pt(30, 9), pt(15, 7)]);
    expect(f.map((p) => [p.downloads, p.captured])).toEqual([[10, 5], [15, 8], [30, 9]]);
  });

  it('a curve at equal downloads is linear between the two nearest points of its front, and absent outside it', () => {
    const points = [pt(10, 5, 2), pt(30, 9, 0.5)];
    expect(atDownloads(points, 20)!.point.captured).toBe(7);
    expect(atDownloads(points, 20)!.w).toBe(0.5);
    expect(atDownloads(points, 5)).toBeUndefined();
    expect(atDownloads(points, 31)).toBeUndefined();
  });

  it('every strategy spends fewer downloads as its parameter grows, and captures fewer', () => {
    const h = historiesFromRecords(poissonSet(30, 3));
    for (const name of ['week', 'gold', 'poisson', 'quiet', 'fix', 'window', 'state-1', 'nutch']) {
      const s = sweep(h, name, { bounds: DEFAULT_BOUNDS, factors: [0.5, 2] });
      expect(s.points[0]!.downloads, name).toBeGreaterThan(s.points[1]!.downloads);
      expect(s.points[0]!.captured, name).toBeGreaterThanOrEqual(s.points[1]!.captured);
    }
  });

  it('compares strategies at equal downloads, overall and per band, and the best strategy has the highest recall there', () => {
    const h = historiesFromRecords(poissonSet(30, 3));
    const r = runBudgetSweep(h, { strategies: ['gold', 'week', 'poisson'], factors: [0.5, 0.7, 1, 1.4, 2, 4] });
    expect(r.budgets[0]!.downloads).toBe(r.sweeps.find((s) => s.strategy === 'gold')!.points.find((p) => p.factor === 1)!.downloads);
    for (const b of r.budgets) {
      const known = Object.entries(b.recall).filter(([, v]) => v !== null) as Array<[string, number]>;
      if (known.length) expect(b.best).toBe(known.sort((x, y) => y[1] - x[1])[0]![0]);
    }
    expect(r.bands.length).toBeGreaterThan(1);
    expect(r.bands.reduce((a, b) => a + b.documents, 0)).toBe(30);
    // week's 1-week interval is far above the others' downloads: gold at c = 0.5 and week at c = 4 (a 4-week period) meet the front.
    expect(r.front.length).toBeGreaterThan(2);
    expect(r.front.every((p, i) => i === 0 || (p.downloads > r.front[i - 1]!.downloads && p.captured > r.front[i - 1]!.captured))).toBe(true);
  });
});

describe('datamonitor lab recrawl --budget-sweep --json', () => {
  it('prints per strategy a list of points with downloads, captured, recall and precision, and writes the plot', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sweep-cli-'));
    const file = path.join(dir, 'h.jsonl');
    fs.writeFileSync(file, poissonSet(12, 3).map((r) => JSON.stringify(r)).join('\n') + '\n');
    const svg = path.join(dir, 'front.svg');
    const out = execFileSync('node', [path.join(repoRoot, 'bin/datamonitor.mjs'), 'lab', 'recrawl', '--histories', file, '--budget-sweep', '--strategies', 'week,nutch', '--factors', '0.5,1,2', '--json', '--plot', svg], { encoding: 'utf8' });
    const json = JSON.parse(out);
    expect(json.sweeps.map((s: { strategy: string }) => s.strategy)).toEqual(['week', 'nutch']);
    const week = json.sweeps[0].points;
    expect(week.map((p: { factor: number }) => p.factor)).toEqual([0.5, 1, 2]);
    for (const p of week) expect(Object.keys(p)).toEqual(expect.arrayContaining(['downloads', 'captured', 'recall', 'precision']));
    // week at c = 1 downloads every 7 days over 3 years, for each of the 12 documents.
    expect(week[1].downloads).toBe(12 * Math.floor((3 * 365 * DAY) / WEEK));
    expect(fs.readFileSync(svg, 'utf8')).toContain('<svg');
  });
});
