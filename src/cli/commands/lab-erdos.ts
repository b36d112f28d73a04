/** `datamonitor lab erdos`: seed 003's Erdős-number benchmark, query-driven against breadth-first crawling, then a re-crawl after the Web grew. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { erdosLabPlot, formatErdosLab, runErdosLab } from '../../lab/erdos/index.ts';
import { parseCount, parseDuration } from '../../util/units.ts';
import { UserError } from '../../util/errors.ts';
import { ProgressLine } from '../progress.ts';
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';

interface Flags {
  papers: string;
  hosts: string;
  fields: string;
  seed: string;
  grow?: string;
  perHost: string;
  delay: string;
  data?: string;
  plot?: string;
  json?: boolean;
}

export function register(program: Command): void {
  labCommand(program)
    .command('erdos')
    .description(summaryOf('lab erdos'))
    .option('--papers <n>', 'papers of the generated Web', '1000')
    .option('--hosts <n>', 'hosts the papers are spread over', '8')
    .option('--fields <n>', "research fields: co-authors within a field, citations across (Erdős's is the first)", '2')
    .option('--seed <n>', 'random seed (the same seed, the same Web)', '1')
    .option('--grow <n>', 'papers added before the re-crawl (default 2 % of --papers; 0: no re-crawl)')
    .option('--per-host <n>', 'requests in flight per host', '4')
    .option('--delay <duration>', 'time between two requests to a host (e.g. 20ms, 1s)', '0s')
    .option('--data <dir>', 'keep the archives in this new or empty directory (follow/, bfs/) for `query`, `diff`, `serve`; default: a temporary directory, removed')
    .option('--plot <file.svg>', 'write correct numbers against documents fetched, and the scores, as SVG')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (flags: Flags) => {
      const atLeast = (text: string, flag: string, min: number) => {
        const n = parseCount(text, flag);
        if (n < min) throw new UserError(`${flag} must be at least ${min}, got ${text}`);
        return n;
      };
      const options = {
        papers: atLeast(flags.papers, '--papers', 3),
        hosts: atLeast(flags.hosts, '--hosts', 1),
        fields: atLeast(flags.fields, '--fields', 1),
        seed: parseCount(flags.seed, '--seed'),
        grow: flags.grow === undefined ? undefined : parseCount(flags.grow, '--grow'),
        perHost: atLeast(flags.perHost, '--per-host', 1),
        delayMs: parseDuration(flags.delay, '--delay'),
        dataDir: flags.data,
      };
      const progress = new ProgressLine();
      const result = await runErdosLab({
        ...options,
        onProgress: (text) => progress.update(text),
        onPhase: (text) => {
          progress.done();
          process.stderr.write(`${text}\n`);
        },
      });
      progress.done();
      if (flags.plot) fs.writeFileSync(flags.plot, erdosLabPlot(result));
      if (flags.json) return void process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      process.stdout.write(`${formatErdosLab(result)}\n\nDone in ${result.seconds.toFixed(0)} s.${flags.plot ? ` Plot written to ${flags.plot}.` : ''}\n`);
    });
}
