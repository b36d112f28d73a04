import type { HistorySet } from './histories.ts';
import { fileLabel, inSample, inSampleNote } from './tuned-on.ts';
import { runRecrawlLab, type RecrawlLabResult } from './index.ts';
import { GROUPS } from './metrics.ts';
import { PROTOCOLS, type Protocol } from './protocol.ts';
import { leaveOneFileOut, rateGrid, type FoldResult, type TuningOptions } from './tuning.ts';
import { bootstrapRatio, bootstrapSums, direction, holmFamily } from '../stats.ts';
import { BAND_NEAR, judge, rule } from '../report/rules.ts';

export type Verdict = 'confirmed' | 'refuted' | 'mixed' | 'not testable here';

/** One claim of seed 000 (or of the project's docs) about re-crawl strategies, with the lab's numbers. */
export interface Claim {
  id: string;
  claim: string;
  /** Who makes it and what they say (a quote or a close paraphrase). */
  seedSays: string;
  /** The lab's figures, in words, file by file. */
  measured: string;
  verdict: Verdict;
  /** The same figures as data, for tables and plots. */
  numbers: Record<string, unknown>;
}

export interface ClaimsOptions {
  protocol?: Protocol;
  /** A smaller tuning grid and 200 bootstrap samples (CI); the verdicts use the same rules. */
  quick?: boolean;
  /** Folds already computed (leaveOneFileOut on the same files and protocol): not run again. */
  folds?: FoldResult[];
  onProgress?: (text: string) => void;
}

const SEED7 = ['fix', 'dyn', 'window', 'state-1', 'state-2', 'gold', 'week'];
const pct = (v: number) => (100 * v).toFixed(1);

/**
 * The band rule (src/lab/report/rules.ts): on each file with the seed's number of documents in the
 * band, the expected strategy is the closest seed strategy to gold and within BAND_NEAR of it.
 */
export function bandVerdict(id: string, expect: string[], per: Array<{ name: string; documents: number; closest: string; distance: number; expected: number }>): { measured: string; verdict: Verdict } {
  const r = rule(id);
  const most = Math.max(0, ...per.map((p) => p.documents));
  const testable = per.filter((p) => !r.gap({ bandDocuments: p.documents }));
  const holds = testable.filter((p) => expect.includes(p.closest) && p.distance <= BAND_NEAR).length;
  const measured = `${per.map((p) => `${p.name}: ${p.documents} documents, closest to gold ${p.closest} (${pct(p.distance)} points away; ${expect.join('/')} ${pct(p.expected)})`).join('; ')}; "close" is within ${pct(BAND_NEAR)} points of gold`;
  return judge(id, { bandDocuments: most }, measured, () => verdictOf(holds, testable.length));
}

/**
 * The held-out rule: every file × budget comparison of one protocol is one family, Holm-corrected;
 * a file holds when every budget compared has its corrected interval above zero. Budgets a curve
 * does not reach are named, with why, rather than dropped.
 */
export function heldOutVerdict(folds: FoldResult[]): { measured: string; verdict: Verdict } {
  const compared = folds.flatMap((f) => f.heldOutGaps.filter((g) => g.vsSeedBest).map((g) => ({ file: f.heldOut, g, i: g.vsSeedBest! })));
  const corrected = holmFamily(compared.map((c) => c.i));
  const per = folds.map((f) => {
    const mine = compared.map((c, k) => ({ ...c, c: corrected[k]! })).filter((c) => c.file === f.heldOut);
    return { file: f.heldOut, mine, missing: f.heldOutGaps.filter((g) => !g.vsSeedBest), holds: mine.length > 0 && mine.every((c) => direction(c.c) === 'above') };
  });
  const sign = (v: number) => `${v >= 0 ? '+' : ''}${pct(v)}`;
  const one = (x: (typeof per)[0]['mine'][0]) => `${x.g.multiple}× ${x.g.seedBest} ${sign(x.c.estimate)} [${pct(x.c.low)}, ${pct(x.c.high)}], corrected [${pct(x.c.corrected.low)}, ${pct(x.c.corrected.high)}]`;
  const testable = per.filter((p) => p.mine.length > 0);
  const measured = `${per.filter((p) => p.holds).length} of ${testable.length} held-out files with a comparison hold. Micro recall points vs the best seed strategy at each budget [95 % bootstrap CI over documents], then the interval Holm-corrected over the ${compared.length} comparisons of this protocol: ${per.map((p) => `${p.file}: ${[...p.mine.map(one), ...p.missing.map((g) => `${g.multiple}× not compared: ${g.unreached ?? 'a curve does not reach it'}`)].join(', ')}`).join('; ')}`;
  return judge('000-datamonitor-beats-seed-heldout', {}, measured, () => verdictOf(per.filter((p) => p.holds).length, testable.length));
}

