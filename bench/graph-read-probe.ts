/**
 * A timing probe of the version index's reads by document (bench/ARCHIVE-SIZE.md, "A document's rows through
 * its versions' runs"): the snapshot of one document at an instant, and a match with the document as the graph
 * constant, for 300 documents at the archive's last instant and at its middle one, eight rounds, the best of
 * them (the machine's noise is upward). SQLite, read-only. SOURCE_ROOT picks the store code (another checkout,
 * e.g. a worktree of an earlier commit, on a copy of the file that still has that commit's indexes).
 *
 *   node bin/run-ts.mjs bench/graph-read-probe.ts VERSIONS_SQLITE [SOURCE_ROOT] [LABEL]
 *   (an archive: node bin/run-ts.mjs bench/scale-run.bench.ts --documents 100000 --hosts 100 --crawl-only)
 */
import path from 'node:path';
import Database from 'better-sqlite3';

const [file, root = path.resolve(import.meta.dirname, '..'), label = 'this code'] = process.argv.slice(2);
if (!file) throw new Error('usage: graph-read-probe.ts VERSIONS_SQLITE [SOURCE_ROOT] [LABEL]');
const { VersionArchive } = (await import(path.join(root, 'src/versions/sqlite-store.ts'))) as typeof import('../src/versions/sqlite-store.ts');
const archive = new VersionArchive(file, { readonly: true });
const db = new Database(file, { readonly: true });
const docs = db.prepare('SELECT t.nt FROM versions v JOIN terms t ON t.id = v.graph WHERE v.graph % 97 = 0 LIMIT 300').pluck().all() as string[];
const span = db.prepare('SELECT min(time) AS a, max(time) AS b FROM versions').get() as { a: number; b: number };
db.close();
const instants = [span.b, Math.round((span.a + span.b) / 2)];
const best = { snapshot: Infinity, match: Infinity };
let rows = 0;
for (let round = 0; round < 8; round++) {
  rows = 0;
  const t0 = performance.now();
  for (const t of instants) for (const d of docs) rows += [...archive.snapshot(t, { graphs: [d.slice(1, -1)] })].length;
  const t1 = performance.now();
  for (const t of instants) for (const d of docs) archive.matchAt(t, { graph: d });
  const t2 = performance.now();
  const reads = instants.length * docs.length;
  best.snapshot = Math.min(best.snapshot, ((t1 - t0) / reads) * 1000);
  best.match = Math.min(best.match, ((t2 - t1) / reads) * 1000);
}
process.stdout.write(`| ${label} | ${docs.length} | ${rows.toLocaleString('en')} | ${best.snapshot.toFixed(0)} | ${best.match.toFixed(0)} |\n`);
await archive.close();
