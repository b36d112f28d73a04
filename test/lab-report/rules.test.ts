import { describe, it, expect } from 'vitest';
import { bootstrapBestOf, bootstrapRatio, direction, holm, holmFamily } from '../../src/lab/stats.ts';
import { RULES, judge, rule } from '../../src/lab/report/rules.ts';
import { bandVerdict, heldOutVerdict, stateAhead, weekExtremes, windowShortfall } from '../../src/lab/recrawl/claims.ts';
import type { RecrawlLabResult } from '../../src/lab/recrawl/index.ts';
import type { FoldResult } from '../../src/lab/recrawl/tuning.ts';
import { earliest, orderingClaims } from '../../src/lab/report/providers/ordering.ts';
import { runOrderingLab } from '../../src/lab/ordering/run.ts';

const ones = (n: number) => new Float64Array(n).fill(1);
/** n units whose differences have mean `mean` and spread ±`spread` (alternating). */
const diffs = (n: number, mean: number, spread: number) => Float64Array.from({ length: n }, (_, i) => mean + (i % 2 ? spread : -spread));

describe('Holm', () => {
  it('steps down a known family: rejects while p ≤ α/(m − k), adjusted p is the running max of (m − k) p', () => {
    const h = holm([0.01, 0.04, 0.03, 0.005]);
    // Sorted: 0.005 ≤ 0.0125 yes, 0.01 ≤ 0.0167 yes, 0.03 ≤ 0.025 no: stop.
    expect(h.rejected).toEqual([true, false, false, true]);
    expect(h.adjusted[3]).toBeCloseTo(0.02, 12);
    expect(h.adjusted[0]).toBeCloseTo(0.03, 12);
    expect(h.adjusted[2]).toBeCloseTo(0.06, 12);
    expect(h.adjusted[1]).toBeCloseTo(0.06, 12); // max(0.06, 1 × 0.04)
    expect(h.level[3]).toBeCloseTo(0.0125, 12);
    expect(h.level[0]).toBeCloseTo(0.05 / 3, 12);
    expect(h.level[1]).toBeCloseTo(0.025, 12); // tested at the level where the procedure stopped
    expect(holm([0.2]).rejected).toEqual([false]);
    expect(holm([]).rejected).toEqual([]);
  });

  it('a difference whose 95 % interval excludes zero alone does not once corrected in a family of 15', () => {
    const n = 400;
    const weak = bootstrapRatio(diffs(n, 0.12, 1), ones(n)); // about 2.4 standard errors above zero
    expect(weak.low).toBeGreaterThan(0);
    const nulls = Array.from({ length: 14 }, (_, k) => bootstrapRatio(diffs(n, 0, 1), ones(n), 1000, k + 2));
    const family = holmFamily([weak, ...nulls]);
    expect(family[0]!.corrected.low).toBeLessThanOrEqual(0);
    expect(direction(family[0]!)).toBe('tie');
    expect(family[0]!.corrected.level).toBeGreaterThan(0.99);
    // A strong one survives the same correction.
    const strong = holmFamily([bootstrapRatio(diffs(n, 0.5, 1), ones(n)), ...nulls]);
    expect(direction(strong[0]!)).toBe('above');
    // The draws stay out of JSON.
    expect(Object.keys(JSON.parse(JSON.stringify(weak)))).toEqual(['estimate', 'low', 'high', 'p']);
  });
});

describe('the best peer chosen inside the bootstrap', () => {
  it('two peers as good as each other: the gap to "the best" carries which one is best', () => {
    const n = 400;
    const a = Float64Array.from({ length: n }, (_, i) => 5 + (i % 3));
    const b = Float64Array.from(a, (v, i) => v + (i % 2 ? 1 : -1)); // the same total, another spread
    const w = new Float64Array(n).fill(10);
    // Fixed on a (best on the whole sample by a hair or a tie), ours = a is a certain tie ...
    const fixed = bootstrapRatio(new Float64Array(n), w);
    expect([fixed.low, fixed.high]).toEqual([0, 0]);
    // ... re-chosen per resample, b is ahead in about half of them: the interval reaches below zero.
    const best = bootstrapBestOf(a, [a, b], w);
    expect(best.estimate).toBeCloseTo(0, 12);
    expect(best.low).toBeLessThan(0);
    expect(best.high).toBe(0);
    // One peer: the same draws as the paired ratio.
    const ours = Float64Array.from({ length: n }, (_, i) => i % 5);
    expect(bootstrapBestOf(ours, [a], w)).toEqual(bootstrapRatio(Float64Array.from(ours, (v, i) => v - a[i]!), w));
  });
});

