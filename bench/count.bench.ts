/**
 * COUNT queries on a big archive, through `datamonitor query` as a user types them: what a process pays for
 * the count planner's term check (src/query/plan/count.ts sameTerms: which literal terms the engine holds as
 * one) when the store holds no saved check — every process paid that before the check was kept in the store
 * (src/query/term-check-memo.ts) — against a process that goes on from the saved check, in the same run, on
 * the same archive. The saved check is forgotten (its tables emptied, as a store from before them) before each
 * "no saved check" run; the answers of every run must be equal.
 *
 * The archive is src/testkit/scale-archive.ts's (the generated Linked Data Web as a crawl leaves it, a second
 * version of every tenth document), indexed by the first query. With --db the versioned index is the one in
 * that PostgreSQL schema (filled beforehand, e.g. by bench/scale-run.bench.ts's children).
 *
 * Run: node bin/run-ts.mjs bench/count.bench.ts [--quick] [--docs N] [--data DIR] [--db postgres://…?schema=S] [--runs N]
 *   default 100,000 documents; --quick 10,000; --data: an archive built by an earlier run (kept).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { runOnStore } from '../src/testkit/store-sql.ts';
import { CHECK_INEXACT, CHECKED_AFTER } from '../src/versions/term-check-memo.ts';
import { COUNT_TOTALS_KEY } from '../src/versions/count-totals.ts';
import { openVersionStore, PgVersionArchive } from '../src/query/index.ts';
import { sameTerms } from '../src/query/plan/count.ts';
import { option, QUICK } from './args.ts';
import { runCli, type CliRun } from './cli-run.ts';
import { median } from '../src/util/stats.ts';

const DOCS = Number(option('--docs') ?? (QUICK ? 10_000 : 100_000));
const RUNS = Number(option('--runs') ?? (QUICK ? 3 : 5));
const DB = option('--db');
const given = option('--data');
const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dm-count-'));
if (!given) process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

/** The scale archive's versions are from 2026-01; its revisions a month later. */
const PAST = '2026-01-20T00:00:00Z';
const QUERIES: Array<{ name: string; sparql: string; at?: string }> = [
  { name: 'a predicate no document has', sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://nothing.test/p> ?o }' },
  { name: 'every rdfs:label', sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?o }' },
  { name: 'every triple', sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }' },
  { name: `every triple at ${PAST.slice(0, 10)}`, sparql: 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', at: PAST },
];

const store = DB ? ['--db', DB] : [];
const query = (sparql: string, at?: string) => runCli(['query', '--data', dir, ...store, ...(at ? ['--at', at] : []), '--json', sparql]);

/** The versioned store's database: the PostgreSQL schema, else the SQLite file. */
const versionsDb = DB ?? path.join(dir, 'versions.sqlite');

/** Empties the saved term check, as in a store written before it was kept. */
async function forgetCheck(): Promise<void> {
  await runOnStore(versionsDb, DB
    ? ['TRUNCATE vs_term_forms, vs_term_classes', ['DELETE FROM vs_meta WHERE key = ANY($1)', [[CHECKED_AFTER, CHECK_INEXACT]]]]
    : [['DELETE FROM meta WHERE key IN (?, ?)', [CHECKED_AFTER, CHECK_INEXACT]], 'DELETE FROM term_forms; DELETE FROM term_classes;']);
}

if (!DB && (!given || !fs.existsSync(path.join(dir, 'meta.sqlite')))) {
  const t = performance.now();
  await buildScaleArchive({ dataDir: dir, documents: DOCS, hosts: 20, onProgress: (n) => process.stderr.write(`\rbuilding: ${n} documents`) });
  process.stderr.write(`\nbuilt ${DOCS} documents in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
}
const index = await query('ASK { <http://nothing.test/s> ?p ?o }');
if (index.code !== 0) throw new Error(`index catch-up: exit ${index.code}: ${index.stderr.slice(-300)}`);
process.stderr.write(`index caught up in ${(index.ms / 1000).toFixed(1)} s\n`);

/** The count a run gave; undefined for a run that failed (reported beside the figures, not hidden). */
const answer = (r: CliRun): string | undefined =>
  r.code === 0 ? (JSON.parse(r.stdout) as { results: { bindings: Array<{ n: { value: string } }> } }).results.bindings[0]!.n.value : undefined;
const failure = (r: CliRun) => `exit ${r.code}: ${r.stderr.split('\n').find((l) => /Fatal error|datamonitor:|Error/.test(l))?.trim().slice(0, 80) ?? ''}`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

const rows: string[] = [];
for (const q of QUERIES) {
  process.stderr.write(`${q.name}\n`);
  const fresh: CliRun[] = [];
  const resumed: CliRun[] = [];
  // Alternated, so that both meet the same machine: forget, count (checks every term and saves), count again.
  for (let i = 0; i < RUNS; i++) {
    await forgetCheck();
    fresh.push(await query(q.sparql, q.at));
    resumed.push(await query(q.sparql, q.at));
  }
  const failed = [...fresh, ...resumed].filter((r) => r.code !== 0);
  for (const r of failed) process.stderr.write(`  ${failure(r)}\n${r.stderr.slice(-1500)}\n`);
  const answers = new Set([...fresh, ...resumed].map(answer).filter((a) => a !== undefined));
  const ok = (rs: CliRun[]) => rs.filter((r) => r.code === 0);
  const cell = (rs: CliRun[]) => ok(rs).length === 0 ? 'every run failed | | ' :
    `${s(median(ok(rs).map((r) => r.ms)))} | ${s(median(ok(rs).map((r) => r.cpuMs)))} | ${mb(Math.max(...ok(rs).map((r) => r.peakRss)))}`;
  const ratio = median(ok(resumed).map((r) => r.cpuMs)) / median(ok(fresh).map((r) => r.cpuMs));
  const failures = failed.length ? ` (${failed.length} of ${2 * RUNS} runs failed: ${[...new Set(failed.map(failure))].join('; ')})` : '';
  rows.push(`| ${q.name} | ${cell(fresh)} | ${cell(resumed)} | ${ratio.toFixed(2)}× | ${answers.size === 1 ? [...answers][0] : `**differ**: ${[...answers].join(', ')}`}${failures} |`);
}

/**
 * The count of every triple at T read from the kept totals (src/query/count-totals.ts: changes summed per bucket of time) against the
 * scan of every row valid at T that the store ran before, in one warm process on one store opened read-only:
 * between runs the totals' meta key is taken away (the table stays), which sends the store back to the scan.
 */
async function setTotalsKey(present: boolean): Promise<void> {
  const sql = DB
    ? (present ? 'INSERT INTO vs_meta (key, value) VALUES ($1, 1) ON CONFLICT (key) DO NOTHING' : 'DELETE FROM vs_meta WHERE key = $1')
    : (present ? 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, 1)' : 'DELETE FROM meta WHERE key = ?');
  await runOnStore(versionsDb, [[sql, [COUNT_TOTALS_KEY]]]);
}

const totalsRows: string[] = [];
{
  const archive = DB ? new PgVersionArchive(DB, { readonly: true }) : openVersionStore(dir, { readonly: true });
  try {
    const sameTerm = sameTerms(archive);
    const every = { inDocument: true, sameTerm };
    for (const [name, at] of [['every triple, now', Date.now()], [`every triple at ${PAST.slice(0, 10)}`, Date.parse(PAST)]] as const) {
      const timed = (): [number, number] => {
        const t = performance.now();
        const n = archive.countAt(at, {}, every);
        return [performance.now() - t, n];
      };
      const kept: Array<[number, number]> = [];
      const scanned: Array<[number, number]> = [];
      for (let i = 0; i < RUNS; i++) {
        kept.push(timed());
        await setTotalsKey(false);
        try {
          scanned.push(timed());
        } finally {
          await setTotalsKey(true);
        }
      }
      const ms = (xs: Array<[number, number]>) => median(xs.map(([t]) => t));
      const answers = new Set([...kept, ...scanned].map(([, n]) => n));
      totalsRows.push(`| ${name} | ${ms(scanned).toFixed(1)} ms | ${ms(kept).toFixed(2)} ms | ${(ms(kept) / ms(scanned)).toPrecision(2)}× | ${answers.size === 1 ? [...answers][0] : `**differ**: ${[...answers].join(', ')}`} |`);
    }
  } finally {
    await archive.close();
  }
}

console.log(`### ${DOCS.toLocaleString('en')} documents${DB ? ', versioned index in PostgreSQL' : ', SQLite'}`);
console.log('');
console.log(`Command: \`node bin/run-ts.mjs bench/count.bench.ts${process.argv.slice(2).length ? ' ' + process.argv.slice(2).join(' ') : ''}\`; index caught up by the first query in ${s(index.ms)}. ${RUNS} runs of each, medians; each \`datamonitor query\` is its own process with the CLI's default limits (wall, CPU of the CLI and its query process, peak RSS summed over both, the largest of the runs).`);
console.log('');
console.log('| COUNT of | no saved check: wall | CPU | peak RSS | saved check: wall | CPU | peak RSS | CPU ratio | answer (every run) |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) console.log(r);
console.log('');
console.log(`Kept totals against the scan of the rows valid at T, in one warm process (the store's countAt, ${RUNS} runs each, alternated, medians):`);
console.log('');
console.log('| COUNT of | scan of the rows valid at T | kept totals | ratio | answer (every run) |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const r of totalsRows) console.log(r);
