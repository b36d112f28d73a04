import fs from 'node:fs';
import Database from 'better-sqlite3';
import { openSqliteWal } from '../util/sqlite-wal.ts';
import { termHash, termHash32 } from '../rdf/terms.ts';
import { LogGaps } from './log-gaps.ts';
import { graphColumn, graphRuns, type GraphRows } from './backend.ts';
import { SqliteTermCheckMemo, type TermCheckMemo } from './term-check-memo.ts';
import { COUNT_TOTALS_KEY, SQLITE_ADD_CHANGE } from './count-totals.ts';
import { BULK_LOADER, SqliteIndexes, createSqliteSchema, hasNamedGraphColumn, hasOldQuadsFormat, hasRowRuns, metaValue, quadsFormat } from './sqlite-schema.ts';
import { OPEN } from './rows.ts';
import { TermAffixes, codedLiteralTermsSql, hasCodedTerms } from './sqlite-terms.ts';
import { OPEN_ROW_LINE, literalTerm, type DocumentStates, type PendingWrites, type Statement, type TransactionState, type VersionDialect } from './dialect.ts';

/**
 * How long a writer waits for another process's write transaction (a `serve` and a `query` catching up
 * at once) before giving up: a batch of versions takes well under this.
 */
const BUSY_TIMEOUT_MS = 60_000;
/** Prepared statements kept for reuse (the SQL of a read with inline ids varies: bounded). */
const STATEMENT_CACHE = 256;
/**
 * A document's open rows with their terms' text. Rows keep no hash of their triple (eight bytes a row, the
 * table's largest column): the writer reads them only for a document that has a new version, and hashes
 * what this join gives (bench/ARCHIVE-SIZE.md).
 */
const SQLITE_OPEN_ROWS = `SELECT ? AS nt, q.rowid AS id, q.from_t, ${OPEN_ROW_LINE} AS line
  FROM quads q JOIN terms s ON s.id = q.s JOIN terms p ON p.id = q.p JOIN terms o ON o.id = q.o LEFT JOIN terms n ON n.id = q.ng
  WHERE q.g = ? AND q.end_t IS NULL`;

/** SQLITE_OPEN_ROWS of one version's run (backend.ts graphRuns): its rows that still hold. */
const SQLITE_OPEN_RUN_ROWS = `SELECT ? AS nt, q.rowid AS id, q.from_t, ${OPEN_ROW_LINE} AS line
  FROM quads q JOIN terms s ON s.id = q.s JOIN terms p ON p.id = q.p JOIN terms o ON o.id = q.o LEFT JOIN terms n ON n.id = q.ng
  WHERE q.rowid BETWEEN ? AND ? AND q.g = ? AND q.from_t = ? AND q.end_t IS NULL`;

/**
 * The versioned store in SQLite (`<data>/versions.sqlite`): better-sqlite3 in process, so each statement
 * costs no round trip and a version is written as it is made (store.ts does the rest).
 */
export class SqliteVersionDialect implements VersionDialect {
  readonly kind = 'sqlite' as const;
  readonly prefix = '';
  readonly rowId = 'rowid';
  readonly endColumn: string;
  readonly binary = '';
  readonly bigintParam = '?';
  readonly chunk = 500;
  readonly remote = false;
  readonly ng: string;
  readonly rowRuns: boolean;
  readonly graphRows: GraphRows;
  readonly writable: boolean;
  readonly keepsTotals: boolean;
  readonly logGaps: LogGaps;
  readonly db: Database.Database;
  readonly indexes: SqliteIndexes;
  readonly termHash: (nt: string) => number;
  /** The dictionary is coded (sqlite-terms.ts); false only in an older file opened read-only. */
  private readonly coded: boolean;
  private readonly affixes: TermAffixes | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  private beganSeen: number | undefined;
  private generationSeen: number | undefined;

  constructor(readonly file: string, opts: { readonly?: boolean } = {}) {
    this.writable = !opts.readonly;
    this.db = this.writable ? openSqliteWal(file, BUSY_TIMEOUT_MS) : new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    this.indexes = new SqliteIndexes(this.db);
    if (this.writable) {
      // A catch-up in another process that took the read indexes down for a bulk load builds them when it
      // is done; building them here, row by row behind it, would undo what it saves. A file of an older
      // layout is brought up to date all the same: this process's writes need the new one.
      if (this.indexes.liveBulkLoader() === undefined || hasOldQuadsFormat(this.db) || hasRowRuns(this.db) === false || !hasCodedTerms(this.db)) createSqliteSchema(this.db);
    }
    // A file whose dictionary is not coded (opened read-only) is read with the hash it was written with.
    this.coded = hasCodedTerms(this.db);
    this.termHash = this.coded ? termHash32 : termHash;
    this.affixes = this.coded && this.writable ? new TermAffixes(this.db) : undefined;
    this.ng = hasNamedGraphColumn(this.db) !== false ? 'q.ng' : 'NULL';
    this.rowRuns = hasRowRuns(this.db) !== false;
    // A file of the layout before runs, opened read-only, still has its index of every row's document.
    this.graphRows = this.rowRuns ? graphRuns('versions', 'quads') : graphColumn;
    // A reader of an old-format file (not rewritten: opened read-only) reads its stored to_t.
    this.endColumn = quadsFormat(this.db) === 'stored-end' ? 'to_t' : 'end_t';
    this.logGaps = new LogGaps(this);
    this.keepsTotals = this.writable && metaValue(this.db, COUNT_TOTALS_KEY) !== undefined;
  }