describe('the rules module', () => {
  it('declares every rule with the seed setting beside what makes it testable', () => {
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULES.length);
    for (const r of RULES) for (const k of ['sentence', 'quantity', 'threshold', 'seedSetting', 'testableWhen'] as const) expect(r[k].length).toBeGreaterThan(5);
    expect(() => rule('no-such-claim')).toThrow();
  });

  it('a setting mismatch gives "not testable here" with the figures kept; the seed setting gives the verdict', () => {
    const small = judge('001-pagerank-best-backlink', { pages: 1169 }, 'curve means: pagerank 0.800', () => 'confirmed');
    expect(small.verdict).toBe('not testable here');
    expect(small.measured).toMatch(/^observed, not judged: curve means: pagerank 0\.800\. Not the seed's setting: the site has 1,169 pages/);
    expect(judge('001-pagerank-best-backlink', { pages: 180_000 }, 'x', () => 'confirmed').verdict).toBe('confirmed');
    expect(judge('002-clock-like-lru', { requests: 1_000_000, hosts: 1000, generated: true }, 'x', () => 'refuted').verdict).toBe('refuted');
    expect(judge('002-knee', { requests: 1_000_000, hosts: 1000, generated: true }, 'x', () => 'refuted').verdict).toBe('not testable here');
    expect(judge('000-heuristic-overestimates', { crawlSeconds: 49 }, 'x', () => 'refuted').verdict).toBe('not testable here');
    expect(judge('000-heuristic-overestimates', { crawlSeconds: 3600 }, 'x', () => 'refuted').verdict).toBe('refuted');
  });
});

describe("the band rule: '≈ gold' is a distance, not only a rank", () => {
  const per = (distance: number, documents = 400) => [{ name: 'f', documents, closest: 'window', distance, expected: distance }];
  it('window closest but 21 points from gold is not "very similar"; 3 points is; too few documents is not testable', () => {
    expect(bandVerdict('000-band-4-6m-window-near-gold', ['window'], per(0.21)).verdict).toBe('refuted');
    expect(bandVerdict('000-band-4-6m-window-near-gold', ['window'], per(0.03)).verdict).toBe('confirmed');
    const few = bandVerdict('000-band-4-6m-window-near-gold', ['window'], per(0.03, 120));
    expect(few.verdict).toBe('not testable here');
    expect(few.measured).toMatch(/observed, not judged: f: 120 documents.*about 300 per band/);
  });
});

describe('"week: best recall, worst precision" with intervals over documents', () => {
  const n = 200;
  const file = (fixCaptured: (d: number) => number) => {
    const names = ['fix', 'dyn', 'window', 'state-1', 'state-2', 'gold', 'week'];
    const sim = (s: string) => ({
      strategy: s,
      captured: Int32Array.from({ length: n }, (_, d) => (s === 'week' ? 8 + (d % 3) : s === 'fix' ? fixCaptured(d) : 4 + (d % 2))),
      downloads: Int32Array.from({ length: n }, (_, d) => (s === 'week' ? 100 : 10 + (d % 4))),
    });
    return { reports: names.map((strategy) => ({ strategy })), runs: names.map(sim), changesPerDocument: new Float64Array(n).fill(10) } as unknown as RecrawlLabResult;
  };
  it('holds when week leads every comparison; a strategy that ties week in recall breaks it', () => {
    const clear = weekExtremes('f', file((d) => 4 + (d % 2)));
    expect(clear.recallFirst && clear.precisionLast).toBe(true);
    const tied = weekExtremes('f', file((d) => 8 + (d % 3))); // fix catches what week catches, with fewer downloads
    expect(tied.recallFirst).toBe(false);
    expect(tied.precisionLast).toBe(true);
    expect(tied.text).toMatch(/recall − fix \+0\.0 \[0\.0, 0\.0\]/);
  });

  it('state-* second: the better state-* must beat fix, dyn, window and gold; window "very low" needs its shortfall past 10 points to be sure', () => {
    // Others catch 4–5 of 10 changes; state-1/state-2 as fix here (a tie), window 4–5 as well.
    const even = file((d) => 4 + (d % 2));
    expect(stateAhead(even).ahead).toBe(false);
    expect(windowShortfall(even).high).toBeLessThan(0); // window at the median: not 10 points under
    const ahead = { ...even, runs: even.runs!.map((x) => (x.strategy.startsWith('state') ? { ...x, captured: Int32Array.from(x.captured, (c) => c + 2) } : x.strategy === 'window' ? { ...x, captured: Int32Array.from(x.captured, () => 1) } : x)) } as RecrawlLabResult;
    expect(stateAhead(ahead).ahead).toBe(true);
    expect(windowShortfall(ahead).low).toBeGreaterThan(0); // window catches 1 of 10, the median of the rest 4–5
  });
});

