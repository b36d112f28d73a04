/** `datamonitor lab recrawl`: seed 000's re-crawl strategy evaluation over change histories. */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { OptionError, UserError } from '../../util/errors.ts';
import { budgetSweepSvg, formatBudgetSweep, runBudgetSweep } from '../../lab/recrawl/budget-sweep.ts';
import { SWEEP_FACTORS } from '../../lab/recrawl/sweep.ts';
import { checkBounds, parseDuration } from '../../schedule/bounds.ts';
import { strategies } from '../../schedule/strategies/index.ts';
import { formatRecrawlLab, getProtocol, readHistories, recrawlLabSvg, runRecrawlLab } from '../../lab/recrawl/index.ts';
import { ProgressLine } from '../progress.ts';
import path from 'node:path';
import { TUNING_FACTORS, formatFolds, leaveOneFileOut } from '../../lab/recrawl/tuning.ts';
import type { HistorySet } from '../../lab/recrawl/histories.ts';
import type { Protocol } from '../../lab/recrawl/protocol.ts';
import { heldOutFigure } from '../../lab/recrawl/held-out-plot.ts';
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';
import { PROTOCOLS } from '../../lab/recrawl/protocol.ts';
import { parseScenarios, SCENARIOS } from '../../lab/recrawl/notify-model.ts';
import { QUICK_FACTORS, runNotificationLab } from '../../lab/recrawl/notify-lab.ts';
import { formatNotificationLab, notificationLabSvg } from '../../lab/recrawl/notify-format.ts';

interface Options {
  histories?: string[];
  strategies?: string;
  plot?: string;
  json?: boolean;
  min?: string;
  max?: string;
  budget?: string;
  groups?: boolean;
  protocol?: string;
  startInterval?: string;
  budgetSweep?: boolean;
  heldOut?: boolean;
  factors?: string;
  notifications?: string | true;
  poll?: string;
  lag?: string;
  missingShare?: string;
  pageSize?: string;
  hosts?: string;
  seed?: string;
  samples?: string;
  quick?: boolean;
}

