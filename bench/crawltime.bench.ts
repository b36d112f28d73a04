/**
 * Seed 000's crawl-time experiment on a real website: PostgreSQL 15's documentation (1,169 pages from
 * ../shared/data/sites) served by 12 virtual hosts on 127.0.0.1 (server latency 10–200 ms each), 40 crawls of 1 to 12 hosts, each
 * estimated by seed 000's heuristic and by datamonitor's estimator before it runs (`lab crawltime`).
 * The peer is the seed's heuristic, measured on the same crawls.
 * Run: node bin/run-ts.mjs bench/crawltime.bench.ts [--repeat 3] [--trials 40] (writes bench/CRAWLTIME.md and bench/crawltime-postgresql-doc-15.svg)
 * Crawls of minutes, as seed 000 timed them (its were 30 minutes to hours): add --minutes (polite delays
 * of 0.25–1 s, up to 400 URLs a host; one run, default 10 crawls; writes bench/CRAWLTIME-MINUTES.md).
 * Those crawls spend their time waiting on politeness, not computing, so the machine's load matters less.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crawlTimePlot, formatCrawlTimeReport, loadRange, runCrawlTimeLab, type CrawlTimeLabResult } from '../src/lab/crawltime/index.ts';
import { postgresqlDocsMissing, unpackPostgresqlDocs } from '../src/testkit/postgresql-docs.ts';
import { median } from '../src/util/stats.ts';

const missing = postgresqlDocsMissing();
if (missing) {
  console.log(`## Crawl-time estimation\n\nskipped: ${missing}\n`);
  process.exit(0);
}
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
// Repeated runs (different crawls each, seeds 1..N): one run's error is not the estimator's error on a shared machine.
const minutes = process.argv.includes('--minutes');
const repeat = arg('--repeat', minutes ? 1 : 3);
const trials = arg('--trials', minutes ? 10 : 40);
const scale = minutes ? { delaysMs: [250, 500, 1000], maxUrlsPerHost: 400 } : { delaysMs: [0, 25, 50, 100] };
const out = minutes ? { md: 'CRAWLTIME-MINUTES.md', svg: 'crawltime-minutes-postgresql-doc-15.svg' } : { md: 'CRAWLTIME.md', svg: 'crawltime-postgresql-doc-15.svg' };
const site = unpackPostgresqlDocs();
try {
  const runs: CrawlTimeLabResult[] = [];
  for (let k = 1; k <= repeat; k++) {
    // Latencies and delays of a polite crawl of remote sites, scaled down: the network, not the parsing, sets the pace.
    runs.push(await runCrawlTimeLab({ siteDir: site.root, trials, seed: k, latencyMs: [10, 200], ...scale, onProgress: (d, t) => process.stderr.write(`\rrun ${k}/${repeat}: crawl ${d}/${t}`) }));
  }
  process.stderr.write('\n');
  const r = runs[0]!;
  const plot = out.svg;
  fs.writeFileSync(path.join(import.meta.dirname, plot), crawlTimePlot(r));
  const pct = (v: number) => `${(100 * v).toFixed(0)} %`;
  const names = r.estimators.map((e) => e.name);
  const err = (name: string) => runs.map((x) => x.estimators.find((e) => e.name === name)!.meanAbsError);
  const ratio = (name: string) => runs.map((x) => x.estimators.find((e) => e.name === name)!.medianRatio);
  const under = (name: string) => runs.map((x) => x.estimators.find((e) => e.name === name)!.under);
  const md = [
    "## Crawl-time estimation (seed 000, section 5): seed 000's heuristic against datamonitor's estimator",
    '',
    `Command: \`node bin/run-ts.mjs bench/crawltime.bench.ts${minutes ? ' --minutes' : ''} --repeat ${repeat} --trials ${trials}\`. The machine (${os.cpus().length} cores) was shared with other engineers' jobs: each crawl records the 1-minute load average when it started, and the figures below vary with it. Site: PostgreSQL 15's documentation (usr/share/doc/postgresql-doc-15/html), the same pages on every virtual host, each host with its own server latency (10–200 ms).`,
    '',
    `### Over ${repeat} runs of ${trials} crawls each (seeds 1–${repeat}: different crawls)`,
    '',
    '| estimator | mean \\|error\\|: median over runs | range | median estimate ÷ actual: median (range) | crawls underestimated per run |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...names.map((n) => `| ${r.estimators.find((e) => e.name === n)!.label} | ${pct(median(err(n)))} | ${pct(Math.min(...err(n)))}–${pct(Math.max(...err(n)))} | ${median(ratio(n)).toFixed(2)} (${Math.min(...ratio(n)).toFixed(2)}–${Math.max(...ratio(n)).toFixed(2)}) | ${under(n).join(', ')} of ${trials} |`),
    '',
    '| run | load average at the crawls\' starts | ' + names.join(' | ') + ' |',
    '| ---: | --- | ' + names.map(() => '---:').join(' | ') + ' |',
    ...runs.map((x, i) => `| ${i + 1} | ${loadRange(x).replace(/^1-minute load average /, '').replace(/ at the crawls' starts.*/, '')} | ${names.map((n) => pct(x.estimators.find((e) => e.name === n)!.meanAbsError)).join(' | ')} |`),
    '',
    '### Run 1 in detail',
    '',
    formatCrawlTimeReport({ ...r, site: 'usr/share/doc/postgresql-doc-15/html' }),
    '',
    `Plot of run 1: [${plot}](${plot}). ${runs.length} runs in ${runs.reduce((a, x) => a + x.seconds, 0).toFixed(0)} s.`,
  ].join('\n');
  fs.writeFileSync(path.join(import.meta.dirname, out.md), md + '\n');
  console.log(md);
} finally {
  site.remove();
}
