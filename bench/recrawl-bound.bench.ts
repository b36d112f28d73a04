/**
 * How far above `gold` can a re-crawl strategy get on the shared histories? The oracles and the live
 * candidates are src/lab/recrawl/bound.ts (the lab report states the same numbers as claims,
 * src/lab/report/providers/recrawl-bound.ts); this bench runs it on every shared history file.
 * Run: node bin/run-ts.mjs bench/recrawl-bound.bench.ts (writes bench/RECRAWL-BOUND.md)
 */
import fs from 'node:fs';
import path from 'node:path';
import { readHistories } from '../src/lab/recrawl/index.ts';
import { goldBound, overGold } from '../src/lab/recrawl/bound.ts';
import type { Metrics } from '../src/lab/recrawl/metrics.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(repoRoot, '../shared/data/histories');
const FILES = ['tldr-pages', 'cmake-help', 'python-peps', 'schemaorg-terms'];
if (!fs.existsSync(dir)) {
  console.log('## Re-crawl: how far above gold\n\nskipped: ../shared/data/histories is not here\n');
  process.exit(0);
}

const t0 = performance.now();
const rows: string[] = [];
for (const file of FILES) {
  const b = goldBound(await readHistories([path.join(dir, `${file}.jsonl.gz`)]));
  const margin = (m: Metrics) => {
    const d = overGold(b, m);
    return `${d >= 0 ? '+' : ''}${d.toFixed(2)}`;
  };
  rows.push(
    `| ${file} | ${(100 * b.gold.f1Micro).toFixed(2)} | ${(100 * b.forcedShare).toFixed(1)} % | ${margin(b.goldFactor.m)} (c = ${b.goldFactor.setting}) | ${margin(b.bayes.m)} (τ = ${b.bayes.setting.threshold}, decay ${b.bayes.setting.decay}) | ${margin(b.burst.m)} (Δ = ${b.burst.setting} d) | ${margin(b.wake.m)} (≥ ${100 * b.wake.setting.share} %, ${b.wake.setting.days} d) | ${margin(b.live.poisson)} | ${margin(b.live.quiet)} | ${margin(b.live.source)} |`,
  );
}

const md = [
  '## Re-crawl: how far above gold a strategy can get',
  '',
  'Micro F1 % of gold, and every other column as F1 points above (+) or below (−) gold; oracle rows take their best setting on each file (a ceiling, not a tuned result). "Forced" = the re-downloads the 6-month maximum interval imposes on its own, as a share of gold\'s.',
  '',
  '| file | gold F1 | forced | gold, interval × c (oracle) | Bayes with the oracle\'s rate histogram as prior | gold + re-check Δ after a change | gold + wake a directory after a mass edit (share of it, delay) | poisson | quiet | source |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows,
  '',
  `(${((performance.now() - t0) / 1000).toFixed(0)} s in all.)`,
].join('\n');
fs.writeFileSync(path.join(repoRoot, 'bench/RECRAWL-BOUND.md'), md + '\n');
console.log(md);