export function register(program: Command): void {
  labCommand(program)
    .command('recrawl')
    .description(summaryOf('lab recrawl'))
    .option('--histories <file...>', 'history files, JSON Lines (.jsonl or .jsonl.gz)')
    .option('--strategies <list>', `comma-separated, default all: ${Object.keys(strategies).join(',')}`)
    .option('--protocol <name>', 'lab: whole histories; seed: seed 000\'s (3 years from creation, documents with >= 3 years, 1d to 6mo); default lab (with --notifications: both)')
    .option('--start-interval <duration>', 'first interval of every adaptive strategy (default: each strategy\'s own: 1 week; quiet the maximum; nutch 30 days)')
    .option('--min <duration>', 'minimum crawl interval (default: the protocol\'s, 1d)')
    .option('--max <duration>', 'maximum crawl interval (default: the protocol\'s, 180d)')
    .option('--budget <n>', 'also run the budget strategy with n downloads per day')
    .option('--budget-sweep', 'sweep every strategy over its budget parameter and compare recall at equal downloads (Pareto front; micro, macro, per band)')
    .option('--held-out', "the lab report's held-out comparison: each --histories file in turn is scored with datamonitor's rate strategy tuned on the other files (decay, prior, start interval), against the best live seed strategy at 1.25, 1.5 and 2 x gold's downloads, with 95 % bootstrap intervals over its documents; give your own file with others to tune on, e.g. --histories mine.jsonl.gz ../shared/data/histories/*.jsonl.gz")
    .option('--factors <list>', `with --budget-sweep: the factors c its parameter is multiplied by (default ${SWEEP_FACTORS.join(',')}); with --held-out: the interval factors swept (default ${TUNING_FACTORS.join(',')})`)
    .option('--notifications [kinds]', `change notifications against the estimators at equal downloads, polls included: each --histories file under each kind (comma-separated, default all: ${SCENARIOS.join(',')}), notified and trust-lastmod against estimator, poisson, quiet and gold, both protocols unless --protocol, 95 % bootstrap intervals with Holm (docs/notifications.md)`)
    .option('--poll <duration>', 'with --notifications: how often a sitemap or stream is read (each read costs a download)', '7d')
    .option('--lag <duration>', 'with --notifications: how late a lagging sitemap shows a change', '7d')
    .option('--missing-share <x>', 'with --notifications: share of URLs a "missing" sitemap gives no lastmod', '0.5')
    .option('--page-size <n>', 'with --notifications: stream members per page (a page read is a download)', '100')
    .option('--hosts <n>', 'with --notifications: synthetic hosts each source is split into (mixed: at least 6)', '1')
    .option('--seed <n>', 'with --notifications: seed of the host split and of which URLs lack lastmod', '1')
    .option('--samples <n>', 'with --notifications: bootstrap samples', '1000')
    .option('--quick', `with --notifications: factors ${QUICK_FACTORS.join(',')}, 200 bootstrap samples, kinds none,honest,lying,mixed unless given`)
    .option('--plot <file.svg>', 'write recall/precision charts (overall and per group) as SVG')
    .option('--no-groups', 'print only the overall table')
    .option('--json', 'print the numbers as JSON')
    .action(async (o: Options) => {
      if ([o.heldOut, o.budgetSweep, o.notifications].filter(Boolean).length > 1) throw new UserError('--held-out, --budget-sweep and --notifications are different runs: give one');
      if (!o.histories?.length) throw new UserError('give at least one history file: --histories FILE.jsonl.gz (see ../shared/data/histories)');
      if (o.notifications) return notifications(o.histories, o);
      const protocol = getProtocol(o.protocol ?? 'lab');
      const bounds = checkBounds({
        minIntervalMs: o.min ? parseDuration(o.min, '--min') : protocol.bounds.minIntervalMs,
        maxIntervalMs: o.max ? parseDuration(o.max, '--max') : protocol.bounds.maxIntervalMs,
      });
      const startIntervalMs = o.startInterval ? parseDuration(o.startInterval, '--start-interval') : undefined;
      const names = o.strategies ? o.strategies.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      let budgetPerDay: number | undefined;
      if (o.budget !== undefined) {
        budgetPerDay = Number(o.budget);
        if (!(budgetPerDay > 0)) throw new UserError(`--budget must be a positive number of downloads per day (got "${o.budget}")`);
      }
      const factors = o.factors?.split(',').map((f) => Number(f.trim()));
      if (factors && !(factors.length && factors.every((f) => f > 0))) throw new OptionError('--factors', `must be a comma-separated list of positive numbers (got "${o.factors}")`);
      if (o.heldOut) {
        await heldOut(o.histories, { protocol, factors, json: o.json, plot: o.plot });
        return;
      }
      const progress = new ProgressLine();
      progress.update(`reading ${o.histories.length} file(s)`);
      const h = await readHistories(o.histories);
      if (h.ids.length === 0) throw new UserError(`no usable history in ${o.histories.join(', ')}: ${h.diagnostics[0] ?? 'empty'}`);
      if (o.budgetSweep) {
        const r = runBudgetSweep(h, { strategies: names, bounds, protocol, startIntervalMs, factors, onProgress: (t) => progress.update(t) });
        progress.done();
        if (o.plot) await writeFile(o.plot, budgetSweepSvg(r, `Equal downloads (${o.histories.map((f) => f.split('/').pop()).join(', ')})`));
        if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
        else process.stdout.write(formatBudgetSweep(r) + (o.plot ? `\nplot written to ${o.plot}` : '') + '\n');
        return;
      }
      const result = runRecrawlLab(h, { strategies: names, bounds, protocol, startIntervalMs, budgetPerDay, onProgress: (t) => progress.update(t) });
      progress.done();
      if (o.plot) await writeFile(o.plot, recrawlLabSvg(result, `Re-crawl strategies (${o.histories.map((f) => f.split('/').pop()).join(', ')})`));
      if (o.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      else {
        process.stdout.write(formatRecrawlLab(result, o.groups !== false) + '\n');
        if (o.plot) process.stdout.write(`plot written to ${o.plot}\n`);
      }
    });
}

/** Each history file read on its own, named by its base name (what the held-out and notification tables call it). */
async function readNamedHistories(files: string[], progress: ProgressLine): Promise<Array<{ name: string; h: HistorySet }>> {
  const sets: Array<{ name: string; h: HistorySet }> = [];
  for (const file of files) {
    progress.update(`reading ${file}`);
    const h = await readHistories([file]);
    if (h.ids.length === 0) throw new UserError(`no usable history in ${file}: ${h.diagnostics[0] ?? 'empty'}`);
    sets.push({ name: path.basename(file).replace(/\.jsonl(\.gz)?$/, ''), h });
  }
  return sets;
}

/** `--held-out`: leave-one-file-out tuning (src/lab/recrawl/tuning.ts), as `lab report`'s re-crawl section runs it. */
async function heldOut(files: string[], o: { protocol: Protocol; factors?: number[]; json?: boolean; plot?: string }): Promise<void> {
  if (files.length < 2) throw new UserError('--held-out tunes on the other files: give at least two --histories files (your own and, e.g., ../shared/data/histories/*.jsonl.gz)');
  const progress = new ProgressLine();
  const sets = await readNamedHistories(files, progress);
  if (new Set(sets.map((s) => s.name)).size < sets.length) throw new UserError('--held-out names each file by its base name: give files with different names');
  const folds = leaveOneFileOut(sets, { protocol: o.protocol, factors: o.factors, onProgress: (t) => progress.update(t) });
  progress.done();
  if (o.plot) await writeFile(o.plot, heldOutFigure(folds, o.protocol.name));
  if (o.json) process.stdout.write(JSON.stringify({ protocol: o.protocol.name, folds }, null, 2) + '\n');
  else process.stdout.write(`Protocol ${o.protocol.name}; recall points, 95 % bootstrap intervals over the held-out file's documents:\n${formatFolds(folds)}\n${o.plot ? `plot written to ${o.plot}\n` : ''}`);
}

/** `--notifications`: src/lab/recrawl/notify-lab.ts over each file, with a progress bar. */
async function notifications(files: string[], o: Options): Promise<void> {
  const count = (text: string | undefined, flag: string, min: number) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new OptionError(flag, `must be a whole number of at least ${min} (got "${text}")`);
    return n;
  };
  const share = Number(o.missingShare);
  if (!(share >= 0 && share <= 1)) throw new OptionError('--missing-share', `must be between 0 and 1 (got "${o.missingShare}")`);
  const model = {
    pollMs: parseDuration(o.poll ?? '7d', '--poll'),
    lagMs: parseDuration(o.lag ?? '7d', '--lag'),
    missingShare: share,
    pageSize: count(o.pageSize, '--page-size', 1),
    hosts: count(o.hosts, '--hosts', 1),
    seed: count(o.seed, '--seed', 0),
  };
  const scenarios = typeof o.notifications === 'string' ? parseScenarios(o.notifications) : o.quick ? parseScenarios('none,honest,lying,mixed') : undefined;
  const factors = o.factors ? o.factors.split(',').map((f) => Number(f.trim())) : o.quick ? QUICK_FACTORS : undefined;
  if (factors && !(factors.length && factors.every((f) => f > 0))) throw new OptionError('--factors', `must be a comma-separated list of positive numbers (got "${o.factors}")`);
  const samples = o.quick && o.samples === '1000' ? 200 : count(o.samples, '--samples', 10);
  const protocols = o.protocol ? [getProtocol(o.protocol)] : [PROTOCOLS.seed, PROTOCOLS.lab];
  const progress = new ProgressLine();
  const sets = await readNamedHistories(files, progress);
  const r = runNotificationLab(sets, { protocols, scenarios, factors, samples, model, onProgress: (done, total, text) => progress.update(`${ProgressLine.bar(done, total)} ${text}`) });
  progress.done();
  if (o.plot) await writeFile(o.plot, notificationLabSvg(r));
  if (o.json) process.stdout.write(JSON.stringify(r, null, 2) + '\n');
  else process.stdout.write(formatNotificationLab(r) + (o.plot ? `plot written to ${o.plot}\n` : ''));
}
