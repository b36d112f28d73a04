/**
 * Seed 000's crawl-time experiment on a real website: PostgreSQL 15's documentation (1,169 pages from
 * ../shared/data/sites) served by 12 virtual hosts on 127.0.0.1 (server latency 10–200 ms each), 40 crawls of 1 to 12 hosts, each
 * estimated by seed 000's heuristic and by datamonitor's estimator before it runs (`lab crawltime`).
 * The peer is the seed's heuristic, measured on the same crawls.
 * Run: node bin/run-ts.mjs bench/crawltime.bench.ts (writes bench/CRAWLTIME.md and bench/crawltime-postgresql-doc-15.svg)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { crawlTimePlot, formatCrawlTimeReport, runCrawlTimeLab } from '../src/lab/crawltime/index.ts';

const shared = path.resolve(import.meta.dirname, '../../shared/data');
const deb = path.join(shared, 'sites/postgresql-doc-15_15.20-0+deb12u1_all.deb');
if (!fs.existsSync(deb)) {
  console.log('## Crawl-time estimation\n\nskipped: ../shared/data is not here\n');
  process.exit(0);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-crawltime-bench-'));
try {
  execFileSync('dpkg-deb', ['-x', deb, tmp]);
  const root = path.join(tmp, 'usr/share/doc/postgresql-doc-15/html');
  // Latencies and delays of a polite crawl of remote sites, scaled down: the network, not the parsing, sets the pace.
  const r = await runCrawlTimeLab({ siteDir: root, trials: 40, latencyMs: [10, 200], delaysMs: [0, 25, 50, 100], onProgress: (d, t) => process.stderr.write(`\rcrawl ${d}/${t}`) });
  process.stderr.write('\n');
  const plot = 'crawltime-postgresql-doc-15.svg';
  fs.writeFileSync(path.join(import.meta.dirname, plot), crawlTimePlot(r));
  const [seed, ours] = r.estimators;
  const md = [
    "## Crawl-time estimation (seed 000, section 5): seed 000's heuristic against datamonitor's estimator",
    '',
    `Site: PostgreSQL 15's documentation (${r.site.replace(tmp, '…')}), the same pages on every virtual host, each host with its own server latency (10–200 ms).`,
    '',
    formatCrawlTimeReport(r).replace(tmp, '…'),
    '',
    `Mean |error|: datamonitor ${(100 * ours!.meanAbsError).toFixed(1)} %, seed 000's heuristic ${(100 * seed!.meanAbsError).toFixed(1)} % (${(seed!.meanAbsError / ours!.meanAbsError).toFixed(1)}× datamonitor's). Plot: [${plot}](${plot}). ${r.trials.length} crawls in ${r.seconds.toFixed(0)} s.`,
  ].join('\n');
  fs.writeFileSync(path.join(import.meta.dirname, 'CRAWLTIME.md'), md + '\n');
  console.log(md);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
