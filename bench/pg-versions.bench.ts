/**
 * The versioned store in PostgreSQL against SQLite (issue #16, item 3), in the same run on the same
 * archive: a crawl's WARC files and log as src/testkit/scale-archive.ts writes them (the generated Linked
 * Data Web: ~35 triples and a blank node a document, a changed second version of every tenth, a 404 of
 * every hundredth), then
 *   - catch-up: the archive indexed from the WARC conversion records into `versions.sqlite` and into a
 *     fresh PostgreSQL schema (both bulk: read indexes built once at the end), versions/s;
 *   - selective queries at a past instant (one resource's labels, a different resource each run, so no
 *     cache helps) with runQuery on the open store, as a server's query process does: median and p95;
 *     and, in turns with them, on a second PostgreSQL store whose read-ahead takes the connection thread;
 *   - one unselective COUNT of every quad at the same instant (the whole-snapshot path);
 *   - bytes on disk of each store, and answers compared byte for byte.
 *
 *   node bin/run-ts.mjs bench/pg-versions.bench.ts [--documents 5000] [--queries 40] [--quick] [--pg URL] [--out bench/PG-VERSIONS.md] [--label TEXT]
 *     --quick   1,000 documents, 15 queries
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { option, QUICK } from './args.ts';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { linkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { catchUpVersions, openVersionStore, PgVersionArchive, runQuery, type VersionBackend } from '../src/query/index.ts';
import { openStore } from '../src/store/index.ts';
import { isolatedSchemaUrl, dropSchema, pgBaseUrl } from '../test/store/pg.ts';

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 1_000 : 5_000));
const QUERIES = Number(option('--queries') ?? (QUICK ? 15 : 40));
const OUT = option('--out');
/** Names the code measured in the section's heading (e.g. "before: 74749b9"), for before/after runs. */
const LABEL = option('--label');
const T0 = Date.UTC(2026, 0, 1);

const base = option('--pg') ?? (await pgBaseUrl());
if (!base) throw new Error('PostgreSQL is not reachable: start it on 127.0.0.1:5432 (database test) or give --pg URL');
const url = isolatedSchemaUrl(base, 'dm_pgv_bench');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgv-bench-'));
const versionsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgv-bench-sqlite-'));
const load0 = os.loadavg()[0];

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]!; };
const f0 = (n: number) => Math.round(n).toLocaleString('en');
const f1 = (n: number) => n.toFixed(1);
/** Query times: a median near 1 ms moves by tenths between the changes compared. */
const f2 = (n: number) => n.toFixed(2);

