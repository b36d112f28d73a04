/**
 * The `quiet` strategy against every seed strategy (gold included) on the shared histories: micro F1
 * at its own setting, and recall at an equal number of downloads (its one aggressiveness parameter,
 * the interval factor c in interval = c/λ̂, bisected so that it downloads no more than the peer).
 * Tuned on tldr-pages and cmake-help; python-peps and schemaorg-terms are held out.
 * Run: node bin/run-ts.mjs bench/recrawl-quiet.bench.ts (writes bench/RECRAWL-QUIET.md)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BOUNDS } from '../src/schedule/bounds.ts';
import { SEED_STRATEGIES, strategies } from '../src/schedule/strategies/index.ts';
import { QUIET_OPTIONS } from '../src/schedule/strategies/quiet.ts';
import { rateStrategy } from '../src/schedule/strategies/rate.ts';
import { readHistories, report, simulate, type HistorySet, type Metrics } from '../src/lab/recrawl/index.ts';
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
const quietWith = (c: number) => rateStrategy({ ...QUIET_OPTIONS, intervalFactor: c });

/** quiet with the most downloads not above `target` found by bisection on log c (downloads fall as c grows, not strictly). */
function atDownloads(h: HistorySet, target: number): { c: number; m: Metrics } | undefined {
  let lo = Math.log(0.02);
  let hi = Math.log(50);
  let best: { c: number; m: Metrics } | undefined;
  for (let k = 0; k < 22; k++) {
    const mid = (lo + hi) / 2;
    const m = run(h, quietWith(Math.exp(mid)));
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
// week downloads 10–25× more than the others: 22 simulations at a 1-day interval over 11k documents is minutes, so it is left out of the equal-download comparison.
const PEERS = SEED_STRATEGIES.filter((s) => s !== 'week');
const out: string[] = [
  '## quiet vs the seed strategies (bench/recrawl-quiet.bench.ts)',
  '',
  'Micro F1 and recall, %. "F1 margin" = quiet − peer at quiet\'s own setting (c = 1). "Recall at equal downloads" = quiet with c bisected so it downloads no more than the peer, minus the peer\'s recall. week is left out of the equal-download column (10–25× more downloads; see the bench source).',
  '',
];
const t0 = performance.now();
for (const [file, role] of FILES) {
  const h = await readHistories([path.join(dir, `${file}.jsonl.gz`)]);
  const q = run(h, strategies.quiet!);
  out.push(`### ${file} (${role})`, '', `quiet: F1 ${pct(q.f1Micro)}, recall ${pct(q.recallMicro)}, precision ${pct(q.precisionMicro)}, ${q.downloads} downloads.`, '');
  out.push('| peer | peer F1 | F1 margin | peer recall | peer downloads | quiet c | quiet downloads | quiet recall | recall margin |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const name of [...SEED_STRATEGIES, 'poisson']) {
    const p = run(h, strategies[name]!);
    const eq = name === 'week' ? undefined : atDownloads(h, p.downloads);
    const eqCells = eq ? `${eq.c.toFixed(2)} | ${eq.m.downloads} | ${pct(eq.m.recallMicro)} | ${signed(eq.m.recallMicro - p.recallMicro)}` : '– | – | – | –';
    out.push(`| ${name} | ${pct(p.f1Micro)} | ${signed(q.f1Micro - p.f1Micro)} | ${pct(p.recallMicro)} | ${p.downloads} | ${eqCells} |`);
  }
  out.push('');
}
out.push(`(${PEERS.length + 1} equal-download searches per file; ${((performance.now() - t0) / 1000).toFixed(0)} s in all.)`);
const md = out.join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench/RECRAWL-QUIET.md'), md + '\n');
console.log(md);
