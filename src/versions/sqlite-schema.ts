import type Database from 'better-sqlite3';
import { LOG_GAPS_DDL } from './log-gaps.ts';
import { SQLITE_TERM_CHECK_DDL } from './term-check-memo.ts';
import { COUNT_TOTALS_KEY, SQLITE_COUNT_TOTALS_DDL, buildTotalsSql } from './count-totals.ts';
import type { IndexCompaction, IndexMaintenance } from './backend.ts';
import { OPEN } from './rows.ts';
import { TERM_ROWS_DDL, codeTerms } from './sqlite-terms.ts';

/**
 * The quads table: a row per validity interval [from_t, to_t) of a quad. The end is stored as `end_t`, NULL
 * while the quad holds (a NULL takes no byte of the record, where OPEN took eight); `to_t` is computed from it
 * on read, so every read says `to_t` as
 * PostgreSQL's table stores it. The diff finds the rows that ended in a span through quads_by_end, which
 * holds the ended rows only (most rows hold: an index of every end read none of them). A row keeps no hash of
 * its triple: only the writer compared by it, and it reads a document's open rows with their terms instead.
 */
function quadsTable(name: string): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (
  g INTEGER NOT NULL, s INTEGER NOT NULL, p INTEGER NOT NULL, o INTEGER NOT NULL,
  from_t INTEGER NOT NULL, end_t INTEGER, ng INTEGER,
  to_t INTEGER GENERATED ALWAYS AS (coalesce(end_t, ${OPEN})) VIRTUAL)`;
}

/**
 * A version's row: `first_row`..`last_row` span the ids of the rows it added (NULL when it added none). A
 * version's rows are given consecutive ids as it is written (store.ts applyVersion), so the rows born in a
 * span of time are the runs of the versions in it, and the rows born by T have ids up to the largest
 * `last_row` of a version by T: the diff and a scan at T find them through the versions, where an index of
 * every row's start (`quads_by_from`, 15 bytes a row) found them before (bench/ARCHIVE-SIZE.md, row runs).
 * A span may hold ids of other versions' rows (a second put at the same instant widens it): readers still
 * test each row's `g` and `from_t`.
 */
const VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS versions (
  graph INTEGER NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL,
  added INTEGER NOT NULL, removed INTEGER NOT NULL, triples INTEGER NOT NULL, first_row INTEGER, last_row INTEGER,
  PRIMARY KEY (graph, time)) WITHOUT ROWID`;

const SCHEMA = `${TERM_ROWS_DDL}
${VERSIONS_TABLE};
CREATE INDEX IF NOT EXISTS versions_by_time ON versions (time, graph, first_row, last_row);
${quadsTable('quads')};
DROP INDEX IF EXISTS quads_by_graph;
DROP INDEX IF EXISTS quads_by_from;
CREATE INDEX IF NOT EXISTS quads_by_end ON quads (end_t) WHERE end_t IS NOT NULL;
CREATE INDEX IF NOT EXISTS quads_by_sp ON quads (s, p);
CREATE INDEX IF NOT EXISTS quads_by_p ON quads (p);
CREATE INDEX IF NOT EXISTS quads_by_op ON quads (o, p);
DROP INDEX IF EXISTS quads_by_to;
DROP INDEX IF EXISTS quads_by_s;
DROP INDEX IF EXISTS quads_by_o;
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
${LOG_GAPS_DDL}
${SQLITE_TERM_CHECK_DDL}
${SQLITE_COUNT_TOTALS_DDL}
`;

/** Every index the schema makes (quads_by_ng apart: it needs the `ng` column, which old stores gain on open). */
const SCHEMA_INDEXES = [...[...SCHEMA.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]!), 'quads_by_ng'];
/** The meta key of the pid of a process bulk-loading the store with its read indexes down. */
export const BULK_LOADER = 'bulk_loader_pid';
/** The meta key of the row count when the read indexes were last built whole (SqliteIndexes.compactIndexes). */
const WHOLE_AT_ROWS = 'indexes_whole_at_rows';
/**
 * The indexes a compaction builds again: those a writer fills in the middle (a document's subjects and objects
 * were mostly terms already, as links of documents indexed before; a hash is anywhere).
 */