/**
 * Seed 000's "week: best recall, worst precision" on one file, as comparisons with an interval:
 * week's micro recall minus each other seed strategy's, and each other's micro precision minus
 * week's, over documents resampled, the 12 Holm-corrected together; each must be above zero.
 */
export function weekExtremes(name: string, r: RecrawlLabResult): { name: string; recallFirst: boolean; precisionLast: boolean; text: string } {
  const run = (s: string) => r.runs![r.reports.findIndex((x) => x.strategy === s)]!;
  const changes = r.changesPerDocument!;
  const w = run('week');
  const others = SEED7.filter((s) => s !== 'week');
  const f64 = (a: Int32Array) => Float64Array.from(a);
  const recall = others.map((o) => bootstrapRatio(Float64Array.from(w.captured, (c, d) => c - run(o).captured[d]!), changes));
  const precision = others.map((o) => bootstrapSums([f64(run(o).captured), f64(run(o).downloads), f64(w.captured), f64(w.downloads)], (x) => (x[1]! > 0 ? x[0]! / x[1]! : 0) - (x[3]! > 0 ? x[2]! / x[3]! : 0), 1000, 1));
  const c = holmFamily([...recall, ...precision]);
  const rc = c.slice(0, others.length);
  const pc = c.slice(others.length);
  const closest = (xs: typeof c) => xs.reduce((a, b, i) => (b.corrected.low < xs[a]!.corrected.low ? i : a), 0);
  const say = (x: (typeof c)[0]) => `${x.estimate >= 0 ? '+' : ''}${pct(x.estimate)} [${pct(x.corrected.low)}, ${pct(x.corrected.high)}]`;
  const text = `recall − ${others[closest(rc)]} ${say(rc[closest(rc)]!)}, ${others[closest(pc)]}'s precision − week's ${say(pc[closest(pc)]!)}`;
  return { name, recallFirst: rc.every((x) => direction(x) === 'above'), precisionLast: pc.every((x) => direction(x) === 'above'), text };
}

const column = (r: RecrawlLabResult, s: string) => Float64Array.from(r.runs![r.reports.findIndex((x) => x.strategy === s)]!.captured);

/** The better of state-1/state-2 (chosen in each resample) against fix, dyn, window and gold in micro recall, Holm-corrected. */
export function stateAhead(r: RecrawlLabResult): { ahead: boolean; text: string } {
  const rest = ['fix', 'dyn', 'window', 'gold'];
  const family = holmFamily(rest.map((o) => bootstrapSums([column(r, 'state-1'), column(r, 'state-2'), column(r, o), r.changesPerDocument!], (x) => (x[3]! > 0 ? (Math.max(x[0]!, x[1]!) - x[2]!) / x[3]! : 0), 1000, 1)));
  const k = family.reduce((a, b, i) => (b.corrected.low < family[a]!.corrected.low ? i : a), 0);
  const c = family[k]!;
  return { ahead: family.every((x) => direction(x) === 'above'), text: `state-* − ${rest[k]} ${c.estimate >= 0 ? '+' : ''}${pct(c.estimate)} [${pct(c.corrected.low)}, ${pct(c.corrected.high)}]` };
}

/** The median of fix, dyn, state-1, state-2 and gold's micro recall minus window's, minus 10 points, over documents resampled. */
export function windowShortfall(r: RecrawlLabResult) {
  const others = ['fix', 'dyn', 'state-1', 'state-2', 'gold'];
  return bootstrapSums([column(r, 'window'), r.changesPerDocument!, ...others.map((o) => column(r, o))], (x) => {
    if (!(x[1]! > 0)) return 0;
    const rec = Array.from(x.subarray(2), (v) => v / x[1]!).sort((a, b) => a - b);
    return rec[Math.floor(rec.length / 2)]! - x[0]! / x[1]! - 0.1;
  }, 1000, 1);
}

