/**
 * A real website crawled end to end: PostgreSQL 15's documentation (1,169 HTML pages, from
 * ../shared/data/sites), served on 127.0.0.1 as http://pg.local:PORT/, crawled with the seen-URL
 * trace written out, then the caching lab run on that trace (seed 002) next to the shared trace of
 * the same site. Peer in the same run: the same crawl with the seen test's trace off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { crawl } from '../src/crawler/crawl.ts';
import { startStaticSite } from '../src/testkit/static-site.ts';
import { postgresqlDocsMissing, unpackPostgresqlDocs } from '../src/testkit/postgresql-docs.ts';

const shared = path.resolve(import.meta.dirname, '../../shared/data');
const missing = postgresqlDocsMissing();
if (missing) {
  console.log(`## PostgreSQL documentation crawl\n\nskipped: ${missing}\n`);
  process.exit(0);
}
const docs = unpackPostgresqlDocs();
const root = docs.root;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgsite-'));
const site = await startStaticSite(root);
const seed = `http://pg.local:${site.port}/index.html`;
const trace = path.join(tmp, 'own.urltrace');
const t0 = performance.now();
const s = await crawl({
  seeds: [seed], dataDir: path.join(tmp, 'archive'), depth: 1000, delayMs: 0, perHost: 8, concurrency: 8,
  resolve: { 'pg.local': '127.0.0.1' }, allowPrivate: true, domains: ['pg.local'], vocabularies: false, traceOut: trace,
}).run();
const ms = performance.now() - t0;
await site.close();
const lines = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
const distinct = new Set(lines).size;
fs.mkdirSync(path.resolve(import.meta.dirname, 'out'), { recursive: true });
const gz = path.resolve(import.meta.dirname, 'out/pgsite-own.urltrace.gz');
fs.writeFileSync(gz, (await import('node:zlib')).gzipSync(lines.join('\n') + '\n'));
const lab = (file: string) => JSON.parse(execFileSync(process.execPath, [path.resolve(import.meta.dirname, '../bin/datamonitor.mjs'), 'lab', 'cache', '--trace', file, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
const own = lab(gz);
const theirs = lab(path.join(shared, 'traces/postgresql-doc-15.urltrace.gz'));
fs.rmSync(tmp, { recursive: true, force: true });
docs.remove();

console.log(`## PostgreSQL documentation crawl (real site, 127.0.0.1)\n`);
console.log(`${s.documents} pages, ${s.errors} errors, ${s.triples} triples in ${(ms / 1000).toFixed(1)} s (${((s.documents / ms) * 1000).toFixed(0)} pages/s, 8 connections, politeness off); trace of the seen test: ${lines.length} URLs, ${distinct} distinct.\n`);
console.log(`Miss ratio of the seen-URL cache on datamonitor's own trace and on the shared trace (seed 002):\n`);
/** Miss ratio (%) by cache size, one column per policy. */
function table(r: { sizes: number[]; curves: { policy: string; points: { size: number; missRatio: number }[] }[] }): string {
  const policies = r.curves.map((c) => c.policy);
  const rows = r.sizes.map((size) => `| ${size} | ${r.curves.map((c) => (100 * (c.points.find((p) => p.size === size)?.missRatio ?? NaN)).toFixed(1)).join(' | ')} |`);
  return [`| cache size | ${policies.join(' | ')} |`, `| ---: | ${policies.map(() => '---:').join(' | ')} |`, ...rows].join('\n');
}
for (const [name, r] of [['datamonitor\'s own crawl (breadth-first, HTML anchors and RDFa/HTML IRIs)', own], ['the shared trace (../shared/data/traces)', theirs]] as const) {
  console.log(`### ${name}: ${r.requests} URLs, ${r.distinct} distinct\n`);
  console.log(table(r) + '\n');
}
