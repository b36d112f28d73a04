/** `datamonitor lab cache`: the caching lab of seed 002 (miss ratio against cache size per policy). */
import type { Command } from 'commander';
import { formatCacheTable, parsePolicies, parseSizes, runCacheLab, COUNTING_NOTE } from '../../lab/cache/index.ts';
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  labCommand(program)
    .command('cache')
    .description(summaryOf('lab cache'))
    .requiredOption('--trace <file>', 'URL trace, one URL a line, plain or gzip (e.g. from crawl --trace-out)')
    .option('--sizes <list>', 'cache sizes: "1,8,64", a range of powers of two "1-65536" or "2^0-2^19" (default: powers of two up to the number of distinct URLs)')
    .option('--policies <list>', 'policies to simulate (default: random,static,lru,clock,min,infinite)')
    .option('--plot <file.svg>', 'write the miss-ratio curves as SVG')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (opts: { trace: string; sizes?: string; policies?: string; plot?: string; json?: boolean }) => {
      const sizes = opts.sizes ? parseSizes(opts.sizes) : undefined;
      const policies = opts.policies ? parsePolicies(opts.policies) : undefined;
      const showProgress = process.stderr.isTTY === true && !opts.json;
      const result = await runCacheLab({
        trace: opts.trace,
        sizes,
        policies,
        plot: opts.plot,
        onProgress: showProgress ? (done, total) => process.stderr.write(`\rsimulating ${done}/${total}`) : undefined,
      });
      if (showProgress) process.stderr.write('\n');
      if (opts.json) {
        process.stdout.write(JSON.stringify(result, null, 2) + '\n');
        return;
      }
      const lines = [
        `trace ${result.trace}: ${result.requests} requests, ${result.distinct} distinct URLs (infinite-cache miss ratio ${(result.distinct / result.requests).toFixed(4)})`,
        '',
        formatCacheTable(result),
        '',
        `Counting: ${COUNTING_NOTE}.`,
        `${result.sizes.length} sizes × ${result.curves.length} policies in ${result.seconds.toFixed(1)} s.`,
      ];
      if (result.plot) lines.push(`Plot written to ${result.plot}.`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
