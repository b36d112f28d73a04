/** `datamonitor lab crawltime`: seed 000's crawl-time estimation experiment, both estimators against real crawls. */
import fs from 'node:fs';
import type { Command } from 'commander';
import { crawlTimePlot, formatCrawlTimeReport, runCrawlTimeLab } from '../../lab/crawltime/index.ts';
import { parseCount } from '../../util/units.ts';
import { UserError } from '../../util/errors.ts';
import { ProgressLine } from '../progress.ts';
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  labCommand(program)
    .command('crawltime')
    .description(summaryOf('lab crawltime'))
    .option('--site <dir>', 'serve the files of this directory on every host (e.g. an unpacked website); default: generated Turtle pages')
    .option('--trials <n>', 'crawls to estimate and run', '40')
    .option('--hosts <n>', 'virtual hosts', '12')
    .option('--concurrency <n>', "fetch slots of the crawler (the estimators' threads)", '8')
    .option('--seed <n>', 'random seed (the same seed, the same crawls)', '1')
    .option('--delays <ms,…>', 'politeness delays, one picked per crawl (e.g. 500,1000,2000 for crawls of minutes, as seed 000 timed)', '0,10,25,50')
    .option('--max-urls-per-host <n>', 'most URLs a crawl takes of one host', '60')
    .option('--plot <file.svg>', 'write the estimate ÷ actual scatter and the Table 3 errors as SVG')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (opts: { site?: string; trials: string; hosts: string; concurrency: string; seed: string; delays: string; maxUrlsPerHost: string; plot?: string; json?: boolean }) => {
      const atLeastOne = (text: string, flag: string) => {
        const n = parseCount(text, flag);
        if (n < 1) throw new UserError(`${flag} must be at least 1, got ${text}`);
        return n;
      };
      const trials = atLeastOne(opts.trials, '--trials');
      const hosts = atLeastOne(opts.hosts, '--hosts');
      const concurrency = atLeastOne(opts.concurrency, '--concurrency');
      const maxUrlsPerHost = atLeastOne(opts.maxUrlsPerHost, '--max-urls-per-host');
      const delaysMs = opts.delays.split(',').map((d) => parseCount(d.trim(), '--delays'));
      const progress = new ProgressLine();
      const result = await runCrawlTimeLab({
        siteDir: opts.site,
        trials,
        hosts,
        concurrency,
        delaysMs,
        maxUrlsPerHost,
        seed: parseCount(opts.seed, '--seed'),
        onProgress: (done, total) => progress.update(`crawling ${ProgressLine.bar(done, total)}`),
      });
      progress.done();
      if (opts.plot) fs.writeFileSync(opts.plot, crawlTimePlot(result));
      if (opts.json) return void process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      process.stdout.write(`${formatCrawlTimeReport(result)}\n\n${result.trials.length} crawls in ${result.seconds.toFixed(0)} s.${opts.plot ? ` Plot written to ${opts.plot}.` : ''}\n`);
    });
}
