/**
 * Seed 000's re-crawl experiment as a replication study (#15): the effect of every choice the seed
 * leaves open, the comparison at equal downloads (budget sweeps, Pareto fronts), leave-one-file-out
 * tuning of datamonitor's rate strategies with bootstrap intervals, and the claims' verdicts.
 * Writes bench/RECRAWL-REPLICATION.md and bench/recrawl-front-seed.svg.
 * Run: node bin/run-ts.mjs bench/recrawl-replication.bench.ts [--quick]
 * (--quick: python-peps and schemaorg-terms only, a smaller grid, 200 bootstrap samples.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { readHistories, type HistorySet } from '../src/lab/recrawl/index.ts';
import { PROTOCOLS } from '../src/lab/recrawl/protocol.ts';
import { budgetSweepChart, runBudgetSweep } from '../src/lab/recrawl/budget-sweep.ts';
import { formatFolds, leaveOneFileOut, rateGrid } from '../src/lab/recrawl/tuning.ts';
import { recrawlClaims } from '../src/lab/recrawl/claims.ts';
import { CHOICES, runChoices } from '../src/lab/recrawl/choices.ts';
import { stack } from '../src/plot/svg.ts';
import { strategies } from '../src/schedule/strategies/index.ts';

const quick = process.argv.includes('--quick');
fs.mkdirSync(path.resolve(import.meta.dirname, 'out'), { recursive: true });
const repoRoot = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(repoRoot, '../shared/data/histories');
if (!fs.existsSync(dir)) {
  console.error(`${dir} is absent: this benchmark needs the shared histories`);
  process.exit(1);
}
const NAMES = quick ? ['python-peps', 'schemaorg-terms'] : ['tldr-pages', 'python-peps', 'cmake-help', 'schemaorg-terms'];
const shared: Array<{ name: string; h: HistorySet }> = [];
for (const n of NAMES) shared.push({ name: n, h: await readHistories([path.join(dir, `${n}.jsonl.gz`)]) });
// The ChangeLog corpus (bench/data, made by bench/make-changelog-histories.ts) has documents in the faster
// bands; it joins the choices, sweeps and claims, not the tuning (held out over the four shared files).
const changelog = { name: 'changelogs', h: await readHistories([path.join(repoRoot, 'bench/data/changelog-histories.jsonl.gz')]) };
const files = quick ? shared : [...shared, changelog];
const started = performance.now();
const log = (s: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${s}\n`);
const f1 = (v: number) => (100 * v).toFixed(1);
const out: string[] = ['## Re-crawl lab as a replication study (seed 000, section 4; issue #15)', ''];
out.push(`Command: \`node bin/run-ts.mjs bench/recrawl-replication.bench.ts${quick ? ' --quick' : ''}\` (2 cores shared with other engineers' jobs; only counts, no timings, are reported). Files: ${NAMES.join(', ')}${quick ? '' : ', and changelogs (bench/data/changelog-histories.jsonl.gz, bench/data/CHANGELOG-HISTORIES.md)'}; the tuning uses the ${NAMES.length} shared files only.`, '');

// 1. The choices the seed leaves open, each measured against the seed protocol's default.
out.push('### 1. Choices the seed leaves open (micro F1 %, downloads in brackets; seed protocol unless said)', '');
out.push(`| choice | ${files.map((f) => f.name).join(' | ')} |`, `| --- | ${files.map(() => '---').join(' | ')} |`);
const choices = runChoices(files, log);
const seed = PROTOCOLS.seed;
for (const c of CHOICES) {
  const cells = files.map((f) => Object.entries(choices[c.key][f.name]!).map(([n, m]) => `${n} ${f1(m.f1Micro)} (${m.downloads})`).join('; '));
  out.push(`| ${c.label} | ${cells.join(' | ')} |`);
}
out.push('');

// 2. Equal downloads: budget sweeps under the seed protocol.
out.push('### 2. Recall at equal downloads (seed protocol; `datamonitor lab recrawl --protocol seed --budget-sweep`)', '');
out.push('Micro recall % of each strategy on its own swept front at multiples of gold\'s downloads (– : its sweep does not reach that budget); best live strategy in the last column (gold excluded from "best").', '');
const charts: ReturnType<typeof budgetSweepChart>[] = [];
const sweepNames = Object.keys(strategies);
for (const f of files) {
  log(`sweep ${f.name}`);
  const r = runBudgetSweep(f.h, { protocol: seed, strategies: sweepNames });
  charts.push(budgetSweepChart(r, f.name));
  out.push(`#### ${f.name} (${r.documents} documents, ${r.changes} changes in their 3 years)`, '');
  out.push(`| × gold | downloads | ${sweepNames.join(' | ')} | best live | best live (macro) |`, `| ---: | ---: | ${sweepNames.map(() => '---:').join(' | ')} | --- | --- |`);
  r.budgets.forEach((b, i) => {
    const liveBest = (rec: Record<string, number | null>) => Object.entries(rec).filter(([n, v]) => n !== 'gold' && v !== null).sort((a, c) => c[1]! - a[1]!)[0]?.[0] ?? '–';
    out.push(`| ${[1, 1.25, 1.5, 2, 3][i]} | ${b.downloads} | ${sweepNames.map((n) => (b.recall[n] === null ? '–' : f1(b.recall[n]!))).join(' | ')} | ${liveBest(b.recall)} | ${liveBest(b.recallMacro)} |`);
  });
  const bandBest = r.bands.map((b) => `${b.band} (${b.documents} docs): ${b.budgets.map((x) => x.best ?? '–').join('/')}`);
  out.push('', `Best strategy per band at 1/1.25/1.5/2/3 × the band's gold downloads: ${bandBest.join('; ')}.`, '');
}
fs.writeFileSync(path.join(repoRoot, quick ? 'bench/out/recrawl-front-seed-quick.svg' : 'bench/recrawl-front-seed.svg'), stack(charts));

// 3. Leave-one-file-out tuning, both protocols.
const grid = quick ? rateGrid().filter((c) => c.decay === 1) : rateGrid();
const samples = quick ? 200 : 1000;
const foldsBy: Record<string, ReturnType<typeof leaveOneFileOut>> = {};
for (const p of [PROTOCOLS.seed, PROTOCOLS.lab]) {
  log(`leave-one-file-out, protocol ${p.name}`);
  const folds = leaveOneFileOut(shared, { protocol: p, grid, samples });
  foldsBy[p.name] = folds;
  out.push(`### 3${p.name === 'seed' ? 'a' : 'b'}. Leave-one-file-out tuning of datamonitor's rate strategies (protocol ${p.name})`, '');
  out.push(`Grid (${grid.length} settings): decay 0.85/1 × prior none, 0.5 or 0.25 pseudo-change per 90 days × start 7 days or the maximum; the interval factor is swept (${'0.35–2.8'}), not tuned. Each file's setting is chosen on the other files by the mean micro-recall gap to the best live seed strategy at 1.25/1.5/2 × gold's downloads; differences on the held-out file with 95 % bootstrap intervals over its documents (${samples} resamples; the best seed strategy is picked on the full file).`, '');
  out.push(formatFolds(folds), '');
}

// 3c. The ChangeLog corpus as a fifth held-out file: the setting chosen on the four shared files.
if (!quick) {
  log('held-out changelogs');
  const fold = leaveOneFileOut([...shared, changelog], { protocol: PROTOCOLS.seed, grid, samples }).find((f) => f.heldOut === 'changelogs')!;
  out.push("### 3c. The ChangeLog corpus held out (protocol seed; tuned on the four shared files)", '', formatFolds([fold]), '');
}

// 4. Claims.
log('claims');
out.push('### 4. Claims and verdicts (seed protocol; src/lab/recrawl/claims.ts)', '');
out.push('| claim | says | measured | verdict |', '| --- | --- | --- | --- |');
for (const c of recrawlClaims(files, { protocol: seed, folds: foldsBy.seed, quick })) out.push(`| ${c.claim} | ${c.seedSays.replace(/\|/g, '/')} | ${c.measured.replace(/\|/g, '/')} | **${c.verdict}** |`);
const md = out.join('\n') + '\n';
fs.writeFileSync(path.join(repoRoot, quick ? 'bench/out/RECRAWL-REPLICATION-quick.md' : 'bench/RECRAWL-REPLICATION.md'), md);
console.log(md);
log('done');