try {
  process.stderr.write(`building a scale archive of ${f0(DOCUMENTS)} documents…\n`);
  const built = await buildScaleArchive({ dataDir, documents: DOCUMENTS, hosts: 10 });
  const web = linkedDataWeb({ documents: DOCUMENTS, hosts: 10 });
  const store = await openStore(dataDir);
  await store.init();
  const sqlite = openVersionStore(versionsDir);
  const pg = new PgVersionArchive(url);
  const catchUp: Record<string, { seconds: number; versions: number; rows: number }> = {};
  for (const [name, archive] of [['SQLite', sqlite], ['PostgreSQL', pg]] as Array<[string, VersionBackend]>) {
    process.stderr.write(`catch-up into ${name}…\n`);
    const t0 = performance.now();
    const r = await catchUpVersions(archive, store, dataDir);
    catchUp[name] = { seconds: (performance.now() - t0) / 1000, versions: r.versions, rows: archive.stats().rows };
    if (r.failed) throw new Error(`${name}: ${r.failed} versions failed: ${r.diagnostics[0]}`);
  }
  await store.close();

  // After the first crawl, before the changes and the 404s: a past instant.
  const at = T0 + 14 * DOCUMENTS + 3;
  // The same schema through a second store whose read-ahead takes the connection thread (as before the
  // read-ahead had a connection of its own): both paths in the same run, under the same load.
  const pgThread = new PgVersionArchive(url, { readAheadConnection: false });
  const latency: Record<string, number[]> = { SQLite: [], PostgreSQL: [], thread: [] };
  let equal = true;
  // Synchronous calls to PostgreSQL a selective query makes (each a thread hop and a round trip).
  const trips: number[] = [];
  process.stderr.write(`${QUERIES} selective queries on each…\n`);
  for (let k = 0; k < QUERIES; k++) {
    const i = Math.floor(((k + 0.5) / QUERIES) * DOCUMENTS);
    const q = `SELECT ?l WHERE { <${web.resource(i)}> <http://www.w3.org/2000/01/rdf-schema#label> ?l }`;
    const bodies: string[] = [];
    // In turns, so that the machine's load falls on all alike.
    const stores = [['SQLite', sqlite], ['PostgreSQL', pg], ['thread', pgThread]] as Array<[string, VersionBackend]>;
    for (const [name, archive] of [...stores.slice(k % 3), ...stores.slice(0, k % 3)]) {
      // A query process waits for each query on its event loop, which runs what was left to it (V8's tasks,
      // timers) between queries: here too, not inside the next query's time.
      await new Promise((resolve) => setImmediate(resolve));
      const t0 = performance.now();
      const trips0 = pg.roundTrips;
      const r = await runQuery(archive, q, { at });
      latency[name]!.push(performance.now() - t0);
      if (archive === pg) trips.push(pg.roundTrips - trips0);
      if (r.plan !== 'patterns') throw new Error(`${name}: the planner chose ${r.plan} for a selective query`);
      bodies.push(r.body);
    }
    if (bodies.some((b) => b !== bodies[0])) equal = false;
  }
  await pgThread.close();
  const count: Record<string, number> = {};
  const countBodies: string[] = [];
  for (const [name, archive] of [['SQLite', sqlite], ['PostgreSQL', pg]] as Array<[string, VersionBackend]>) {
    const t0 = performance.now();
    const r = await runQuery(archive, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', { at });
    count[name] = performance.now() - t0;
    countBodies.push(r.body);
  }
  if (countBodies[0] !== countBodies[1]) equal = false;
  const bytes = { SQLite: (sqlite.checkpoint(), sqlite.stats().bytes), PostgreSQL: pg.stats().bytes };
  const rows = catchUp.SQLite!.rows;
  await sqlite.close();
  await pg.close();

  const s = catchUp.SQLite!;
  const p = catchUp.PostgreSQL!;
  const vps = (c: { seconds: number; versions: number }) => c.versions / c.seconds;
  const lines = [
    `## ${f0(DOCUMENTS)} documents (${f0(built.entries)} log rows, ${f0(s.versions)} versions, ${f0(rows)} rows)${LABEL ? `: ${LABEL}` : ''}`,
    '',
    `Command: \`node bin/run-ts.mjs bench/pg-versions.bench.ts --documents ${DOCUMENTS} --queries ${QUERIES}${LABEL ? ` --label '${LABEL}'` : ''}\`; load average ${f1(load0)} at the start, ${f1(os.loadavg()[0])} at the end (2 cores shared).`,
    '',
    '| | SQLite | PostgreSQL | PostgreSQL / SQLite |',
    '| --- | ---: | ---: | ---: |',
    `| catch-up (bulk), seconds | ${f1(s.seconds)} | ${f1(p.seconds)} | ${(p.seconds / s.seconds).toFixed(2)}× |`,
    `| catch-up, versions/s | ${f0(vps(s))} | ${f0(vps(p))} | ${(vps(p) / vps(s)).toFixed(2)}× |`,
    `| selective query at T, median ms (${QUERIES} runs) | ${f2(pct(latency.SQLite!, 0.5))} | ${f2(pct(latency.PostgreSQL!, 0.5))} | ${(pct(latency.PostgreSQL!, 0.5) / pct(latency.SQLite!, 0.5)).toFixed(2)}× |`,
    `| selective query at T, p95 ms | ${f2(pct(latency.SQLite!, 0.95))} | ${f2(pct(latency.PostgreSQL!, 0.95))} | ${(pct(latency.PostgreSQL!, 0.95) / pct(latency.SQLite!, 0.95)).toFixed(2)}× |`,
    `| the same, read-ahead through the connection thread, median ms | | ${f2(pct(latency.thread!, 0.5))} | ${(pct(latency.thread!, 0.5) / pct(latency.SQLite!, 0.5)).toFixed(2)}× |`,
    `| round trips to PostgreSQL a selective query (median, max) | | ${pct(trips, 0.5)}, ${Math.max(...trips)} | |`,
    `| COUNT of every quad at T (whole snapshot), ms | ${f0(count.SQLite!)} | ${f0(count.PostgreSQL!)} | ${(count.PostgreSQL! / count.SQLite!).toFixed(2)}× |`,
    `| bytes on disk (tables and indexes) | ${f0(bytes.SQLite)} | ${f0(bytes.PostgreSQL)} | ${(bytes.PostgreSQL / bytes.SQLite).toFixed(2)}× |`,
    `| bytes a row | ${f0(bytes.SQLite / rows)} | ${f0(bytes.PostgreSQL / rows)} | |`,
    '',
    `Answers: ${equal ? 'equal bytes on every store for every query' : '**DIFFERENT** (a bug)'}.`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
  if (OUT) fs.appendFileSync(OUT, lines.join('\n') + '\n');
} finally {
  await dropSchema(url).catch(() => undefined);
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(versionsDir, { recursive: true, force: true });
}
