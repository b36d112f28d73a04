import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import { DAY, WEEK } from '../../src/schedule/types.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { strategies } from '../../src/schedule/strategies/index.ts';
import { historiesFromRecords, readHistories, report, runRecrawlLab, simulate, simulateBudget } from '../../src/lab/recrawl/index.ts';
import { recrawlLabSvg } from '../../src/lab/recrawl/index.ts';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const T0 = Date.UTC(2020, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** A page that changes every day at noon for `days` days. */
function daily(days: number) {
  const changes = Array.from({ length: days - 1 }, (_, i) => iso(T0 + i * DAY + DAY / 2));
  return { id: 'daily', created: iso(T0), end: iso(T0 + days * DAY), changes };
}

/** Poisson changes of rate λ per ms (deterministic generator). */
function poissonHistory(id: string, lambda: number, spanMs: number, seed: number) {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) + 1) / (2 ** 31 + 1);
  const changes: string[] = [];
  for (let t = T0 - Math.log(rnd()) / lambda; t < T0 + spanMs; t += -Math.log(rnd()) / lambda) changes.push(iso(t));
  return { id, created: iso(T0), end: iso(T0 + spanMs), changes };
}

describe('re-crawl simulator', () => {
  it('week on a page changing daily: every download captures, recall = downloads / changes', () => {
    const h = historiesFromRecords([daily(70)]);
    const m = report(h, simulate(h, strategies.week!, DEFAULT_BOUNDS)).overall;
    expect(m.downloads).toBe(10); // days 7, 14, …, 70
    expect(m.captured).toBe(10);
    expect(m.changes).toBe(69);
    expect(m.precisionMicro).toBe(1);
    expect(m.recallMicro).toBeCloseTo(10 / 69, 10);
  });

  it('several changes between two downloads count once; changes after the last download are missed', () => {
    const h = historiesFromRecords([{ id: 'a', created: iso(T0), end: iso(T0 + 10 * DAY), changes: [iso(T0 + DAY), iso(T0 + 2 * DAY), iso(T0 + 9 * DAY)] }]);
    const m = report(h, simulate(h, strategies.week!, DEFAULT_BOUNDS)).overall;
    expect([m.downloads, m.captured, m.changes]).toEqual([1, 1, 3]);
  });

  it('matches the closed form for Poisson changes at x = λI = 1: recall = precision = 1 − 1/e', () => {
    const span = 4000 * WEEK;
    const h = historiesFromRecords(Array.from({ length: 5 }, (_, i) => poissonHistory(`p${i}`, 1 / WEEK, span, 17 + i)));
    const m = report(h, simulate(h, strategies.week!, DEFAULT_BOUNDS)).overall;
    const expected = 1 - Math.exp(-1);
    expect(m.precisionMicro).toBeGreaterThan(expected - 0.02);
    expect(m.precisionMicro).toBeLessThan(expected + 0.02);
    expect(m.recallMicro).toBeGreaterThan(expected - 0.02);
    expect(m.recallMicro).toBeLessThan(expected + 0.02);
  });

  it('gold on a Poisson page sits at x = 1; x = 2 (week on λ = 2/week) gives recall (1 − e^−2)/2', () => {
    const h = historiesFromRecords([poissonHistory('q', 2 / WEEK, 3000 * WEEK, 5)]);
    const m = report(h, simulate(h, strategies.week!, DEFAULT_BOUNDS)).overall;
    expect(m.recallMicro).toBeCloseTo((1 - Math.exp(-2)) / 2, 1);
    expect(m.precisionMicro).toBeCloseTo(1 - Math.exp(-2), 1);
  });

  it('the budget run spends about its budget and captures more with a larger one', () => {
    const h = historiesFromRecords(Array.from({ length: 20 }, (_, i) => poissonHistory(`b${i}`, (i + 1) / (20 * WEEK), 200 * WEEK, 3 + i)));
    const small = report(h, simulateBudget(h, { downloadsPerDay: 1, bounds: DEFAULT_BOUNDS })).overall;
    const large = report(h, simulateBudget(h, { downloadsPerDay: 4, bounds: DEFAULT_BOUNDS })).overall;
    expect(small.downloads / (200 * 7)).toBeGreaterThan(0.8);
    expect(small.downloads / (200 * 7)).toBeLessThan(1.2);
    expect(large.captured).toBeGreaterThan(small.captured);
  });

  it('groups documents by mean change interval and reports every strategy', () => {
    const slow = { id: 'slow', created: iso(T0), end: iso(T0 + 900 * DAY), changes: Array.from({ length: 19 }, (_, i) => iso(T0 + (i + 1) * 45 * DAY)) };
    const h = historiesFromRecords([daily(70), slow]); // mean intervals ≈ 1 day and 900/19 ≈ 47 days
    const r = runRecrawlLab(h, { bounds: DEFAULT_BOUNDS });
    expect(r.reports.map((s) => s.strategy)).toEqual(Object.keys(strategies));
    const week = r.reports.find((s) => s.strategy === 'week')!;
    expect(week.groups.find((g) => g.group === '1-2 days')!.documents).toBe(1);
    expect(week.groups.find((g) => g.group === '1-2 months')!.documents).toBe(1);
    expect(recrawlLabSvg(r)).toMatch(/^<svg[\s\S]*week[\s\S]*<\/svg>\n$/);
  });

  it('reads gzip JSON Lines, skipping bad lines with a diagnostic', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recrawl-'));
    const file = path.join(dir, 'h.jsonl.gz');
    fs.writeFileSync(file, zlib.gzipSync([JSON.stringify(daily(14)), '{broken', JSON.stringify({ id: 'x', created: 'never', end: 'x', changes: [] })].join('\n')));
    const h = await readHistories([file]);
    expect(h.ids).toEqual(['daily']);
    expect(h.diagnostics).toHaveLength(2);
  });
});

