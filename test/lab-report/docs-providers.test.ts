import { describe, it, expect } from 'vitest';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';
import { quickHistories } from '../../src/lab/report/quick-data.ts';
import { runChoices } from '../../src/lab/recrawl/choices.ts';
import { BEYOND_CANDIDATES, runBeyond } from '../../src/lab/recrawl/beyond.ts';
import { choiceClaims } from '../../src/lab/report/providers/recrawl-choices.ts';
import { beyondClaims } from '../../src/lab/report/providers/recrawl-beyond.ts';
import { minutesClaims } from '../../src/lab/report/providers/crawltime.ts';
import type { CrawlTimeLabResult, EstimatorSummary } from '../../src/lab/crawltime/index.ts';

const files = [1, 2].map((k) => ({ name: `generated-${k}`, h: historiesFromRecords(quickHistories(40, 10 + k)) }));
const byId = <T extends { id: string }>(xs: T[], id: string) => xs.find((x) => x.id === id)!;
/** The signed point figures of a `measured` sentence, in order. */
const figures = (s: string) => [...s.matchAll(/ ([+-]\d+\.\d+)/g)].map((m) => Number(m[1]));

describe("lab report: the docs' claims about the seed's open choices (recrawl-choices)", () => {
  const r = runChoices(files);
  const names = files.map((f) => f.name);

  it('each verdict follows the numbers it states', () => {
    const claims = choiceClaims(r, names, 'test');
    const start = byId(claims, '000-docs-choice-start-7d-poisson-leads-fix');
    const gaps = figures(start.measured);
    expect(gaps).toHaveLength(2);
    expect(start.verdict).toBe(gaps.every((g) => g > 0) ? 'confirmed' : gaps.every((g) => g <= 0) ? 'refuted' : 'mixed');
    // Claims about python-peps only cannot be judged without it, and say so with the count.
    expect(byId(claims, '000-docs-choice-protocol-flips-python-peps').verdict).toBe('not testable here');
  }, 120_000);

  it("window's other reading: the verdict turns when that reading moves F1 by more than a point on one file", () => {
    const moved = structuredClone(r);
    const w = moved['window-same']['generated-1']!['window-same']!;
    moved['window-same']['generated-1']!['window-same'] = { ...w, f1Micro: r['window-all']['generated-1']!.window!.f1Micro + 0.05 };
    moved['window-same']['generated-2']!['window-same'] = { ...w, f1Micro: r['window-all']['generated-2']!.window!.f1Micro };
    const c = byId(choiceClaims(moved, names, 'test'), '000-docs-choice-window-same-interval-within-1');
    expect(c.verdict).toBe('mixed');
    expect(c.measured).toMatch(/generated-1 \+5\.0, generated-2 \+0\.0/);
  });

  it('a file named python-peps gets a verdict with both protocols\' numbers', () => {
    const renamed = structuredClone(r);
    for (const k of Object.keys(renamed) as Array<keyof typeof renamed>) renamed[k]['python-peps'] = renamed[k]['generated-1']!;
    const flip = byId(choiceClaims(renamed, ['python-peps'], 'test'), '000-docs-choice-protocol-flips-python-peps');
    expect(flip.verdict).not.toBe('not testable here');
    expect(flip.measured).toMatch(/seed protocol [+-]\d+\.\d, lab protocol [+-]\d+\.\d/);
  });
});