const COMPACTED = ['quads_by_sp', 'quads_by_op', 'quads_by_p', 'term_rows_by_hash'];
/**
 * A compaction waits until this many rows, and this share of all, went in one at a time: building the four
 * indexes whole takes about 1.6 µs a row (80 s at 34 M rows; bench/ARCHIVE-SIZE.md, "Indexes built whole again").
 */
const COMPACT_MIN_ROWS = 100_000;
const COMPACT_SHARE = 0.2;
/** A value of the meta table; undefined also in a new file opened read-only (no meta table). */
export function metaValue(db: Database.Database, key: string): number | undefined {
  try {
    return db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  } catch {
    return undefined;
  }
}

/** The columns of a table: each layout of the store is told by them (empty: no such table yet). */
function columnsOf(db: Database.Database, table: 'quads' | 'versions'): Set<string> {
  return new Set(db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all().map((c) => c.name));
}

/** Whether `table` has `column`; undefined when there is no such table yet. */
function hasColumn(db: Database.Database, table: 'quads' | 'versions', column: string): boolean | undefined {
  const columns = columnsOf(db, table);
  return columns.size === 0 ? undefined : columns.has(column);
}

/** Whether the quads table has the named-graph column; undefined when there is no quads table yet. */
export function hasNamedGraphColumn(db: Database.Database): boolean | undefined {
  return hasColumn(db, 'quads', 'ng');
}

/**
 * The format of the quads table, told by its columns; undefined when there is none yet. Each older one is a
 * file the reader can still read, which the first writable open rewrites:
 * - `stored-end`: every row's end stored, OPEN while it holds, and indexed with every row (no `end_t`);
 * - `row-hash`: the current layout with a hash of each row's triple (`h`), eight bytes a row.
 */
export function quadsFormat(db: Database.Database): 'stored-end' | 'row-hash' | 'current' | undefined {
  const columns = columnsOf(db, 'quads');
  if (columns.size === 0) return undefined;
  return !columns.has('end_t') ? 'stored-end' : columns.has('h') ? 'row-hash' : 'current';
}

/** Whether the quads table is of an older format (quadsFormat), which the first writable open rewrites. */
export function hasOldQuadsFormat(db: Database.Database): boolean {
  const format = quadsFormat(db);
  return format !== undefined && format !== 'current';
}

/**
 * Rewrites the quads of an old-format file in the compact format, in one transaction (a reader meanwhile
 * sees the old rows), then gives the space back (VACUUM; skipped, and said, when another connection holds the
 * file). The rows keep their ids, so answers do not change. A store from before named graphs put every quad
 * in its document's graph: its indexed log id is dropped as well, so that the next catch-up empties the
 * store and indexes the crawl log again from the WARC conversion records (which kept the graph names).
 */