describe('the held-out rule', () => {
  const n = 400;
  const gap = (multiple: number, i: ReturnType<typeof bootstrapRatio> | null, unreached?: string) => ({ downloads: 100 * multiple, multiple, seedBest: i ? 'window' : '', vsSeedBest: i, vsGold: null, ...(unreached ? { unreached } : {}) });
  const fold = (name: string, gaps: ReturnType<typeof gap>[]) => ({ heldOut: name, tunedOn: [], config: { decay: 1, priorChanges: 0, priorDays: 0, start: 7 }, configName: 'c', tuningObjective: 0, heldOutGaps: gaps }) as FoldResult;
  it('a gain significant alone but not after Holm over files × budgets does not confirm; an unreached budget is named', () => {
    const weak = bootstrapRatio(diffs(n, 0.12, 1), ones(n));
    const noise = (k: number) => bootstrapRatio(diffs(n, 0, 1), ones(n), 1000, k);
    const folds = [fold('a', [gap(1.25, weak), gap(1.5, null, 'no seed strategy reaches 150 downloads'), gap(2, weak)]), ...[1, 2, 3, 4].map((k) => fold(`f${k}`, [gap(1.25, noise(10 * k)), gap(1.5, noise(10 * k + 1)), gap(2, noise(10 * k + 2))]))];
    const v = heldOutVerdict(folds);
    expect(v.verdict).toBe('refuted');
    expect(v.measured).toMatch(/a: 1\.25× window \+12\.0 \[\d+\.\d, \d+\.\d\], corrected \[-/);
    expect(v.measured).toMatch(/1\.5× not compared: no seed strategy reaches 150 downloads/);
    // Alone, the same two comparisons pass.
    expect(heldOutVerdict([fold('a', [gap(1.25, weak), gap(2, weak)])]).verdict).toBe('confirmed');
  });
});

describe('"PageRank finds the hot pages earliest": a tie is not a win', () => {
  it('on a ring every ordering crawls the same order: zero difference, so not earliest (the old 0.005 tolerance confirmed it)', () => {
    const pages = Array.from({ length: 60 }, (_, i) => ({ url: `http://ring.test/${i}.html`, title: `Page ${i}`, text: 'w', links: [{ url: `http://ring.test/${(i + 1) % 60}.html` }] }));
    const r = runOrderingLab({ pages, start: pages[0]!.url }, { hot: 'backlink', model: 'threshold', orderings: ['bfs', 'backlink', 'pagerank', 'random'] });
    expect(new Set(r.orderings.map((o) => o.auc)).size).toBe(1);
    const e = earliest(r, 'pagerank');
    expect(e.holds).toBe(false);
    expect(e.text).toMatch(/backlink \+0\.000 \[0\.000, 0\.000\]/);
    // And the claim on a site of 60 pages is not the seed's 179,000-page setting.
    const { claims } = orderingClaims({ key: 'ring', label: 'ring', graph: { pages, start: pages[0]!.url }, words: ['vacuum'] });
    expect(claims.find((c) => c.id === '001-pagerank-best-backlink-10-ring')!.verdict).toBe('not testable here');
  });
});