describe("lab report: quiet and source against every peer (recrawl-beyond)", () => {
  const quiet = BEYOND_CANDIDATES.find((c) => c.name === 'quiet')!;
  const r = runBeyond(quiet, files[0]!.h, { steps: 10, equalPeers: ['gold'] });

  it("the equal-download comparison never lets the candidate download more than the peer", () => {
    const gold = r.rows.find((x) => x.peer === 'gold')!;
    expect(gold.equal).toBeDefined();
    expect(gold.equal!.m.downloads).toBeLessThanOrEqual(gold.peerMetrics.downloads);
    expect(gold.equal!.recallMargin).toBeCloseTo(gold.equal!.m.recallMicro - gold.peerMetrics.recallMicro, 12);
    // Only the asked-for peers are bisected (CI); week never is.
    expect(r.rows.filter((x) => x.equal).map((x) => x.peer)).toEqual(['gold']);
    expect(r.rows.map((x) => x.peer)).toEqual(['fix', 'dyn', 'window', 'state-1', 'state-2', 'gold', 'week', 'poisson']);
  }, 120_000);

  it('the "except python-peps" claims turn with the file: the same margins hold on another file and not on python-peps', () => {
    const margin = r.rows.find((x) => x.peer === 'poisson')!.f1Margin;
    const on = (name: string) => byId(beyondClaims([{ name, r }], 'test'), '000-docs-quiet-f1-vs-poisson');
    const elsewhere = on('generated-1');
    const peps = on('python-peps');
    expect(elsewhere.verdict).toBe(margin > 0 ? 'confirmed' : 'refuted');
    expect(peps.verdict).toBe(margin > 0 ? 'refuted' : 'confirmed');
    expect(elsewhere.measured).toContain(`${margin >= 0 ? '+' : ''}${(100 * margin).toFixed(1)}`);
  });

  it('a file quiet was tuned on is shown, not judged', () => {
    const id = '000-docs-quiet-f1-vs-poisson';
    const tuned = byId(beyondClaims([{ name: 'tldr-pages', r }], 'test'), id);
    expect(tuned.verdict).toBe('not testable here');
    expect(tuned.measured).toMatch(/tldr-pages \(in-sample\) [+-]\d/);
    // Beside a held-out file, only the held-out file decides.
    const margin = r.rows.find((x) => x.peer === 'poisson')!.f1Margin;
    const both = byId(beyondClaims([{ name: 'tldr-pages', r }, { name: 'schemaorg-terms', r }], 'test'), id);
    expect(both.verdict).toBe(margin > 0 ? 'confirmed' : 'refuted');
    expect(both.measured).toContain('judged on the 1 file quiet was not tuned on (tldr-pages: in-sample');
  });
});

describe('lab report: crawls of minutes (crawltime-minutes)', () => {
  const est = (name: EstimatorSummary['name'], medianRatio: number, within20: number, under: number): EstimatorSummary => ({ name, label: name, bands: [], meanAbsError: Math.abs(1 - medianRatio), medianRatio, within20, over: 10 - under, under });
  const result = (ours: EstimatorSummary, seed: EstimatorSummary): CrawlTimeLabResult => ({
    site: 't', concurrency: 8, seconds: 1, estimators: [seed, est('seed-per-host', 0.6, 0.3, 8), ours],
    trials: Array.from({ length: 10 }, () => ({ hosts: 1, urls: 1, perHostUrls: [1], delayMs: 500, perHost: 1, actualMs: 60_000, seedMs: 1, seedPerHostMs: 1, datamonitorMs: 1, load1: 1 })),
  });

  it("the estimator's verdict follows its median ratio and its share within ±20 %", () => {
    const close = minutesClaims(result(est('datamonitor', 0.95, 0.8, 8), est('seed', 0.5, 0.2, 8)), 'test');
    expect(byId(close, '000-docs-minutes-estimator-close').verdict).toBe('confirmed');
    expect(byId(close, '000-docs-minutes-estimator-close').measured).toMatch(/0\.95, 8 of 10 crawls within ±20 %/);
    expect(byId(close, '000-docs-minutes-heuristic-underestimates').verdict).toBe('confirmed');
    const off = minutesClaims(result(est('datamonitor', 0.6, 0.8, 8), est('seed', 1.6, 0.2, 2)), 'test');
    expect(byId(off, '000-docs-minutes-estimator-close').verdict).toBe('refuted');
    expect(byId(off, '000-docs-minutes-heuristic-underestimates').verdict).toBe('refuted');
  });
});