describe('datamonitor lab recrawl', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recrawl-cli-'));
  const file = path.join(dir, 'h.jsonl');
  fs.writeFileSync(file, JSON.stringify(daily(70)) + '\n');
  const cli = path.join(repoRoot, 'bin/datamonitor.mjs');

  it('prints JSON with the numbers and writes the plot', () => {
    const svg = path.join(dir, 'out.svg');
    const out = execFileSync('node', [cli, 'lab', 'recrawl', '--histories', file, '--strategies', 'week,fix', '--json', '--plot', svg], { encoding: 'utf8' });
    const json = JSON.parse(out);
    expect(json.reports.map((r: { strategy: string }) => r.strategy)).toEqual(['week', 'fix']);
    expect(json.reports[0].overall).toMatchObject({ downloads: 10, captured: 10, changes: 69 });
    expect(fs.readFileSync(svg, 'utf8')).toContain('<svg');
  });

  it('rejects an unknown strategy with the list of names', () => {
    const r = spawnSync('node', [cli, 'lab', 'recrawl', '--histories', file, '--strategies', 'weekly'], { encoding: 'utf8' });
    expect(r.status).toBe(64);
    expect(r.stderr).toMatch(/unknown strategy "weekly".*week/);
  });
});

const shared = path.resolve(repoRoot, '../shared/data');
const tldr = path.join(shared, 'histories/tldr-pages.jsonl.gz');
if (!fs.existsSync(tldr)) console.warn(`\n*** ${tldr} is absent: skipping the re-crawl lab test on the shared histories ***\n`);

describe.skipIf(!fs.existsSync(tldr))('on the shared tldr-pages histories', () => {
  it('poisson beats every non-oracle seed strategy on micro F1, and week has the highest recall and lowest precision', async () => {
    const r = runRecrawlLab(await readHistories([tldr]), { bounds: DEFAULT_BOUNDS });
    const by = Object.fromEntries(r.reports.map((s) => [s.strategy, s.overall]));
    for (const s of ['fix', 'dyn', 'window', 'state-1', 'state-2', 'week']) expect(by.poisson!.f1Micro).toBeGreaterThan(by[s]!.f1Micro);
    for (const s of Object.keys(by)) if (s !== 'week') {
      expect(by.week!.recallMicro).toBeGreaterThan(by[s]!.recallMicro);
      expect(by.week!.precisionMicro).toBeLessThan(by[s]!.precisionMicro);
    }
  });
});
