import fs from 'node:fs';
import Database from 'better-sqlite3';
import { termHash } from '../../rdf/terms.ts';
import { LOG_GAPS_DDL, LogGaps } from '../log-gaps.ts';
import { SQLITE_TERM_CHECK_DDL, SqliteTermCheckMemo, type TermCheckMemo } from '../term-check-memo.ts';
import { COUNT_TOTALS_KEY, SQLITE_ADD_CHANGE, SQLITE_COUNT_TOTALS_DDL, buildTotalsSql } from '../count-totals.ts';
import { OPEN } from './rows.ts';
import type { DocumentStates, PendingWrites, Statement, TransactionState, VersionDialect } from './dialect.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS terms (id INTEGER PRIMARY KEY, h INTEGER NOT NULL, nt TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS terms_by_hash ON terms (h);
CREATE TABLE IF NOT EXISTS versions (
  graph INTEGER NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL,
  added INTEGER NOT NULL, removed INTEGER NOT NULL, triples INTEGER NOT NULL,
  PRIMARY KEY (graph, time)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS versions_by_time ON versions (time);
CREATE TABLE IF NOT EXISTS quads (
  g INTEGER NOT NULL, s INTEGER NOT NULL, p INTEGER NOT NULL, o INTEGER NOT NULL,
  h INTEGER NOT NULL, from_t INTEGER NOT NULL, to_t INTEGER NOT NULL, ng INTEGER);
CREATE INDEX IF NOT EXISTS quads_by_graph ON quads (g, to_t);
CREATE INDEX IF NOT EXISTS quads_by_from ON quads (from_t);
CREATE INDEX IF NOT EXISTS quads_by_to ON quads (to_t);
CREATE INDEX IF NOT EXISTS quads_by_sp ON quads (s, p);
CREATE INDEX IF NOT EXISTS quads_by_p ON quads (p);
CREATE INDEX IF NOT EXISTS quads_by_op ON quads (o, p);
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
const BULK_LOADER = 'bulk_loader_pid';
/**
 * How long a writer waits for another process's write transaction (a `serve` and a `query` catching up
 * at once) before giving up: a batch of versions takes well under this.
 */
const BUSY_TIMEOUT_MS = 60_000;
/** Prepared statements kept for reuse (the SQL of a read with inline ids varies: bounded). */
const STATEMENT_CACHE = 256;

/**
 * The versioned store in SQLite (`<data>/versions.sqlite`): better-sqlite3 in process, so each statement
 * costs no round trip and a version is written as it is made (store.ts does the rest).
 */
export class SqliteVersionDialect implements VersionDialect {
  readonly kind = 'sqlite' as const;
  readonly prefix = '';
  readonly rowId = 'rowid';
  readonly binary = '';
  readonly bigintParam = '?';
  readonly chunk = 500;
  readonly remote = false;
  readonly ng: string;
  readonly writable: boolean;
  readonly keepsTotals: boolean;
  readonly logGaps: LogGaps;
  readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  private beganSeen: number | undefined;
  private generationSeen: number | undefined;

  constructor(readonly file: string, opts: { readonly?: boolean } = {}) {
    this.db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, timeout: BUSY_TIMEOUT_MS });
    this.writable = !opts.readonly;
    if (this.writable) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      // A catch-up in another process that took the read indexes down for a bulk load builds them when it
      // is done; building them here, row by row behind it, would undo what it saves.
      if (this.liveBulkLoader() === undefined) {
        this.db.exec(SCHEMA);
        if (this.hasNamedGraphColumn() === false) this.migrateNamedGraphs();
        this.createIndexes();
        this.buildCountTotals();
      }
    }
    this.ng = this.hasNamedGraphColumn() !== false ? 'q.ng' : 'NULL';
    this.logGaps = new LogGaps(this);
    this.keepsTotals = this.writable && this.metaValue(COUNT_TOTALS_KEY) !== undefined;
  }

  noIndex(expr: string): string {
    return `+${expr}`;
  }

  anyOf(column: string, values: unknown[]): Statement {
    return { sql: `${column} IN (${values.map(() => '?').join(',')})`, params: values };
  }

  private prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      this.statements.set(sql, (stmt = this.db.prepare(sql)));
    }
    return stmt;
  }

  all<R>(sql: string, params: unknown[] = []): R[] {
    return this.prepare(sql).all(...params) as R[];
  }

  get<R>(sql: string, params: unknown[] = []): R | undefined {
    return this.prepare(sql).get(...params) as R | undefined;
  }

  /** A statement of its own (not the cache's): two iterations of the same SQL may be open at once. */
  iterate<R>(sql: string, params: unknown[] = [], raw = false): Iterable<R> {
    const stmt = this.db.prepare(sql);
    return (raw ? stmt.raw() : stmt).iterate(...params) as Iterable<R>;
  }

  run<R>(statements: Statement[]): R[][] {
    return statements.map((s) => {
      const stmt = this.prepare(s.sql);
      if (s.each) {
        for (const row of s.each) stmt.run(...row);
        return [];
      }
      return stmt.reader ? (stmt.all(...(s.params ?? [])) as R[]) : (stmt.run(...(s.params ?? [])), []);
    });
  }

  /** A value of the meta table; undefined also in a new file opened read-only (no meta table). */
  private metaValue(key: string): number | undefined {
    try {
      return this.get<{ value: number }>('SELECT value FROM meta WHERE key = ?', [key])?.value;
    } catch {
      return undefined;
    }
  }

  /** Whether the quads table has the named-graph column; undefined when there is no quads table yet. */
  private hasNamedGraphColumn(): boolean | undefined {
    const columns = this.db.prepare<[], { name: string }>('PRAGMA table_info(quads)').all();
    return columns.length === 0 ? undefined : columns.some((c) => c.name === 'ng');
  }

  /**
   * A store from before named graphs put every quad in its document's graph. The column is added, and
   * the indexed log id dropped so that the next catch-up empties the store and indexes the crawl log
   * again from the WARC conversion records (which kept the graph names): nothing is lost, and an archive
   * of any age opens.
   */
  private migrateNamedGraphs(): void {
    this.db.transaction(() => {
      this.db.exec('ALTER TABLE quads ADD COLUMN ng INTEGER');
      this.db.prepare('DELETE FROM meta WHERE key = ?').run('indexed_log_id');
    })();
  }

  /** A store written before count_sums gains it, filled from its versions in one statement (once). */
  private buildCountTotals(): void {
    if (this.metaValue(COUNT_TOTALS_KEY) !== undefined) return;
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM count_sums; ${buildTotalsSql('count_sums', 'versions')}`);
      this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(COUNT_TOTALS_KEY, 1);
    })();
  }

  /** BEGIN IMMEDIATE: a second writer waits here, up to the busy timeout, instead of failing half-way. */
  begin(): TransactionState & { changed: boolean } {
    this.db.exec('BEGIN IMMEDIATE');
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const changed = this.beganSeen !== undefined && dataVersion !== this.beganSeen;
    this.beganSeen = dataVersion;
    const max = this.get<{ r: number | null; t: number | null }>('SELECT (SELECT max(rowid) FROM quads) AS r, (SELECT max(id) FROM terms) AS t')!;
    return { nextRow: (max.r ?? 0) + 1, nextTerm: (max.t ?? 0) + 1, wrote: false, changed };
  }

  writeStatements(rows: PendingWrites): Statement[] {
    const out: Statement[] = [];
    const add = (sql: string, each: unknown[][]) => {
      if (each.length > 0) out.push({ sql, each });
    };
    add('INSERT INTO terms (id, h, nt) VALUES (?, ?, ?)', rows.terms);
    add('INSERT INTO quads (rowid, g, s, p, o, h, from_t, to_t, ng) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', rows.quads);
    add('UPDATE quads SET to_t = ? WHERE g = ? AND rowid = ?', rows.closes.map(([g, id, to]) => [to, g, id]));
    add('INSERT OR REPLACE INTO versions (graph, time, kind, added, removed, triples) VALUES (?, ?, ?, ?, ?, ?)', rows.versions);
    add(SQLITE_ADD_CHANGE, rows.sums);
    return out;
  }

  commit(statements: Statement[]): void {
    this.run(statements);
    this.db.exec('COMMIT');
  }

  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** One document at a time: the store asks for the one it writes (no prefetch in process). */
  documentStates(nts: string[]): DocumentStates {
    const states: DocumentStates = { lasts: [], open: [] };
    for (const nt of nts) {
      const g = this.all<{ id: number; nt: string }>('SELECT id, nt FROM terms WHERE h = ?', [termHash(nt)]).find((r) => r.nt === nt)?.id;
      if (g === undefined) continue;
      const last = this.get<DocumentStates['lasts'][0]>('SELECT ? AS nt, time, kind, triples FROM versions WHERE graph = ? ORDER BY time DESC LIMIT 1', [nt, g]);
      if (!last) continue;
      states.lasts.push(last);
      // Rows are open only after a put: a new document (most of a first catch-up) has none to read.
      if (last.kind === 'put') states.open.push(...this.all<DocumentStates['open'][0]>(`SELECT ? AS nt, rowid AS id, h, from_t FROM quads WHERE g = ? AND to_t = ${OPEN}`, [nt, g]));
    }
    return states;
  }

  clearTables(): void {
    this.db.exec(`DELETE FROM quads; DELETE FROM versions; DELETE FROM terms; DELETE FROM term_forms; DELETE FROM term_classes; DELETE FROM count_sums;
      DELETE FROM meta WHERE key NOT IN ('${BULK_LOADER}', '${COUNT_TOTALS_KEY}');`);
    this.logGaps.clear();
  }

  /** This connection's writes (which SQLite's data_version does not count) and every other one's. */
  generation(localWrites: number): { key: string; changed: boolean } {
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const changed = this.generationSeen !== undefined && dataVersion !== this.generationSeen;
    this.generationSeen = dataVersion;
    return { key: `${localWrites}:${dataVersion}`, changed };
  }

  /** Bytes of the file and its WAL on disk now. */
  size(): { file: string; bytes: number } {
    let bytes = 0;
    for (const f of [this.file, `${this.file}-wal`]) if (fs.existsSync(f)) bytes += fs.statSync(f).size;
    return { file: this.file, bytes };
  }

  termCheckMemo(): TermCheckMemo {
    return new SqliteTermCheckMemo(this.db);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Drops the indexes of `quads` that only readers use (every one not led by the document column `g`,
   * which the writer reads a graph's open rows through), before a bulk load; `restoreIndexes` builds them
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
    this.statements.clear(); // prepared against the indexes just dropped
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(BULK_LOADER, process.pid);
    return dropped;
  }

  /**
   * Every index of the schema (CREATE INDEX IF NOT EXISTS: nothing to do when they are there). Also what
   * puts back the indexes a bulk catch-up took down, if it was killed before it could (on the next open
   * for writing, or the next catch-up).
   */
  private createIndexes(): void {
    this.db.exec(SCHEMA);
    this.db.exec('CREATE INDEX IF NOT EXISTS quads_by_ng ON quads (ng) WHERE ng IS NOT NULL');
    this.statements.clear();
  }

  /** Builds every index missing (after `dropReadIndexes`); inside `writeTransaction`. */
  restoreIndexes(): void {
    this.createIndexes();
    this.db.prepare('DELETE FROM meta WHERE key = ?').run(BULK_LOADER);
  }

  /**
   * The process that took the read indexes down and is still running (WAL needs every process on one
   * host, so its pid says): while it loads, another catch-up must not build them back row by row. A
   * loader that was killed is no owner, and the next catch-up restores what it dropped.
   */
  liveBulkLoader(): number | undefined {
    const pid = this.metaValue(BULK_LOADER);
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
