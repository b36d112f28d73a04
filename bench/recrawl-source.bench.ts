/**
 * The `source` strategy (a prior per source, empirical Bayes) against every seed strategy (gold included)
 * and poisson/quiet on the shared histories: micro F1 at its own setting, and recall at an equal number
 * of downloads (its interval factor c in interval = c/λ̂ bisected so that it downloads no more than the
 * peer). `source` runs in the online simulator (every document interleaved in time, the source's tally
 * from past downloads only); the peers run in `simulate` (the online simulator gives them the same result).
 * Tuned on tldr-pages and cmake-help; python-peps and schemaorg-terms are held out.
 * Run: node bin/run-ts.mjs bench/recrawl-source.bench.ts (writes bench/RECRAWL-SOURCE.md)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BOUNDS } from '../src/schedule/bounds.ts';
import { SEED_STRATEGIES, strategies } from '../src/schedule/strategies/index.ts';
import { SOURCE_OPTIONS, sourceStrategy } from '../src/schedule/strategies/source.ts';
import { readHistories, report, simulate, type HistorySet, type Metrics } from '../src/lab/recrawl/index.ts';
import { simulateOnline } from '../src/lab/recrawl/simulate-online.ts';
import type { SteppedStrategy } from '../src/schedule/strategies/define.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(repoRoot, '../shared/data/histories');
const FILES: Array<[string, 'tuning' | 'held out']> = [
  ['tldr-pages', 'tuning'],
  ['cmake-help', 'tuning'],
  ['python-peps', 'held out'],
  ['schemaorg-terms', 'held out'],
];
if (!fs.existsSync(dir)) {
  console.error(`${dir} is absent: this benchmark needs the shared histories`);
  process.exit(1);
}

const run = (h: HistorySet, s: SteppedStrategy<any>): Metrics => report(h, simulate(h, s, DEFAULT_BOUNDS)).overall;
const runSource = (h: HistorySet, c: number): Metrics =>
  report(h, simulateOnline(h, sourceStrategy({ ...SOURCE_OPTIONS, intervalFactor: c }), DEFAULT_BOUNDS)).overall;

/** source with the most downloads not above `target`, by bisection on log c (downloads fall as c grows, not strictly). */
function atDownloads(h: HistorySet, target: number): { c: number; m: Metrics } | undefined {
  let lo = Math.log(0.02);
  let hi = Math.log(50);
  let best: { c: number; m: Metrics } | undefined;
  for (let k = 0; k < 22; k++) {
    const mid = (lo + hi) / 2;
    const m = runSource(h, Math.exp(mid));
    if (m.downloads > target) lo = mid;
    else {
      hi = mid;
      if (!best || m.downloads > best.m.downloads) best = { c: Math.exp(mid), m };
    }
  }
  return best;
}

const pct = (v: number) => (100 * v).toFixed(1);
const signed = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(1)}`;
const signed2 = (v: number) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(2)}`;
const c0 = SOURCE_OPTIONS.intervalFactor;
const out: string[] = [
  '## source (a prior per source) vs the seed strategies (bench/recrawl-source.bench.ts)',
  '',
  `Micro F1 and recall, %. "F1 margin" = source − peer at source's own setting (c = ${c0}). "Recall at equal downloads" = source with c bisected so it downloads no more than the peer, minus the peer's recall. week is left out of the equal-download column (10–25× more downloads). Margins against gold with two decimals: they are small.`,
  '',
];
const t0 = performance.now();
for (const [file, role] of FILES) {
  const h = await readHistories([path.join(dir, `${file}.jsonl.gz`)]);
  const q = runSource(h, c0);
  out.push(`### ${file} (${role})`, '', `source: F1 ${pct(q.f1Micro)}, recall ${pct(q.recallMicro)}, precision ${pct(q.precisionMicro)}, ${q.downloads} downloads.`, '');
  out.push('| peer | peer F1 | F1 margin | peer recall | peer downloads | source c | source downloads | source recall | recall margin |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const name of [...SEED_STRATEGIES, 'poisson', 'quiet']) {
    const p = run(h, strategies[name]!);
    const eq = name === 'week' ? undefined : atDownloads(h, p.downloads);
    const fmt = name === 'gold' ? signed2 : signed;
    const eqCells = eq ? `${eq.c.toFixed(2)} | ${eq.m.downloads} | ${pct(eq.m.recallMicro)} | ${fmt(eq.m.recallMicro - p.recallMicro)}` : '– | – | – | –';
    out.push(`| ${name} | ${pct(p.f1Micro)} | ${fmt(q.f1Micro - p.f1Micro)} | ${pct(p.recallMicro)} | ${p.downloads} | ${eqCells} |`);
  }
  out.push('');
}
out.push(`(${((performance.now() - t0) / 1000).toFixed(0)} s in all.)`);
const md = out.join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench/RECRAWL-SOURCE.md'), md + '\n');
console.log(md);
