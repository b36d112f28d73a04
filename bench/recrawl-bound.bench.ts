/**
 * How far above `gold` can a re-crawl strategy get on the shared histories? gold is told each
 * document's true mean change interval; a live strategy knows only its URLs' past downloads. This
 * bench measures three things gold's margin is made of, each on every shared history file:
 *   1. gold's own ceiling: gold with its interval scaled by c (best c on a grid), still an oracle;
 *   2. the Bayes bound: a posterior over each URL's rate whose prior is the oracle's histogram of every
 *      document's true rate (src/lab/recrawl/oracle-bayes.ts): more than any live crawler knows about
 *      how rates are spread, used the Bayes-optimal way (best threshold and decay on a grid);
 *   3. bursts: gold plus a re-check Δ after every download that saw a change (best Δ);
 *   4. mass edits: gold plus a wake-up of a whole directory a delay after an edit touched most of it
 *      (src/lab/recrawl/oracle-wake.ts), edits and their times read from the future (best share and delay).
 * and, for reference, the live candidates (poisson, quiet, source) and how many of gold's downloads
 * the 6-month maximum interval forces.
 * Run: node bin/run-ts.mjs bench/recrawl-bound.bench.ts (writes bench/RECRAWL-BOUND.md)
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BOUNDS, clampInterval } from '../src/schedule/bounds.ts';
import { DAY } from '../src/schedule/types.ts';
import { strategies } from '../src/schedule/strategies/index.ts';
import { defineStrategy, type SteppedStrategy } from '../src/schedule/strategies/define.ts';
import { source } from '../src/schedule/strategies/source.ts';
import { readHistories, report, simulate, type HistorySet, type Metrics } from '../src/lab/recrawl/index.ts';
import { simulateOnline } from '../src/lab/recrawl/simulate-online.ts';
import { bayesStrategy, oracleLogPrior, rateGrid } from '../src/lab/recrawl/oracle-bayes.ts';
import { massEdits, simulateGoldWake } from '../src/lab/recrawl/oracle-wake.ts';

const repoRoot = path.resolve(import.meta.dirname, '..');
const dir = path.resolve(repoRoot, '../shared/data/histories');
const FILES = ['tldr-pages', 'cmake-help', 'python-peps', 'schemaorg-terms'];
if (!fs.existsSync(dir)) {
  console.log('## Re-crawl: how far above gold\n\nskipped: ../shared/data/histories is not here\n');
  process.exit(0);
}

const bounds = DEFAULT_BOUNDS;
const run = (h: HistorySet, s: SteppedStrategy<any>): Metrics => report(h, simulate(h, s, bounds)).overall;

/** gold with its interval × `factor`, and, after a download that saw a change, a re-check after `recheckMs` (0: none). */
function goldVariant(factor: number, recheckMs: number): SteppedStrategy<Record<string, never>> {
  return defineStrategy({
    name: `gold×${factor}${recheckMs ? `+${recheckMs / DAY}d` : ''}`,
    summary: 'lab: gold scaled, with an optional re-check after a change',
    initial: () => ({}),
    step: (_s, obs, ctx) => clampInterval(obs.changed && recheckMs > 0 ? Math.min(recheckMs, factor * ctx.trueMeanIntervalMs!) : factor * ctx.trueMeanIntervalMs!, ctx.bounds),
  });
}

/** Re-downloads the 6-month maximum forces on its own: one per full maximum interval of each lifetime. */
function forcedDownloads(h: HistorySet): number {
  let n = 0;
  for (let d = 0; d < h.created.length; d++) n += Math.floor((h.end[d]! - h.created[d]!) / bounds.maxIntervalMs);
  return n;
}

function best<T>(settings: T[], f: (s: T) => Metrics): { setting: T; m: Metrics } {
  let top: { setting: T; m: Metrics } | undefined;
  for (const s of settings) {
    const m = f(s);
    if (!top || m.f1Micro > top.m.f1Micro) top = { setting: s, m };
  }
  return top!;
}

const f1 = (m: Metrics) => (100 * m.f1Micro).toFixed(2);
const margin = (m: Metrics, g: Metrics) => `${m.f1Micro >= g.f1Micro ? '+' : ''}${(100 * (m.f1Micro - g.f1Micro)).toFixed(2)}`;

const t0 = performance.now();
const rows: string[] = [];
const rates = rateGrid();
for (const file of FILES) {
  const h = await readHistories([path.join(dir, `${file}.jsonl.gz`)]);
  const gold = run(h, strategies.gold!);
  const tuned = best([0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.15, 1.3, 1.5], (c) => run(h, goldVariant(c, 0)));
  const logPrior = oracleLogPrior(h, rates);
  const settings = [0.05, 0.1, 0.15, 0.2].flatMap((threshold) => [1, 0.9].map((decay) => ({ threshold, decay })));
  const bayes = best(settings, (s) => run(h, bayesStrategy({ rates, logPrior, bounds, ...s })));
  const burst = best([1, 3, 7, 14], (d) => run(h, goldVariant(1, d * DAY)));
  const wakeSettings = [0.5, 0.7, 0.9].flatMap((share) => [1, 3, 7].map((days) => ({ share, days })));
  const wake = best(wakeSettings, (w) => report(h, simulateGoldWake(h, massEdits(h, w.share, 3), w.days * DAY, bounds)).overall);
  const live = ['poisson', 'quiet'].map((n) => run(h, strategies[n]!));
  const src = report(h, simulateOnline(h, source, bounds)).overall;
  const forced = forcedDownloads(h);
  rows.push(
    `| ${file} | ${f1(gold)} | ${(100 * forced / gold.downloads).toFixed(1)} % | ${margin(tuned.m, gold)} (c = ${tuned.setting}) | ${margin(bayes.m, gold)} (τ = ${bayes.setting.threshold}, decay ${bayes.setting.decay}) | ${margin(burst.m, gold)} (Δ = ${burst.setting} d) | ${margin(wake.m, gold)} (≥ ${100 * wake.setting.share} %, ${wake.setting.days} d) | ${live.map((m) => margin(m, gold)).join(' | ')} | ${margin(src, gold)} |`,
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
