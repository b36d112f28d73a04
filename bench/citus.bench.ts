/**
 * The versioned store in a distributed PostgreSQL (Citus), beside the same store in one PostgreSQL and in SQLite,
 * on one archive (issue #16 item 3). For each PostgreSQL target: a fresh schema, the store's tables made by
 * opening it, on Citus distributed as docs/query.md says (CITUS_STATEMENTS below, the same text), the crawl log
 * moved in and the index caught up (bench/scale-run.bench.ts's children, each its own process), then the same
 * queries at three instants through `datamonitor query --db`, as a user runs them; every answer must be the
 * bytes SQLite's store gives.
 *
 * Run: node bin/run-ts.mjs bench/citus.bench.ts --citus postgres://postgres@HOST:PORT/DB [--pg URL] [--data DIR] [--docs N] [--keep]
 *   (or DATAMONITOR_CITUS_URL; without either it prints that it was not run and exits 0, as `npm run bench` runs it)
 *   --citus: a Citus coordinator with workers added (nothing is installed here; /work/citus/README.txt on the
 *   machine that ran it says how that one was built); --pg: the plain PostgreSQL peer (default the test database
 *   on 127.0.0.1:5432); --data: an archive (default: src/testkit/scale-archive.ts's, --docs documents, 10,000).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { PgVersionArchive } from '../src/query/index.ts';
import { dropSchema } from '../test/store/pg.ts';
import { runOnStore } from '../src/testkit/store-sql.ts';
import { flag, option } from './args.ts';
import { runCli, type CliRun } from './cli-run.ts';

/** What docs/query.md ("Citus") tells a user to run once the store's tables exist. */
export const CITUS_STATEMENTS = [
  "SELECT create_distributed_table('vs_quads', 'g')",
  "SELECT create_reference_table('vs_terms')",
  "SELECT create_reference_table('vs_versions')",
  "SELECT create_reference_table('vs_term_forms')",
  "SELECT create_reference_table('vs_term_classes')",
  "SELECT create_reference_table('vs_count_sums')",
];

const CITUS = option('--citus') ?? process.env.DATAMONITOR_CITUS_URL;
if (!CITUS) {
  // `npm run bench` runs every bench: without a coordinator this one says so and is done.
  console.log('Not run: no Citus coordinator (give --citus postgres://user@host:port/db or set DATAMONITOR_CITUS_URL). The last run is in bench/CITUS.md.');
  process.exit(0);
}
const PG = option('--pg') ?? 'postgres://postgres@127.0.0.1:5432/test';
const DOCS = Number(option('--docs') ?? 10_000);
const given = option('--data');
const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dm-citus-'));
if (!given && !flag('--keep')) process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
if (!fs.existsSync(path.join(dir, 'meta.sqlite'))) {
  await buildScaleArchive({ dataDir: dir, documents: DOCS, hosts: 20 });
}

/** A bench child of scale-run.bench.ts (moving the log, catching up), timed as a process. */
function child(args: string[]): Promise<{ code: number | null; seconds: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const t = performance.now();
    const p = spawn(process.execPath, ['bin/run-ts.mjs', 'bench/scale-run.bench.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => resolve({ code, seconds: (performance.now() - t) / 1000, stdout, stderr }));
  });
}

const withSchema = (base: string, name: string) => {
  const u = new URL(base);
  u.searchParams.set('schema', name);
  return u.toString();
};
const stamp = Date.now().toString(36);
const targets = [
  { name: 'PostgreSQL', url: withSchema(PG, `dm_citus_peer_${stamp}`), distribute: false },
  { name: 'Citus', url: withSchema(CITUS, `dm_citus_${stamp}`), distribute: true },
];

