/**
 * A query at a past instant on a big archive (issue #16): a generated Web of Linked Data
 * (src/testkit/linked-data-web.ts, ~35 triples and a blank node a document) put into versions.sqlite
 * with putVersion directly (no crawl: the crawl and the index catch-up have their own benches), then a
 * selective query at a past instant through `datamonitor query`, with the planner's choice (the rows of
 * the query's patterns) against the whole-snapshot path (DATAMONITOR_QUERY_PLAN=snapshot) in the same
 * run: wall time, peak RSS of the CLI and its query process, answers compared byte for byte.
 * Also: the same query in a warm process (the server's query processes are long-lived), a new subject
 * and instant each time; the disk taken by the (s,p)/(o,p) indexes against the (s)/(o) ones they replace,
 * and the time an existing archive's first writable open takes to build them.
 *
 * Run: node bin/run-ts.mjs bench/scale-query.bench.ts [--quick] [--docs N] [--keep]
 *   --quick: 10,000 documents, fewer repetitions; --keep: leave the archive in the temp dir for a re-run.
 * Writes the figures to stdout as markdown (bench/SCALE-QUERY.md holds the latest).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import Database from 'better-sqlite3';
import { openVersionStore, runQuery, type VersionArchive } from '../src/query/index.ts';
import { linkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { formatBytes } from '../src/util/units.ts';
import { runCli, type CliRun } from './cli-run.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const docsArg = args.indexOf('--docs');
const DOCS = docsArg >= 0 ? Number(args[docsArg + 1]) : quick ? 10_000 : 100_000;
const keep = args.includes('--keep');
const CLI_RUNS = quick ? 3 : 7;
const SNAPSHOT_RUNS = quick ? 2 : 1;
const WARM_RUNS = 21;

const T0 = Date.UTC(2026, 0, 1);
const T1 = T0 + 30 * 86_400_000;
const web = linkedDataWeb({ documents: DOCS, hosts: 50 });
const dir = path.join(os.tmpdir(), `dm-scale-query-${DOCS}`);
const marker = path.join(dir, 'built');

function revised(i: number): string {
  return web.turtle(i).replace(`"Resource ${i}"@en`, `"Resource ${i}, revised"@en`).replace(/v:weight "\d+"/, `v:weight "${(i * 7) % 97}"`);
}

async function build(): Promise<{ ms: number; triples: number }> {
  fs.rmSync(dir, { recursive: true, force: true });
  const archive = openVersionStore(dir);
  const t = performance.now();
  let triples = 0;
  const put = async (i: number, time: number, text: string) => {
    const quads = new N3.Parser({ format: 'text/turtle' }).parse(text);
    triples += quads.length;
    await archive.putVersion(web.document(i), time, quads);
  };
  for (let i = 0; i < DOCS; i++) {
    await put(i, T0 + i, web.turtle(i));
    if (i % 10_000 === 9_999) process.stderr.write(`built ${i + 1} documents, ${Math.round((performance.now() - t) / 1000)} s\n`);
  }
  // A revision of every tenth document a month later: the instant queried is before it.
  for (let i = 0; i < DOCS; i += 10) await put(i, T1 + i, revised(i));
  archive.checkpoint();
  await archive.close();
  fs.writeFileSync(marker, JSON.stringify({ triples }));
  return { ms: performance.now() - t, triples };
}

let built: { ms: number; triples: number } | undefined;
if (!fs.existsSync(marker)) built = await build();
const triples = built?.triples ?? (JSON.parse(fs.readFileSync(marker, 'utf8')) as { triples: number }).triples;

// ---- disk: the composite indexes against the single-column ones, and the migration of an old archive ----
const file = path.join(dir, 'versions.sqlite');
function indexBytes(db: Database.Database): Map<string, number> {
  const rows = db.prepare<[], { name: string; bytes: number }>(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name`).all();
  return new Map(rows.map((r) => [r.name, r.bytes]));
}
let migration: { ms: number; oldBytes: number; newBytes: number } | undefined;
if (!quick || built) {
  const db = new Database(file);
  // An archive from before this change: (s) and (o), no (s,p) / (o,p).
  db.exec('DROP INDEX IF EXISTS quads_by_sp; DROP INDEX IF EXISTS quads_by_op; CREATE INDEX IF NOT EXISTS quads_by_s ON quads (s); CREATE INDEX IF NOT EXISTS quads_by_o ON quads (o);');
  const before = indexBytes(db);
  db.close();
  const t = performance.now();
  const migrated = openVersionStore(dir); // the first writable open builds the new indexes
  const ms = performance.now() - t;
  await migrated.close();
  const after = indexBytes(new Database(file, { readonly: true }));
  migration = {
    ms,
    oldBytes: (before.get('quads_by_s') ?? 0) + (before.get('quads_by_o') ?? 0),
    newBytes: (after.get('quads_by_sp') ?? 0) + (after.get('quads_by_op') ?? 0),
  };
}
const archiveForStats = openVersionStore(dir, { readonly: true });
const stats = archiveForStats.stats();
await archiveForStats.close();

// ---- the CLI: planner against the whole snapshot ------------------------------------------------------
type Run = CliRun;
const cli = runCli;

const PREFIX = 'PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> ';
const selective = (i: number) => `${PREFIX}SELECT ?label WHERE { <${web.resource(i)}> rdfs:label ?label } ORDER BY ?label`;
const pastIso = new Date(T0 + 86_400_000).toISOString();

const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)], max: s[s.length - 1] };
};

const plannerRuns: Run[] = [];
for (let r = 0; r < CLI_RUNS; r++) plannerRuns.push(await cli(['query', '--data', dir, '--at', pastIso, '--json', selective(DOCS / 2 + r)]));
const snapshotRuns: Run[] = [];
for (let r = 0; r < SNAPSHOT_RUNS; r++) {
  snapshotRuns.push(await cli(['query', '--data', dir, '--at', pastIso, '--json', '--max-memory', '12g', '--timeout', '60m', selective(DOCS / 2 + r)], { DATAMONITOR_QUERY_PLAN: 'snapshot' }));
}
const failed = [...plannerRuns, ...snapshotRuns].filter((r) => r.code !== 0);
for (const f of failed) console.error(`a query failed (exit ${f.code}): ${f.stderr.slice(0, 500)}`);
const equal = snapshotRuns.every((s, r) => s.code === 0 && s.stdout === plannerRuns[r]!.stdout && s.stdout.includes('Resource'));

// ---- a warm process: the server's query processes --------------------------------------------------------
const archive: VersionArchive = openVersionStore(dir, { readonly: true });
await runQuery(archive, selective(1), { at: T0 + 86_400_000 }); // modules and the parser loaded
const warm: number[] = [];
const warmCpu: number[] = [];
let warmPlan = '';
for (let r = 0; r < WARM_RUNS; r++) {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const res = await runQuery(archive, selective((r * 7919) % DOCS), { at: T0 + 86_400_000 + r });
  const used = process.cpuUsage(cpu);
  warmCpu.push((used.user + used.system) / 1000);
  warm.push(performance.now() - t);
  warmPlan = res.plan ?? '';
}
await archive.close();

// ---- report -------------------------------------------------------------------------------------------
const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;
const p = stat(plannerRuns.map((r) => r.ms));
const s = stat(snapshotRuns.map((r) => r.ms));
const pc = stat(plannerRuns.map((r) => r.cpuMs));
const sc = stat(snapshotRuns.map((r) => r.cpuMs));
const pr = Math.max(...plannerRuns.map((r) => r.peakRss));
const sr = Math.max(...snapshotRuns.map((r) => r.peakRss));
const w = stat(warm);
const out = [
  `Command: \`node bin/run-ts.mjs bench/scale-query.bench.ts${quick ? ' --quick' : ''}${docsArg >= 0 ? ` --docs ${DOCS}` : ''}\` (${os.cpus().length} cores shared with other engineers' work: indicative; Node ${process.version}).`,
  '',
  `Archive: ${DOCS.toLocaleString('en')} linked-data-web documents put with putVersion at T0, a revision of every tenth a month later; ${triples.toLocaleString('en')} triples put, ${stats.rows.toLocaleString('en')} rows, ${formatBytes(stats.bytes)} on disk (${(stats.bytes / stats.rows).toFixed(0)} bytes a row)${built ? `; built in ${(built.ms / 1000).toFixed(0)} s` : ''}.`,
  `Query: one resource's labels at a past instant (T0 + 1 day), \`${selective(0).replace(PREFIX, '').replace(web.resource(0), '…/id/N')}\`.`,
  '',
  '| path | runs | wall time median | p95 | CPU (user + sys) median | peak RSS (CLI + query process) | answers |',
  '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  `| \`datamonitor query\`, planner (chose the pattern rows) | ${plannerRuns.length} | ${p.median.toFixed(0)} ms | ${p.p95.toFixed(0)} ms | ${pc.median.toFixed(0)} ms | ${mib(pr)} | |`,
  `| \`datamonitor query\`, whole snapshot (DATAMONITOR_QUERY_PLAN=snapshot, --max-memory 12g) | ${snapshotRuns.length} | ${s.median.toFixed(0)} ms | ${s.p95.toFixed(0)} ms | ${sc.median.toFixed(0)} ms | ${mib(sr)} | ${equal ? 'equal bytes' : 'DIFFER'} |`,
  `| ratio planner / snapshot | | ${(p.median / s.median).toFixed(3)}× | | ${(pc.median / sc.median).toFixed(3)}× | ${(pr / sr).toFixed(2)}× | |`,
  '',
  `Load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} on ${os.cpus().length} cores.`,
  '',
  `In a warm process (runQuery on an open archive, as the server's query processes; a new subject and instant each time, so nothing is cached): selective query median ${w.median.toFixed(1)} ms, p95 ${w.p95.toFixed(1)} ms, CPU ${stat(warmCpu).median.toFixed(1)} ms median (plan: ${warmPlan}; ${WARM_RUNS} runs).`,
];
if (migration) {
  out.push('', `Indexes: (s,p) + (o,p) take ${mib(migration.newBytes)} against ${mib(migration.oldBytes)} for the (s) + (o) they replace (+${(((migration.newBytes - migration.oldBytes) / stats.rows)).toFixed(1)} bytes a row); an archive from before builds them on its first writable open: ${(migration.ms / 1000).toFixed(1)} s here.`);
}
console.log(out.join('\n'));
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
