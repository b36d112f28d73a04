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
import { BEYOND_CANDIDATES, runBeyond } from '../src/lab/recrawl/beyond.ts';
import { readHistories } from '../src/lab/recrawl/index.ts';

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

const pct = (v: number) => (100 * v).toFixed(1);
const signed = (v: number, digits = 1) => `${v >= 0 ? '+' : ''}${(100 * v).toFixed(digits)}`;

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const out: string[] = ['## Re-crawl beyond the seed: candidates against every seed strategy, gold included', ''];
const t0 = performance.now();
for (const cand of BEYOND_CANDIDATES.filter((c) => wanted.length === 0 || wanted.includes(c.name))) {
  out.push(
    `### ${cand.name}`, '',
    `Micro F1 and recall, %. "F1 margin" = ${cand.name} − peer at its own setting (c = ${cand.c0}). "Recall margin" = ${cand.name} with c bisected so it downloads no more than the peer, minus the peer's recall. week is left out of the equal-download columns (10–25× more downloads: minutes of bisection). Margins against gold with two decimals: they are small. \`datamonitor lab report\` reruns this (src/lab/recrawl/beyond.ts) as claims \`000-docs-${cand.name}-*\`.`, '',
  );
  for (const [file, role] of FILES) {
    const h = await readHistories([path.join(dir, `${file}.jsonl.gz`)]);
    const { own: q, rows } = runBeyond(cand, h);
    out.push(`#### ${file} (${role})`, '', `${cand.name}: F1 ${pct(q.f1Micro)}, recall ${pct(q.recallMicro)}, precision ${pct(q.precisionMicro)}, ${q.downloads} downloads.`, '');
    out.push(`| peer | peer F1 | F1 margin | peer recall | peer downloads | ${cand.name} c | ${cand.name} downloads | ${cand.name} recall | recall margin |`, '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const { peer, peerMetrics: p, f1Margin, equal: eq } of rows) {
      const digits = peer === 'gold' ? 2 : 1;
      const eqCells = eq ? `${eq.c.toFixed(2)} | ${eq.m.downloads} | ${pct(eq.m.recallMicro)} | ${signed(eq.recallMargin, digits)}` : '– | – | – | –';
      out.push(`| ${peer} | ${pct(p.f1Micro)} | ${signed(f1Margin, digits)} | ${pct(p.recallMicro)} | ${p.downloads} | ${eqCells} |`);
    }
    out.push('');
  }
}
out.push(`(${((performance.now() - t0) / 1000).toFixed(0)} s in all.)`);
const md = out.join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench/RECRAWL-BEYOND.md'), md + '\n');
console.log(md);
