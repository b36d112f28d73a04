/**
 * Beyond the seed: candidate strategies against every seed strategy (gold included) on the shared
 * histories: micro F1 at the candidate's own setting, and recall at an equal number of downloads
 * (its one aggressiveness parameter, the interval factor c in interval = c/λ̂, bisected so that it
 * downloads no more than the peer). Tuned on tldr-pages and cmake-help; python-peps and
 * schemaorg-terms are held out. `source` runs in the online simulator (every document interleaved in
 * time, its source's tally from past downloads only); the peers in `simulate` (the same result).
 * Run: node bin/run-ts.mjs bench/recrawl-beyond.bench.ts [quiet|source] (writes bench/RECRAWL-BEYOND.md)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BOUNDS } from '../src/schedule/bounds.ts';
import { SEED_STRATEGIES, strategies } from '../src/schedule/strategies/index.ts';
import { QUIET_OPTIONS } from '../src/schedule/strategies/quiet.ts';
import { rateStrategy } from '../src/schedule/strategies/rate.ts';
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
  console.log('## Re-crawl beyond the seed\n\nskipped: ../shared/data/histories is not here\n');
  process.exit(0);
}

interface Candidate {
  name: string;
  /** Its interval factor at its own setting. */
  c0: number;
  run(h: HistorySet, c: number): Metrics;
  /** Peers besides the seed strategies. */
  peers: string[];
}

const simulated = (h: HistorySet, s: SteppedStrategy<any>): Metrics => report(h, simulate(h, s, DEFAULT_BOUNDS)).overall;

const CANDIDATES: Candidate[] = [
  { name: 'quiet', c0: QUIET_OPTIONS.intervalFactor, peers: ['poisson'], run: (h, c) => simulated(h, rateStrategy({ ...QUIET_OPTIONS, intervalFactor: c })) },
  {
    name: 'source', c0: SOURCE_OPTIONS.intervalFactor, peers: ['poisson', 'quiet'],
    run: (h, c) => report(h, simulateOnline(h, sourceStrategy({ ...SOURCE_OPTIONS, intervalFactor: c }), DEFAULT_BOUNDS)).overall,
  },
];

/** The candidate with the most downloads not above `target`, by bisection on log c (downloads fall as c grows, not strictly). */
function atDownloads(cand: Candidate, h: HistorySet, target: number): { c: number; m: Metrics } | undefined {
  let lo = Math.log(0.02);
  let hi = Math.log(50);
  let best: { c: number; m: Metrics } | undefined;
  for (let k = 0; k < 22; k++) {
    const mid = (lo + hi) / 2;
    const m = cand.run(h, Math.exp(mid));
    if (m.downloads > target) lo = mid;
    else {
      hi = mid;
      if (!best || m.downloads > best.m.downloads) best = { c: Math.exp(mid), m };
    }
  }
  return best;
}

const pct = (v: number) => (100 * v).toFixed(1);
const signed = (v: number, digits = 1) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(digits)}`;

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const out: string[] = ['## Re-crawl beyond the seed: candidates against every seed strategy, gold included', ''];
const t0 = performance.now();
for (const cand of CANDIDATES.filter((c) => wanted.length === 0 || wanted.includes(c.name))) {
  out.push(
    `### ${cand.name}`, '',
    `Micro F1 and recall, %. "F1 margin" = ${cand.name} − peer at its own setting (c = ${cand.c0}). "Recall margin" = ${cand.name} with c bisected so it downloads no more than the peer, minus the peer's recall. week is left out of the equal-download columns (10–25× more downloads: minutes of bisection). Margins against gold with two decimals: they are small.`, '',
  );
  for (const [file, role] of FILES) {
    const h = await readHistories([path.join(dir, `${file}.jsonl.gz`)]);
    const q = cand.run(h, cand.c0);
    out.push(`#### ${file} (${role})`, '', `${cand.name}: F1 ${pct(q.f1Micro)}, recall ${pct(q.recallMicro)}, precision ${pct(q.precisionMicro)}, ${q.downloads} downloads.`, '');
    out.push(`| peer | peer F1 | F1 margin | peer recall | peer downloads | ${cand.name} c | ${cand.name} downloads | ${cand.name} recall | recall margin |`, '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const name of [...SEED_STRATEGIES, ...cand.peers]) {
      const p = simulated(h, strategies[name]!);
      const digits = name === 'gold' ? 2 : 1;
      const eq = name === 'week' ? undefined : atDownloads(cand, h, p.downloads);
      const eqCells = eq ? `${eq.c.toFixed(2)} | ${eq.m.downloads} | ${pct(eq.m.recallMicro)} | ${signed(eq.m.recallMicro - p.recallMicro, digits)}` : '– | – | – | –';
      out.push(`| ${name} | ${pct(p.f1Micro)} | ${signed(q.f1Micro - p.f1Micro, digits)} | ${pct(p.recallMicro)} | ${p.downloads} | ${eqCells} |`);
    }
    out.push('');
  }
}
out.push(`(${((performance.now() - t0) / 1000).toFixed(0)} s in all.)`);
const md = out.join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench/RECRAWL-BEYOND.md'), md + '\n');
console.log(md);