  literalTermsSql(where: string): string {
    return this.coded ? codedLiteralTermsSql(where) : `SELECT id, nt FROM terms WHERE ${where} AND ${literalTerm('nt')}`;
  }

  noIndex(expr: string): string {
    return `+${expr}`;
  }

  anyOf(column: string, values: unknown[]): Statement {
    return { sql: `${column} IN (${values.map(() => '?').join(',')})`, params: values };
  }

  /**
   * A cached statement (`raw`: one of its own that gives rows as arrays), or a new one while the cached one is
   * being iterated: two reads of the same SQL may be open at once.
   */
  private prepare(sql: string, raw = false): Database.Statement {
    const key = raw ? `raw\0${sql}` : sql;
    let stmt = this.statements.get(key);
    if (stmt?.busy) {
      const own = this.db.prepare(sql);
      return raw ? own.raw() : own;
    }
    if (!stmt) {
      if (this.statements.size >= STATEMENT_CACHE) this.statements.clear();
      stmt = this.db.prepare(sql);
      this.statements.set(key, raw ? stmt.raw() : stmt);
    }
    return stmt;
  }

  all<R>(sql: string, params: unknown[] = []): R[] {
    return this.prepare(sql).all(...params) as R[];
  }

  get<R>(sql: string, params: unknown[] = []): R | undefined {
    return this.prepare(sql).get(...params) as R | undefined;
  }

  iterate<R>(sql: string, params: unknown[] = [], raw = false): Iterable<R> {
    return this.prepare(sql, raw).iterate(...params) as Iterable<R>;
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
    // Coded here (sqlite-terms.ts), inside the transaction: a new affix is inserted as the term is.
    add('INSERT INTO term_rows (id, h, x, body) VALUES (?, ?, ?, ?)', rows.terms.map(([id, h, nt]) => [id, h, ...this.affixes!.code(nt)]));
    // The end of a quad that holds is stored as NULL (sqlite-schema.ts quadsTable).
    add(`INSERT INTO quads (rowid, g, s, p, o, from_t, end_t, ng) VALUES (?, ?, ?, ?, ?, ?, nullif(?, ${OPEN}), ?)`, rows.quads);
    add('UPDATE quads SET end_t = ? WHERE g = ? AND rowid = ?', rows.closes.map(([g, id, to]) => [to, g, id]));
    add('INSERT OR REPLACE INTO versions (graph, time, kind, added, removed, triples, first_row, last_row) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', rows.versions);
    add(SQLITE_ADD_CHANGE, rows.sums);
    return out;
  }

  commit(statements: Statement[]): void {
    this.run(statements);
    this.db.exec('COMMIT');
    this.affixes?.commit();
  }

  rollback(): void {
    this.affixes?.rollback();
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** One document at a time: the store asks for the one it writes (no prefetch in process). */
  documentStates(nts: string[]): DocumentStates {
    const states: DocumentStates = { lasts: [], open: [] };
    for (const nt of nts) {
      const g = this.all<{ id: number; nt: string }>('SELECT id, nt FROM terms WHERE h = ?', [this.termHash(nt)]).find((r) => r.nt === nt)?.id;
      if (g === undefined) continue;
      const last = this.get<DocumentStates['lasts'][0]>('SELECT ? AS nt, time, kind, triples FROM versions WHERE graph = ? ORDER BY time DESC LIMIT 1', [nt, g]);
      if (!last) continue;
      states.lasts.push(last);
      // Rows are open only after a put: a new document (most of a first catch-up) has none to read.
      if (last.kind !== 'put') continue;
      if (!this.rowRuns) {
        states.open.push(...this.all<DocumentStates['open'][0]>(SQLITE_OPEN_ROWS, [nt, g]));
        continue;
      }
      // Through the runs of its versions, the latest first, until as many rows as the last version's triples are
      // found (each triple of it is one open row): a document that changed wholly is read in its last run alone.
      let found = 0;
      for (const run of this.all<{ time: number; a: number; b: number }>('SELECT time, first_row AS a, last_row AS b FROM versions WHERE graph = ? AND first_row IS NOT NULL ORDER BY time DESC', [g])) {
        if (found >= last.triples) break;
        const rows = this.all<DocumentStates['open'][0]>(SQLITE_OPEN_RUN_ROWS, [nt, run.a, run.b, g, run.time]);
        found += rows.length;
        for (const r of rows) states.open.push(r);
      }
    }
    return states;
  }

  clearTables(): void {
    // Not the affixes: another process's writer keeps their ids (sqlite-terms.ts TermAffixes).
    this.db.exec(`DELETE FROM quads; DELETE FROM versions; DELETE FROM term_rows; DELETE FROM term_forms; DELETE FROM term_classes; DELETE FROM count_sums;
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
    return new SqliteTermCheckMemo(this.db, this.termHash);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
