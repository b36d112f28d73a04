/**
 * Crawl-log size (issue #32, "a leaner archive"): bytes of meta.sqlite per crawl-log row and against the
 * WARC files, after a crawl of the realistic generated Linked Data site (src/testkit/linked-data-site.ts)
 * on 127.0.0.1 with politeness off, the same crawl as `datamonitor crawl --delay 0 --per-host 50
 * --concurrency 50`. Bytes do not depend on the machine's load, so this can run beside other work.
 * Where the bytes go comes from SQLite's dbstat table (each table and index) and from the lengths of the
 * crawl log's columns.
 *
 *   node bin/run-ts.mjs bench/log-size.bench.ts [--pages 20000] [--keep DIR]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { option } from './args.ts';
import { startLinkedDataSite } from '../src/testkit/linked-data-site.ts';
import { crawl } from '../src/crawler/crawl.ts';

const PAGES = Number(option('--pages') ?? 20_000);
const KEEP = option('--keep');

function filesBytes(dir: string, test: (name: string) => boolean): number {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && test(d.name))
    .reduce((n, d) => n + fs.statSync(path.join(d.parentPath, d.name)).size, 0);
}

const site = await startLinkedDataSite({ documents: PAGES, hosts: 10 });
const dataDir = KEEP ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dm-log-size-'));
try {
  const s = await crawl({
    seeds: [site.seed], dataDir, delayMs: 0, perHost: 50, concurrency: 50, robots: true,
    allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'], depth: 100_000,
  }).run();
  const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
  const rows = (db.prepare('SELECT COUNT(*) AS n FROM crawl_log').get() as { n: number }).n;
  const meta = filesBytes(dataDir, (n) => n.startsWith('meta.sqlite'));
  const warc = filesBytes(dataDir, (n) => n.includes('.warc'));
  const out: string[] = [];
  out.push(`## Crawl log size: ${PAGES.toLocaleString('en')}-document realistic site on 127.0.0.1, politeness off`, '');
  out.push(`Command: \`node bin/run-ts.mjs bench/log-size.bench.ts --pages ${PAGES}\` (bytes: the machine's load does not change them).`, '');
  out.push(`${s.documents.toLocaleString('en')} documents, ${rows.toLocaleString('en')} crawl-log rows: meta.sqlite ${meta.toLocaleString('en')} B (${(meta / rows).toFixed(0)} B a log row), WARC files ${warc.toLocaleString('en')} B; meta.sqlite is ${(meta / warc).toFixed(2)}× the WARC files.`, '');
  const logBytes = (db.prepare(`SELECT SUM(pgsize) AS b FROM dbstat WHERE name = 'crawl_log'
    OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'crawl_log')`).get() as { b: number }).b;
  out.push(`The crawl log (table and its indexes): ${logBytes.toLocaleString('en')} B, ${(logBytes / rows).toFixed(0)} B a row.`, '');
  out.push('| table or index | bytes | B a log row |', '|---|---:|---:|');
  for (const r of db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as { name: string; bytes: number }[]) {
    out.push(`| ${r.name} | ${r.bytes.toLocaleString('en')} | ${(r.bytes / rows).toFixed(0)} |`);
  }
  const cols = (db.prepare('SELECT name FROM pragma_table_info(?)').all('crawl_log') as { name: string }[]).map((c) => c.name);
  const sums = db.prepare(`SELECT ${cols.map((c) => `SUM(LENGTH(${c})) AS "${c}"`).join(', ')} FROM crawl_log`).get() as Record<string, number | null>;
  out.push('', '| crawl_log column | bytes (as text) | B a row |', '|---|---:|---:|');
  for (const c of cols.sort((a, b) => (sums[b] ?? 0) - (sums[a] ?? 0))) out.push(`| ${c} | ${(sums[c] ?? 0).toLocaleString('en')} | ${((sums[c] ?? 0) / rows).toFixed(0)} |`);
  if (cols.includes('header_set')) {
    const sets = db.prepare('SELECT COUNT(*) AS n, SUM(LENGTH(headers)) AS b FROM header_sets').get() as { n: number; b: number };
    out.push('', `header_sets: ${sets.n.toLocaleString('en')} distinct sets, ${(sets.b ?? 0).toLocaleString('en')} B`);
  }
  db.close();
  process.stdout.write(out.join('\n') + '\n');
} finally {
  await site.close();
  if (!KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
}
