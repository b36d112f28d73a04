/**
 * Seed 000's crawl-time experiment on a real website: PostgreSQL 15's documentation (1,169 pages from
 * ../shared/data/sites) served by 12 virtual hosts on 127.0.0.1 (server latency 10–200 ms each), 40 crawls of 1 to 12 hosts, each
 * estimated by seed 000's heuristic and by datamonitor's estimator before it runs (`lab crawltime`).
 * The peer is the seed's heuristic, measured on the same crawls.
 * Run: node bin/run-ts.mjs bench/crawltime.bench.ts (writes bench/CRAWLTIME.md and bench/crawltime-postgresql-doc-15.svg)
 */
import fs from 'node:fs';
import path from 'node:path';
import { crawlTimePlot, formatCrawlTimeReport, runCrawlTimeLab } from '../src/lab/crawltime/index.ts';
import { postgresqlDocsMissing, unpackPostgresqlDocs } from '../src/testkit/postgresql-docs.ts';

const missing = postgresqlDocsMissing();
if (missing) {
  console.log(`## Crawl-time estimation\n\nskipped: ${missing}\n`);
  process.exit(0);
}
const site = unpackPostgresqlDocs();
try {
  // Latencies and delays of a polite crawl of remote sites, scaled down: the network, not the parsing, sets the pace.
  const r = await runCrawlTimeLab({ siteDir: site.root, trials: 40, latencyMs: [10, 200], delaysMs: [0, 25, 50, 100], onProgress: (d, t) => process.stderr.write(`\rcrawl ${d}/${t}`) });
  process.stderr.write('\n');
  const plot = 'crawltime-postgresql-doc-15.svg';
  fs.writeFileSync(path.join(import.meta.dirname, plot), crawlTimePlot(r));
  const [seed, ours] = r.estimators;
  const md = [
    "## Crawl-time estimation (seed 000, section 5): seed 000's heuristic against datamonitor's estimator",
    '',
    `Site: PostgreSQL 15's documentation (usr/share/doc/postgresql-doc-15/html), the same pages on every virtual host, each host with its own server latency (10–200 ms).`,
    '',
    formatCrawlTimeReport({ ...r, site: 'usr/share/doc/postgresql-doc-15/html' }),
    '',
    `Mean |error|: datamonitor ${(100 * ours!.meanAbsError).toFixed(1)} %, seed 000's heuristic ${(100 * seed!.meanAbsError).toFixed(1)} % (${(seed!.meanAbsError / ours!.meanAbsError).toFixed(1)}× datamonitor's). Plot: [${plot}](${plot}). ${r.trials.length} crawls in ${r.seconds.toFixed(0)} s.`,
  ].join('\n');
  fs.writeFileSync(path.join(import.meta.dirname, 'CRAWLTIME.md'), md + '\n');
  console.log(md);
} finally {
  site.remove();
}
