/** `datamonitor lab ordering`: the URL-ordering lab of seed 001 (virtual crawls over a crawled repository). */
import { labCommand } from './lab.ts';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { isOrderingName, ORDERING_NAMES, type OrderingName } from '../../frontier/order/policy.ts';
import { loadArchiveGraph } from '../../lab/ordering/archive-graph.ts';
import { IMPORTANCE_NAMES, type HotRule, type ImportanceName } from '../../lab/ordering/importance.ts';
import { formatOrderingLab, MODEL_NAMES, orderingLabChart, runOrderingLab, type ModelName } from '../../lab/ordering/run.ts';
import { loadSiteGraph } from '../../lab/ordering/site-loader.ts';
import { summaryOf } from './index.ts';

/** The `lab` parent command, shared with the other labs: created by whichever registers first. */

interface Options {
  site?: string;
  base: string;
  start?: string;
  data?: string;
  query?: string;
  hot: string;
  top?: string;
  threshold?: string;
  model: string;
  buffer?: string;
  orderings?: string;
  seed: string;
  plot?: string;
  json?: boolean;
}

function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UserError(`${flag} must be one of ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function numberOption(flag: string, value: string, integer: boolean): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 1))) {
    throw new UserError(`${flag} must be ${integer ? 'a positive whole number' : 'a number'} (got "${value}")`);
  }
  return n;
}

function hotRule(opts: Options): HotRule | undefined {
  if (opts.top !== undefined && opts.threshold !== undefined) throw new UserError('give --top K or --threshold G, not both');
  if (opts.top !== undefined) return { top: numberOption('--top', opts.top, true) };
  if (opts.threshold !== undefined) return { threshold: numberOption('--threshold', opts.threshold, false) };
  return undefined;
}

function orderings(list: string | undefined): OrderingName[] | undefined {
  if (list === undefined) return undefined;
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) if (!isOrderingName(name)) throw new UserError(`--orderings: unknown ordering "${name}" (known: ${ORDERING_NAMES.join(', ')})`);
  if (names.length === 0) throw new UserError('--orderings needs at least one ordering');
  return names as OrderingName[];
}

async function run(opts: Options): Promise<void> {
  if ((opts.site === undefined) === (opts.data === undefined)) throw new UserError('give the repository as --site DIR (a directory of HTML files) or --data DIR (a crawl archive)');
  const hot = oneOf<ImportanceName>('--hot', opts.hot, IMPORTANCE_NAMES);
  const model = oneOf<ModelName>('--model', opts.model, MODEL_NAMES);
  if (opts.buffer !== undefined && model !== 'buffer' && model !== 'frontier') throw new UserError('--buffer only applies to --model buffer or frontier');
  const options = {
    hot,
    model,
    query: opts.query,
    rule: hotRule(opts),
    buffer: opts.buffer === undefined ? undefined : numberOption('--buffer', opts.buffer, true),
    orderings: orderings(opts.orderings),
    seed: numberOption('--seed', opts.seed, true),
  };
  if (process.stderr.isTTY && !opts.json) process.stderr.write('loading the repository…\n');
  const graph = opts.site !== undefined ? await loadSiteGraph(opts.site, { base: opts.base, start: opts.start }) : await loadArchiveGraph(opts.data!);
  const result = runOrderingLab(graph, options);
  if (opts.plot) await writeFile(opts.plot, orderingLabChart(result));
  if (opts.json) {
    process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    return;
  }
  process.stdout.write(formatOrderingLab(result) + '\n' + (opts.plot ? `Plot written to ${opts.plot}.\n` : ''));
}

export function register(program: Command): void {
  labCommand(program)
    .command('ordering')
    .description(summaryOf('lab ordering'))
    .option('--site <dir>', 'a directory of HTML files, read as the site served at --base')
    .option('--base <url>', 'the URL the --site directory is served at', 'http://site.local/')
    .option('--start <page>', 'the start page, relative to --base (default index.html)')
    .option('--data <dir>', 'a crawl archive')
    .option('--query <words>', 'the driving query (similarity ordering, --hot similarity, --hot keyword: a word in the title or more than 10 times in the body)')
    .option('--hot <metric>', `importance that makes a page hot: ${IMPORTANCE_NAMES.join('|')}`, 'backlink')
    .option('--top <K>', 'the K most important pages are hot (default: 10 % of the pages)')
    .option('--threshold <G>', 'pages with importance ≥ G are hot')
    .option('--model <model>', `${MODEL_NAMES.join('|')}`, 'threshold')
    .option('--buffer <B>', 'pages kept (--model buffer, the seed\'s limited buffer) or URLs in the frontier (--model frontier); default 10 % of the pages')
    .option('--orderings <list>', `orderings to compare (default: ${ORDERING_NAMES.join(',')})`)
    .option('--seed <n>', 'seed of the random ordering', '1')
    .option('--plot <file.svg>', 'write the curves as SVG')
    .option('--json', 'print the result as JSON on stdout')
    .action(run);
}
