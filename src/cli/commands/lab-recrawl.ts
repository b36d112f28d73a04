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
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';

interface Options {
  histories?: string[];
  strategies?: string;
  plot?: string;
  json?: boolean;
  min?: string;
  max?: string;
  budget?: string;
  groups?: boolean;
  protocol: string;
  startInterval?: string;
  budgetSweep?: boolean;
  factors?: string;
}

export function register(program: Command): void {
  labCommand(program)
    .command('recrawl')
    .description(summaryOf('lab recrawl'))
    .option('--histories <file...>', 'history files, JSON Lines (.jsonl or .jsonl.gz)')
    .option('--strategies <list>', `comma-separated, default all: ${Object.keys(strategies).join(',')}`)
    .option('--protocol <name>', 'lab: whole histories; seed: seed 000\'s (3 years from creation, documents with >= 3 years, 1d to 6mo)', 'lab')
    .option('--start-interval <duration>', 'first interval of every adaptive strategy (default: each strategy\'s own: 1 week; quiet the maximum; nutch 30 days)')
    .option('--min <duration>', 'minimum crawl interval (default: the protocol\'s, 1d)')
    .option('--max <duration>', 'maximum crawl interval (default: the protocol\'s, 180d)')
    .option('--budget <n>', 'also run the budget strategy with n downloads per day')
    .option('--budget-sweep', 'sweep every strategy over its budget parameter and compare recall at equal downloads (Pareto front; micro, macro, per band)')
    .option('--factors <list>', 'with --budget-sweep: the factors c its parameter is multiplied by', SWEEP_FACTORS.join(','))
    .option('--plot <file.svg>', 'write recall/precision charts (overall and per group) as SVG')
    .option('--no-groups', 'print only the overall table')
    .option('--json', 'print the numbers as JSON')
    .action(async (o: Options) => {
      if (!o.histories?.length) throw new UserError('give at least one history file: --histories FILE.jsonl.gz (see ../shared/data/histories)');
      const protocol = getProtocol(o.protocol);
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