function verdictOf(holds: number, of: number): Verdict {
  if (of === 0) return 'not testable here';
  return holds === of ? 'confirmed' : holds === 0 ? 'refuted' : 'mixed';
}

function rank(r: RecrawlLabResult, names: string[], key: 'recallMicro' | 'precisionMicro' | 'f1Micro'): string[] {
  const by = Object.fromEntries(r.reports.map((s) => [s.strategy, s.overall]));
  return [...names].sort((a, b) => by[b]![key] - by[a]![key]);
}

/**
 * Every claim about re-crawl strategies that docs/strategies.md and bench/RECRAWL*.md make or test,
 * measured on `files` (the shared histories) under `protocol` (default seed 000's). For `lab report`:
 * each entry says what the seed (or the docs) claim, what was measured, and a verdict.
 */
export function recrawlClaims(files: Array<{ name: string; h: HistorySet }>, o: ClaimsOptions = {}): Claim[] {
  const protocol = o.protocol ?? PROTOCOLS.seed;
  const runs = files.map((f) => {
    o.onProgress?.(`${f.name}: strategies under protocol ${protocol.name}`);
    return { name: f.name, r: runRecrawlLab(f.h, { protocol, keepRuns: true }) };
  });
  const claims: Claim[] = [];

  const week = runs.map(({ name, r }) => weekExtremes(name, r));
  const weekHolds = week.filter((w) => w.recallFirst && w.precisionLast).length;
  claims.push({
    id: 'week-extremes',
    claim: 'week has the best recall and the worst precision of the seed strategies',
    seedSays: 'seed 000, 4.3: "The week strategy performs overall the best in terms of recall and worst in terms of precision."',
    ...judge('000-week-best-recall-worst-precision', {}, `holds on ${weekHolds} of ${runs.length} files, each with week's recall above and precision below every other seed strategy's, 12 comparisons a file Holm-corrected (95 % intervals over documents; the closest of each kind shown): ${week.map((w) => `${w.name}: ${w.recallFirst && w.precisionLast ? 'yes' : 'no'} (${w.text})`).join('; ')}`, () => verdictOf(weekHolds, runs.length)),
    numbers: { files: week },
  });

  const state = runs.map(({ name, r }) => {
    const order = rank(r, SEED7, 'recallMicro').filter((s) => s !== 'week');
    return { name, order, stateRank: Math.min(order.indexOf('state-1'), order.indexOf('state-2')) + 1, ...stateAhead(r) };
  });
  const stateHolds = state.filter((s) => s.ahead).length;
  claims.push({
    id: 'state-second-recall',
    claim: 'state-1/state-2 are second in recall (after week)',
    seedSays: 'seed 000, 4.3: "the probabilistic strategies state-1 state-2 are the second best in terms of recall and second worst in terms of precision."',
    ...judge('000-state-second-recall', {}, `the better of state-1/state-2 ranks ${state.map((s) => `${s.stateRank} on ${s.name} (order ${s.order.join(' > ')}; ${s.text})`).join('; ')}; second needs its recall above each of fix, dyn, window, gold with a Holm-corrected 95 % interval over documents (the better state-* chosen in each resample)`, () => verdictOf(stateHolds, runs.length)),
    numbers: { files: state },
  });

  const win = runs.map(({ name, r }) => {
    const by = Object.fromEntries(r.reports.map((s) => [s.strategy, s.overall]));
    const others = SEED7.filter((s) => s !== 'window' && s !== 'week').map((s) => by[s]!.recallMicro).sort((a, b) => a - b);
    const median = others[Math.floor(others.length / 2)]!;
    return { name, recall: by.window!.recallMicro, medianOthers: median, gap: by.window!.recallMicro - median, interval: windowShortfall(r) };
  });
  // "Very low": more than 10 recall points under the median of the other adaptive seed strategies and gold, with the interval's whole width.
  const low = win.filter((w) => w.interval.low > 0).length;
  claims.push({
    id: 'window-low-recall',
    claim: "window's recall is very low (it should not be used)",
    seedSays: 'seed 000, 4.3: "the window strategy should not be considered due to its very low recall values."',
    ...judge('000-window-very-low-recall', {}, `window's micro recall − the median of fix, dyn, state-1, state-2, gold: ${win.map((w) => `${w.name} ${pct(w.recall)} % (${w.gap >= 0 ? '+' : ''}${pct(w.gap)} points; shortfall past 10 points, 95 % CI over documents [${pct(w.interval.low)}, ${pct(w.interval.high)}])`).join(', ')}; "very low" taken as more than 10 points under, the interval above it`, () => verdictOf(low, runs.length)),
    numbers: { files: win },
  });

  const live = ['fix', 'dyn', 'window', 'state-1', 'state-2', 'week', 'estimator', 'poisson', 'quiet', 'nutch'];
  const f1 = runs.map(({ name, r }) => ({ name, best: rank(r, live, 'f1Micro')[0]! }));
  // poisson's parameters were chosen on the shared files: only the others judge it.
  const judged = f1.filter((x) => !inSample(x.name, ['poisson']));
  const poissonBest = judged.filter((x) => x.best === 'poisson').length;
  claims.push({
    id: 'poisson-best-f1',
    claim: 'poisson has the best micro F1 of every strategy a live crawl can use',
    seedSays: 'docs/strategies.md before #15 (the recommendation); the seed never uses F1',
    measured: `best live strategy by micro F1: ${f1.map((x) => `${fileLabel(x.name, ['poisson'])} ${x.best}`).join(', ')}${inSampleNote(f1.map((x) => x.name), ['poisson'])}`,
    verdict: verdictOf(poissonBest, judged.length),
    numbers: { files: f1 },
  });

  // Figures 5 and 6: which strategy sits closest to gold in (recall, precision) within the band, and how close.
  const bandClaims = [
    { band: '2 days-1 week', id: '000-band-2d-1w-state-near-gold', expect: ['state-1', 'state-2'], says: 'seed 000, Figure 5: "The probabilistic strategies (state-*) are close to the performance of the actual change frequency (gold)"' },
    { band: '4-6 months', id: '000-band-4-6m-window-near-gold', expect: ['window'], says: 'seed 000, Figure 6: "the window strategy performs very similar to the actual change frequency, while the other strategies achieve a high recall but with low precision"' },
  ];
  for (const b of bandClaims) {
    const gi = GROUPS.findIndex((g) => g.label === b.band);
    const per = runs.map(({ name, r }) => {
      const at = (s: string) => r.reports.find((x) => x.strategy === s)!.groups[gi]!;
      const gold = at('gold');
      const dist = (s: string) => Math.hypot(at(s).recallMicro - gold.recallMicro, at(s).precisionMicro - gold.precisionMicro);
      const closest = SEED7.filter((s) => s !== 'gold' && s !== 'week').sort((x, y) => dist(x) - dist(y))[0]!;
      return { name, documents: gold.documents, closest, distance: dist(closest), expected: Math.min(...b.expect.map(dist)) };
    });
    claims.push({ id: `band-${b.band}`, claim: `documents changing every ${b.band}: ${b.expect.join('/')} closest to gold`, seedSays: b.says, ...bandVerdict(b.id, b.expect, per), numbers: { band: b.band, files: per } });
  }

  if (files.length >= 2) {
    const tuning: TuningOptions = { protocol, samples: o.quick ? 200 : 1000, onProgress: o.onProgress };
    if (o.quick) tuning.grid = rateGrid().filter((c) => c.decay === 1);
    const folds: FoldResult[] = o.folds ?? leaveOneFileOut(files, tuning);
    claims.push({
      id: 'datamonitor-beats-seed',
      claim: "a datamonitor strategy, tuned leaving the file out, beats the best live seed strategy at equal downloads (1.25, 1.5 and 2 × gold's) with a Holm-corrected 95 % interval above zero",
      seedSays: 'issue #15, "Done when"; the seed proposes state-* as the way forward',
      ...heldOutVerdict(folds),
      numbers: { folds },
    });
  }
  return claims;
}