function rewriteOldQuads(db: Database.Database, say: (line: string) => void): void {
  const named = hasNamedGraphColumn(db) === true;
  const end = quadsFormat(db) === 'stored-end' ? `nullif(to_t, ${OPEN})` : 'end_t';
  const rows = db.prepare<[], { n: number | null }>('SELECT max(rowid) AS n FROM quads').get()?.n ?? 0;
  say(`rewriting the version index ${db.name} in its compact format (once: ${rows.toLocaleString('en')} rows; it is derived from the crawl log and the WARC files, nothing is lost)…`);
  const t0 = Date.now();
  db.transaction(() => {
    db.exec(`DROP TABLE IF EXISTS quads_compact; ${quadsTable('quads_compact')}`);
    db.exec(`INSERT INTO quads_compact (rowid, g, s, p, o, from_t, end_t, ng)
      SELECT rowid, g, s, p, o, from_t, ${end}, ${named ? 'ng' : 'NULL'} FROM quads ORDER BY rowid`);
    db.exec('DROP TABLE quads; ALTER TABLE quads_compact RENAME TO quads');
    if (!named) db.prepare('DELETE FROM meta WHERE key = ?').run('indexed_log_id');
  })();
  new SqliteIndexes(db).createIndexes();
  try {
    db.exec('VACUUM');
    say(`rewrote the version index in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    say(`rewrote the version index in ${((Date.now() - t0) / 1000).toFixed(1)} s; the space it freed stays in the file until a VACUUM (${(e as Error).message})`);
  }
}

/** Whether the versions table keeps each version's run of row ids (VERSIONS_TABLE); undefined when there is none yet. */
export function hasRowRuns(db: Database.Database): boolean | undefined {
  return hasColumn(db, 'versions', 'first_row');
}

/**
 * Gives a store written before versions kept their runs of row ids (VERSIONS_TABLE) those runs, from its rows
 * (one pass, once), in one transaction; SCHEMA then drops the index of every row's start they replace, and
 * builds the index of versions by time again holding their ends (backend.ts bornBySql reads no row of the table).
 */
function addRowRuns(db: Database.Database, say: (line: string) => void): void {
  if (hasRowRuns(db) !== false) return;
  say(`giving the versions of ${db.name} their runs of row ids (once)…`);
  const t0 = Date.now();
  db.transaction(() => {
    db.exec(`ALTER TABLE versions ADD COLUMN first_row INTEGER; ALTER TABLE versions ADD COLUMN last_row INTEGER;
      UPDATE versions SET first_row = r.a, last_row = r.b
        FROM (SELECT g, from_t, min(rowid) AS a, max(rowid) AS b FROM quads GROUP BY g, from_t) AS r
        WHERE r.g = versions.graph AND r.from_t = versions.time;
      DROP INDEX IF EXISTS versions_by_time`);
  })();
  say(`gave the versions their runs of row ids in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/**
 * Makes the tables, rewrites an old file (rewriteOldQuads), gives a store from before named graphs their
 * column, and builds every index. A store written before
 * count_sums gains it, filled from its versions in one statement (once).
 */
export function createSqliteSchema(db: Database.Database, say: (line: string) => void = (line) => process.stderr.write(`datamonitor: ${line}\n`)): void {
  // A new file gives pages back as a compaction frees them (SqliteIndexes.compactIndexes): the mode is set before
  // the first table, and takes effect through a VACUUM (instant on an empty file) once the file is in WAL mode.
  if ((db.prepare('SELECT count(*) AS n FROM sqlite_master').get() as { n: number }).n === 0) db.exec('PRAGMA auto_vacuum = INCREMENTAL; VACUUM');
  if (hasOldQuadsFormat(db)) rewriteOldQuads(db, say);
  if (hasNamedGraphColumn(db) === false) {
    // A store without the named-graph column: every quad was put in its document's graph. Indexed again
    // from the WARC records (rewriteOldQuads says why).
    db.transaction(() => {
      db.exec('ALTER TABLE quads ADD COLUMN ng INTEGER');
      db.prepare('DELETE FROM meta WHERE key = ?').run('indexed_log_id');
    })();
  }
  addRowRuns(db, say);
  codeTerms(db, say);
  db.exec(SCHEMA);
  new SqliteIndexes(db).createIndexes();
  if (metaValue(db, COUNT_TOTALS_KEY) !== undefined) return;
  db.transaction(() => {
    db.exec(`DELETE FROM count_sums; ${buildTotalsSql('count_sums', 'versions')}`);
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(COUNT_TOTALS_KEY, 1);
  })();
}

/** The bulk load's index maintenance (backend.ts IndexMaintenance) of a SQLite store. */
export class SqliteIndexes implements IndexMaintenance {
  constructor(private readonly db: Database.Database) {}

  /**
   * Drops the indexes of `quads` that only readers use (every one not led by the document column `g`, which
   * a writer of the layout before runs read a graph's open rows through), before a bulk load; `restoreIndexes` builds them
   * again. Keeping six B-trees up to date row by row cost 60 % of a 5,000-version catch-up; building them
   * once afterwards cost a tenth of that (bench/CRAWL.md). Readers meanwhile get the same answers, slower.
   * Inside `writeTransaction`. Returns the names dropped.
   */
  dropReadIndexes(): string[] {
    const names = this.db.prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'quads' AND sql IS NOT NULL").all().map((r) => r.name);
    const dropped: string[] = [];
    for (const name of names) {
      const first = this.db.prepare<[], { name: string }>(`PRAGMA index_info(${JSON.stringify(name)})`).get()?.name;
      if (first === 'g') continue;
      this.db.exec(`DROP INDEX ${JSON.stringify(name)}`);
      dropped.push(name);
    }
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(BULK_LOADER, process.pid);
    return dropped;
  }

  /**
   * Every index of the schema (CREATE INDEX IF NOT EXISTS: nothing to do when they are there). Also what
   * puts back the indexes a bulk catch-up took down, if it was killed before it could (on the next open
   * for writing, or the next catch-up).
   */
  createIndexes(): void {
    this.db.exec(SCHEMA);
    this.db.exec('CREATE INDEX IF NOT EXISTS quads_by_ng ON quads (ng) WHERE ng IS NOT NULL');
  }

  /** Builds every index missing (after `dropReadIndexes`); inside `writeTransaction`. */
  restoreIndexes(): void {
    const reloaded = this.missingIndexes().length > 0;
    this.createIndexes();
    // The load sought and added each new term through the hash index, which kept a tenth of its pages empty
    // (bench/ARCHIVE-SIZE.md, "What is left"): built whole with the rest, as a compaction would.
    if (reloaded) {
      this.db.exec('REINDEX term_rows_by_hash');
      // Its pages, and any the dropped indexes freed that the load did not take, back to the file system.
      if (this.db.pragma('auto_vacuum', { simple: true }) === 2) this.db.exec('PRAGMA incremental_vacuum');
    }
    this.db.prepare('DELETE FROM meta WHERE key = ?').run(BULK_LOADER);
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(WHOLE_AT_ROWS, this.rows());
  }

  /**
   * REINDEX, in one write transaction (readers go on with the indexes as they were until it commits), then the
   * pages it freed given back where the file allows it (auto_vacuum, set on every file made since), else kept
   * for later rows.
   */
  compactIndexes(minRows = COMPACT_MIN_ROWS): IndexCompaction | undefined {
    const rows = this.rows();
    const grown = rows - (metaValue(this.db, WHOLE_AT_ROWS) ?? 0);
    if (grown < minRows || grown < rows * COMPACT_SHARE) return undefined;
    if (this.liveBulkLoader() !== undefined || this.missingIndexes().length > 0) return undefined;
    const t0 = performance.now();
    const bytes = () => (this.db.pragma('page_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number);
    const before = bytes();
    this.db.transaction(() => {
      for (const name of COMPACTED) this.db.exec(`REINDEX ${name}`);
      this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(WHOLE_AT_ROWS, rows);
    }).immediate();
    if (this.db.pragma('auto_vacuum', { simple: true }) === 2) this.db.exec('PRAGMA incremental_vacuum');
    const reusableBytes = (this.db.pragma('freelist_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number);
    return { seconds: (performance.now() - t0) / 1000, freedBytes: before - bytes(), reusableBytes };
  }

  private rows(): number {
    return this.db.prepare<[], { n: number }>('SELECT coalesce(max(rowid), 0) AS n FROM quads').get()!.n;
  }

  /**
   * The process that took the read indexes down and is still running (WAL needs every process on one
   * host, so its pid says): while it loads, another catch-up must not build them back row by row. A
   * loader that was killed is no owner, and the next catch-up restores what it dropped.
   */
  liveBulkLoader(): number | undefined {
    const pid = metaValue(this.db, BULK_LOADER);
    if (pid === undefined) return undefined;
    if (pid === process.pid) return pid;
    try {
      process.kill(pid, 0);
      return pid;
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
    }
  }

  /** Indexes of the schema that are not there (those `dropReadIndexes` took down and nobody restored yet). */
  missingIndexes(): string[] {
    const have = new Set(this.db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index'").all().map((r) => r.name));
    return SCHEMA_INDEXES.filter((name) => !have.has(name));
  }
}