const setup: string[] = [];
for (const t of targets) {
  process.stderr.write(`${t.name}: tables, log, index\n`);
  await new PgVersionArchive(t.url).close();
  if (t.distribute) await runOnStore(t.url, CITUS_STATEMENTS);
  const moved = await child(['--child', 'pg-log', '--dir', dir, '--db', t.url]);
  if (moved.code !== 0) throw new Error(`${t.name}: moving the log failed: ${moved.stderr.slice(-1500)}`);
  const idx = await child(['--child', 'pg-catch-up', '--dir', dir, '--db', t.url]);
  if (idx.code !== 0) throw new Error(`${t.name}: the catch-up failed: ${idx.stderr.slice(-1500)}`);
  const c = JSON.parse(idx.stdout.trim().split('\n').at(-1)!) as { versions: number; quadRows: number };
  setup.push(`| ${t.name} | ${moved.seconds.toFixed(1)} s | ${idx.seconds.toFixed(1)} s | ${c.versions.toLocaleString('en')} | ${(c.versions / idx.seconds).toFixed(0)} | ${c.quadRows.toLocaleString('en')} |`);
}

const QUERIES: Array<[string, string]> = [
  ['one subject\'s labels', 'SELECT ?l WHERE { <http://data5.lod.test/id/505> rdfs:label ?l } ORDER BY ?l'],
  ['COUNT every triple', 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }'],
  ['COUNT rdfs:label', 'SELECT (COUNT(*) AS ?n) WHERE { ?s rdfs:label ?o }'],
  ['a subject\'s neighbours\' labels (join)', 'SELECT ?l ?o WHERE { <http://data5.lod.test/id/505> ?p ?o . ?o rdfs:label ?l } ORDER BY ?l ?o'],
  ['a label, anywhere (ASK)', 'ASK { ?s rdfs:label "Resource 9999"@en }'],
  ['first 5 rdfs:seeAlso by subject', 'SELECT ?s ?o WHERE { ?s rdfs:seeAlso ?o } ORDER BY ?s ?o LIMIT 5'],
];
/** The scale archive's versions are from 2026-01, its revisions a month later. */
const INSTANTS = ['2026-01-15T00:00:00Z', '2026-02-15T00:00:00Z'];

const cell = (r: CliRun, same: boolean) => r.code !== 0 ? `exit ${r.code}: ${/datamonitor: (.{0,60})/.exec(r.stderr)?.[1] ?? ''}` : `${(r.ms / 1000).toFixed(2)} s${same ? '' : ' **differs**'}`;
const rows: string[] = [];
let differ = 0;
for (const at of INSTANTS) {
  for (const [name, q] of QUERIES) {
    process.stderr.write(`${at} ${name}\n`);
    const args = ['query', '--data', dir, '--at', at, '--json', q];
    const sqlite = await runCli(args);
    const others: CliRun[] = [];
    for (const t of targets) others.push(await runCli(['query', '--data', dir, '--db', t.url, '--at', at, '--json', q]));
    const same = others.map((r) => r.code === 0 && r.stdout === sqlite.stdout);
    differ += same.filter((s, i) => !s && others[i]!.code === 0).length;
    rows.push(`| ${at.slice(0, 10)} | ${name} | ${cell(sqlite, true)} | ${others.map((r, i) => cell(r, same[i]!)).join(' | ')} |`);
  }
}

if (!flag('--keep')) for (const t of targets) await dropSchema(t.url);

console.log(`### ${DOCS.toLocaleString('en')} documents: SQLite, one PostgreSQL, Citus`);
console.log('');
console.log(`Command: \`node bin/run-ts.mjs bench/citus.bench.ts ${process.argv.slice(2).join(' ')}\`. Each step its own process; each query \`datamonitor query\` as a user runs it (wall time, the CLI's default limits).`);
console.log('');
console.log('| store | crawl log moved in | index catch-up | versions | versions/s | quad rows |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of setup) console.log(r);
console.log('');
console.log(`| at | query | SQLite | ${targets.map((t) => t.name).join(' | ')} |`);
console.log(`| --- | --- | ---: | ${targets.map(() => '---:').join(' | ')} |`);
for (const r of rows) console.log(r);
console.log('');
console.log(differ === 0 ? 'Every answer given was the bytes of SQLite\'s.' : `**${differ} answers differ from SQLite's.**`);
process.exitCode = differ === 0 ? 0 : 1;
