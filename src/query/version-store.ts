import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Quad } from '@rdfjs/types';
import { iriTerm, skolemise, termHash, type NtQuad } from '../rdf/terms.ts';
import { LOG_GAPS_DDL, LogGaps } from './log-gaps.ts';
import { inEngineForm } from './engine-form.ts';
import { SQLITE_TERM_CHECK_DDL, SqliteTermCheckMemo, type TermCheckMemo } from './term-check-memo.ts';
import { COUNT_TOTALS_KEY, SQLITE_ADD_CHANGE, SQLITE_COUNT_TOTALS_DDL, buildTotalsSql, sumRows, totalChange } from './count-totals.ts';
import { countSql, firstByRowId, limitClause, patternConditions, type CountRequest, type RowConstants, type VersionBackend } from './backend.ts';
import { entriesForHeapShare } from '../util/memory.ts';
import type {
  ArchiveStats, Delta, GraphSummary, Interval, PatternVersions, QuadRow, TriplePattern,
  VersionInfo, VersionKind,
} from './types.ts';

/** `to_t` of a triple that still holds: a number, so that one index serves "valid at T" for every T. */
export const OPEN = Number.MAX_SAFE_INTEGER;
import { VERSIONS_FILE } from '../util/data-dir.ts';
export { VERSIONS_FILE };

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

/** A term of the dictionary that is a literal with a datatype or a language tag (its N-Triples text). */
const LITERAL_TERM = `nt LIKE '"%' AND (nt LIKE '%"^^<%' OR nt LIKE '%"@%')`;

/**
 * The rows of named graphs valid at T, through the partial index of named-graph rows (quads_by_ng): the
 * unary `+` keeps SQLite from taking the validity's index instead, which read every open row (2.5 s a
 * count at 1,000,000 documents, where no row has a named graph) against 0.5 ms.
 */
const NAMED_ROWS_AT_T = 'q.ng IS NOT NULL AND +q.to_t > ? AND +q.from_t <= ?';
/** Whether any row of a named graph is valid at T (countAt: the snapshot's dm:inDocument statements). */
export const NAMED_ROW_AT_T = `SELECT 1 FROM quads q WHERE ${NAMED_ROWS_AT_T} LIMIT 1`;

/** Every index the schema makes (quads_by_ng apart: it needs the `ng` column, which old stores gain on open). */
const SCHEMA_INDEXES = [...[...SCHEMA.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) => m[1]!), 'quads_by_ng'];

/** The meta key of the pid of a process bulk-loading the store with its read indexes down. */
const BULK_LOADER = 'bulk_loader_pid';
/** The meta key of the last crawl-log id indexed into the store (src/query/catch-up.ts). */
const INDEXED_LOG_ID = 'indexed_log_id';
/**
 * How long a writer waits for another process's write transaction (a `serve` and a `query` catching up
 * at once) before giving up: a batch of versions takes well under this.
 */
const BUSY_TIMEOUT_MS = 60_000;

/**
 * `g` is the document (the unit of versioning), `ng` the quad's own graph inside the document's dataset
 * (a term id; NULL for the document's default graph). A store made before `ng` existed is migrated on open
 * and re-indexed from the WARC conversion records, which always kept the graph names.
 */
const QUAD_COLUMNS = `tg.nt AS g, ts.nt AS s, tp.nt AS p, t_o.nt AS o, tn.nt AS ng`;
const QUAD_JOINS = `JOIN terms tg ON tg.id = q.g JOIN terms ts ON ts.id = q.s JOIN terms tp ON tp.id = q.p JOIN terms t_o ON t_o.id = q.o LEFT JOIN terms tn ON tn.id = q.ng`;
/** The same for a store opened read-only that predates `ng` (every quad in its document's graph). */
const OLD_QUAD_COLUMNS = `tg.nt AS g, ts.nt AS s, tp.nt AS p, t_o.nt AS o, NULL AS ng`;
const OLD_QUAD_JOINS = `JOIN terms tg ON tg.id = q.g JOIN terms ts ON ts.id = q.s JOIN terms tp ON tp.id = q.p JOIN terms t_o ON t_o.id = q.o`;

export interface RawRow { g: string; s: string; p: string; o: string; ng: string | null }

export type { RowConstants };

export function checkTime(time: number, what: string): number {
  if (!Number.isFinite(time)) throw new Error(`${what}: time must be epoch milliseconds, got ${time}`);
  return Math.floor(time);
}

export function toQuadRow(r: RawRow): QuadRow {
  const row: QuadRow = { graph: r.g.slice(1, -1), s: r.s, p: r.p, o: r.o };
  if (r.ng) row.namedGraph = r.ng;
  return row;
}

/** The N-Quads line of a row (for loading into Oxigraph and for output): in its own graph, else its document's. */
export function nquadLine(q: QuadRow): string {
  return `${q.s} ${q.p} ${q.o} ${q.namedGraph ?? iriTerm(q.graph)} .`;
}
export function ntripleLine(q: QuadRow): string {
  return `${q.s} ${q.p} ${q.o} .`;
}

/** Term ids cached: about 100 bytes each (the term's text and the map's slot), at most a sixteenth of the heap. */
const TERM_CACHE_ENTRIES = entriesForHeapShare(128, 1 / 16, 2_000, 200_000);

/**
 * The versioned archive of every document graph: BEAR's timestamp-based storage (TB). Each triple of a
 * graph is one row per validity interval [from_t, to_t) over a term dictionary, so a new version costs
 * only its delta, any instant is one range scan, and a version query reads a triple's intervals directly.
 */
export class VersionArchive implements VersionBackend {
  readonly file: string;
  readonly kind = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly termIds = new Map<string, number>();
  private generationCounter = 0;

  private readonly stmts: ReturnType<typeof prepareStatements>;
  /** Crawl-log ids the catch-up went past unseen (rows that may still commit late). */
  readonly logGaps: LogGaps;

  constructor(file: string, opts: { readonly?: boolean } = {}) {
    this.file = file;
    this.db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false, timeout: BUSY_TIMEOUT_MS });
    if (!opts.readonly) {
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
    const current = this.hasNamedGraphColumn() !== false;
    this.cols = current ? QUAD_COLUMNS : OLD_QUAD_COLUMNS;
    this.joins = current ? QUAD_JOINS : OLD_QUAD_JOINS;
    this.ngColumn = current ? 'q.ng' : 'NULL';
    this.ngKey = current ? 'ifnull(q.ng, 0)' : '0';
    this.stmts = prepareStatements(this.db);
    this.logGaps = new LogGaps(this.db);
    this.keepsTotals = !opts.readonly && this.countTotals() !== undefined;
  }

  /** Whether this writer keeps count_sums (count-totals.ts) with each version. */
  private readonly keepsTotals: boolean;

  /** A store written before count_sums gains it, filled from its versions in one statement (once). */
  private buildCountTotals(): void {
    if (this.countTotals() !== undefined) return;
    this.db.transaction(() => {
      this.db.exec(`DELETE FROM count_sums; ${buildTotalsSql('count_sums', 'versions')}`);
      this.db.prepare<[string, number]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(COUNT_TOTALS_KEY, 1);
    })();
  }

  /** The table of changes summed per bucket of time when it holds every version; undefined in a store without it. */
  private countTotals(): string | undefined {
    try {
      return this.db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(COUNT_TOTALS_KEY) ? 'count_sums' : undefined;
    } catch {
      return undefined; // a new file opened read-only: no meta table
    }
  }

  private readonly cols: string;
  private readonly joins: string;
  private readonly ngColumn: string;
  private readonly ngKey: string;

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
      this.db.prepare('DELETE FROM meta WHERE key = ?').run(INDEXED_LOG_ID);
    })();
  }

  /**
   * Every index of the schema (CREATE INDEX IF NOT EXISTS: nothing to do when they are there). Also what
   * puts back the indexes a bulk catch-up took down, if it was killed before it could (on the next open
   * for writing, or the next catch-up).
   */
  private createIndexes(): void {
    this.db.exec(SCHEMA);
    this.db.exec('CREATE INDEX IF NOT EXISTS quads_by_ng ON quads (ng) WHERE ng IS NOT NULL');
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
    this.db.prepare<[string, number]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(BULK_LOADER, process.pid);
    return dropped;
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
    let pid: number | undefined;
    try {
      pid = this.db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(BULK_LOADER)?.value;
    } catch {
      return undefined; // a new file: no meta table yet
    }
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

  /** Changes whenever this or another connection writes: a cache key for materialised snapshots. */
  get generation(): string {
    return `${this.generationCounter}:${this.db.pragma('data_version', { simple: true })}`;
  }

  // ---- writes -------------------------------------------------------------------------------------

  async putVersion(graph: string, time: number, quads: Iterable<Quad>): Promise<{ added: number; removed: number }> {
    this.batch();
    return this.putVersionNow(graph, time, quads);
  }

  /** putVersion inside the caller's transaction (see `writeTransaction`), in a savepoint of its own. */
  putVersionNow(graph: string, time: number, quads: Iterable<Quad>): { added: number; removed: number } {
    checkGraph(graph);
    const t = checkTime(time, `putVersion(${graph})`);
    const triples = skolemise(graph, quads);
    return this.db.transaction(() => this.applyVersion(graph, t, triples))();
  }

  private batchTimer: NodeJS.Timeout | undefined;

  /**
   * Groups a crawl's versions into one transaction committed every 100 ms: a commit per document
   * cost more than the delta itself (measured in the crawl benchmark). Each version still runs in
   * its own savepoint, so a failed one rolls back alone.
   */
  private batch(): void {
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.batchTimer = setTimeout(() => this.commit(), 100);
    this.batchTimer.unref?.();
  }

  /** Commits the batch of putVersion calls still open: another connection (a query process) sees them then. */
  flush(): void {
    this.commit();
  }

  private commit(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    if (this.db.open && this.db.inTransaction) this.db.exec('COMMIT');
  }

  async deleteGraph(graph: string, time: number): Promise<void> {
    this.batch();
    this.deleteGraphNow(graph, time);
  }

  /**
   * deleteGraph inside the caller's transaction; true if it logged a deletion. A graph the store never
   * saw, or already deleted, is no event (and costs no new term).
   */
  deleteGraphNow(graph: string, time: number): boolean {
    checkGraph(graph);
    const t = checkTime(time, `deleteGraph(${graph})`);
    const g = this.graphId(graph);
    const last = g === undefined ? undefined : this.stmts.lastVersion.get(g);
    if (!last || last.kind === 'deleted') return false;
    this.db.transaction(() => this.applyVersion(graph, t, undefined))();
    return true;
  }

  private dataVersionSeen: number | undefined;

  /**
   * Runs `fn` holding SQLite's write lock (BEGIN IMMEDIATE: a second writer waits here, up to the busy
   * timeout, instead of failing half-way), commits if it returns, rolls back if it throws. Whatever `fn`
   * reads inside is what no other process can change before the commit.
   */
  writeTransaction<T>(fn: () => T): T {
    this.commit(); // a batch of putVersion calls still open is committed first
    this.db.exec('BEGIN IMMEDIATE');
    try {
      // Another connection wrote since our last transaction: term ids it removed (a rebuild) must not be
      // taken from our cache.
      const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
      if (this.dataVersionSeen !== undefined && dataVersion !== this.dataVersionSeen) this.termIds.clear();
      this.dataVersionSeen = dataVersion;
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (e) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
  }

  /** The last crawl-log id indexed into this store; undefined when none was ever recorded. */
  indexedLogId(): number | undefined {
    // Prepared here, not with the other statements: a read-only store written before the meta table has none.
    return this.db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(INDEXED_LOG_ID)?.value;
  }

  setIndexedLogId(id: number): void {
    this.db.prepare<[string, number]>('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(INDEXED_LOG_ID, id);
  }

  /** Whether the store holds any version (a store with versions but no indexed log id predates the indexer). */
  hasVersions(): boolean {
    return this.db.prepare('SELECT 1 FROM versions LIMIT 1').get() !== undefined;
  }

  /** Empties the store (inside `writeTransaction`), to index it again from the start. */
  clear(): void {
    this.db.exec(`DELETE FROM quads; DELETE FROM versions; DELETE FROM terms; DELETE FROM term_forms; DELETE FROM term_classes; DELETE FROM count_sums;
      DELETE FROM meta WHERE key NOT IN ('${BULK_LOADER}', '${COUNT_TOTALS_KEY}');`);
    this.logGaps.clear();
    this.termIds.clear();
    this.generationCounter++;
  }

  async close(): Promise<void> {
    this.commit();
    if (this.db.open) this.db.close();
  }

  /** One version: `triples` undefined means the graph is gone. */
  private applyVersion(graph: string, time: number, triples: NtQuad[] | undefined): { added: number; removed: number } {
    const g = this.termId(iriTerm(graph));
    const last = this.stmts.lastVersion.get(g);
    if (last && time < last.time) {
      throw new Error(`putVersion(${graph}): time ${new Date(time).toISOString()} is before the graph's last version ${new Date(last.time).toISOString()}`);
    }
    // Triples are compared by a hash of their text: an unchanged triple costs no dictionary look-up.
    const current = new Map<number, { rowid: number; from: number }>();
    // Rows are open only after a put: a new document (most of a first catch-up) has none to read.
    if (last?.kind === 'put') for (const r of this.stmts.openRows.iterate(g)) current.set(r.h, { rowid: r.rowid, from: r.from_t });
    let added = 0;
    let removed = 0;
    const kept = new Set<number>();
    const seen = new Set<number>();
    for (const [s, p, o, ng] of triples ?? []) {
      const h = tripleHash(s, p, o, ng);
      if (seen.has(h)) continue; // the same triple twice in one version
      seen.add(h);
      if (current.has(h)) { kept.add(h); continue; }
      this.stmts.insertQuad().run(g, this.termId(s), this.termId(p), this.termId(o), h, time, ng ? this.termId(ng) : null);
      added++;
    }
    for (const [h, row] of current) {
      if (kept.has(h)) continue;
      // A row born at this same instant was never visible: drop it instead of leaving an empty interval.
      if (row.from === time) this.stmts.deleteQuad.run(row.rowid);
      else this.stmts.closeQuad.run(time, row.rowid);
      removed++;
    }
    const kind: VersionKind = triples ? 'put' : 'deleted';
    const sameInstant = last?.time === time;
    // Deleting what is unknown or already gone is no event; an unchanged put is still a version (Ver lists it).
    if (!triples && (!last || last.kind === 'deleted')) return { added: 0, removed: 0 };
    if (sameInstant) {
      // Against the version before this instant, not against the replaced one.
      added = this.stmts.countAddedAt.get(g, time)!.n;
      removed = this.stmts.countRemovedAt.get(g, time)!.n;
    }
    this.stmts.putVersionRow.run(g, time, kind, added, removed, seen.size);
    if (this.keepsTotals) for (const row of sumRows([[time, totalChange(seen.size, last)]])) this.stmts.addChange().run(...row);
    this.generationCounter++;
    return { added, removed };
  }

  private termId(nt: string): number {
    const cached = this.termIds.get(nt);
    if (cached !== undefined) return cached;
    const h = termHash(nt);
    // One row per hash but for a 48-bit collision: `get` is a third of the cost of an iterator.
    const first = this.stmts.termByHash.get(h);
    let id = first === undefined ? undefined : first.nt === nt ? first.id : this.termByText(h, nt);
    if (id === undefined) id = Number(this.stmts.insertTerm.run(h, nt).lastInsertRowid);
    // Bounded: predicates and common IRIs stay hot, a 10^5-document crawl does not grow the heap forever,
    // and a small heap (serve under --max-old-space-size=48) keeps a cache its size.
    if (this.termIds.size >= TERM_CACHE_ENTRIES) this.termIds.clear();
    this.termIds.set(nt, id);
    return id;
  }

  private termByText(h: number, nt: string): number | undefined {
    for (const row of this.stmts.termByHash.iterate(h)) if (row.nt === nt) return row.id;
    return undefined;
  }

  private graphId(graph: string): number | undefined {
    const nt = iriTerm(graph);
    const cached = this.termIds.get(nt);
    if (cached !== undefined) return cached;
    for (const row of this.stmts.termByHash.iterate(termHash(nt))) if (row.nt === nt) return row.id;
    return undefined;
  }

  private graphIds(graphs: string[] | undefined): number[] | undefined {
    if (!graphs) return undefined;
    return graphs.map((g) => this.graphId(g)).filter((id): id is number => id !== undefined);
  }

  // ---- reads --------------------------------------------------------------------------------------

  /** Every document graph with its version span and current size. */
  graphs(): GraphSummary[] {
    const rows = this.db.prepare<[], { graph: string; firstTime: number; lastTime: number; versions: number; lastKind: VersionKind; triples: number }>(`
      SELECT t.nt AS graph, min(v.time) AS firstTime, max(v.time) AS lastTime, count(*) AS versions,
        (SELECT kind FROM versions l WHERE l.graph = v.graph ORDER BY time DESC LIMIT 1) AS lastKind,
        (SELECT triples FROM versions l WHERE l.graph = v.graph ORDER BY time DESC LIMIT 1) AS triples
      FROM versions v JOIN terms t ON t.id = v.graph GROUP BY v.graph ORDER BY t.nt`).all();
    return rows.map((r) => ({
      graph: r.graph.slice(1, -1), firstTime: r.firstTime, lastTime: r.lastTime, versions: r.versions,
      deleted: r.lastKind === 'deleted', triples: r.triples,
    }));
  }

  /** The version log of one graph, oldest first (empty if the archive never saw it). */
  versions(graph: string): VersionInfo[] {
    const g = this.graphId(graph);
    if (g === undefined) return [];
    return this.db.prepare<[number], VersionInfo>(
      'SELECT time, kind, added, removed, triples FROM versions WHERE graph = ? ORDER BY time').all(g);
  }

  /** Distinct instants at which some (selected) graph got a version: where answers can change. */
  changePoints(opts: { graphs?: string[]; from?: number; to?: number; limit?: number } = {}): number[] {
    const ids = this.graphIds(opts.graphs);
    if (ids && ids.length === 0) return [];
    const where = [`time >= ${Math.floor(opts.from ?? -OPEN)}`, `time <= ${Math.floor(opts.to ?? OPEN)}`];
    if (ids) where.push(`(graph IN (${ids.join(',')}) OR graph IN (SELECT DISTINCT q.g FROM quads q WHERE ${this.ngColumn} IN (${ids.join(',')})))`);
    return this.db.prepare<[], { time: number }>(`SELECT DISTINCT time FROM versions WHERE ${where.join(' AND ')} ORDER BY time${limitClause(opts.limit)}`)
      .all().map((r) => r.time);
  }

  /** The quads valid at instant `at` (inclusive: a version at exactly `at` counts), streamed. */
  *snapshot(at: number, opts: { graphs?: string[] } = {}): Generator<QuadRow> {
    const t = checkTime(at, 'snapshot');
    const ids = this.graphIds(opts.graphs);
    if (ids) {
      if (ids.length === 0) return;
      // A selected IRI is a document (its whole dataset) or a named graph inside documents (its quads).
      const list = ids.join(',');
      const stmt = this.db.prepare<[number, number], RawRow>(
        `SELECT ${this.cols} FROM quads q ${this.joins} WHERE (q.g IN (${list}) OR ${this.ngColumn} IN (${list})) AND q.to_t > ? AND q.from_t <= ?`);
      for (const r of stmt.iterate(t, t)) yield toQuadRow(r);
      return;
    }
    const stmt = this.db.prepare<[number, number], RawRow>(
      `SELECT ${this.cols} FROM quads q ${this.joins} WHERE q.to_t > ? AND q.from_t <= ?`);
    for (const r of stmt.iterate(t, t)) yield toQuadRow(r);
  }

  /**
   * Diff(from, to): what was added and removed between the state at `from` and the state at `to`.
   * A triple removed and re-added in between is in neither list (it holds at both instants).
   */
  delta(from: number, to: number, opts: { graphs?: string[] } = {}): Delta {
    const t1 = checkTime(from, 'delta');
    const t2 = checkTime(to, 'delta');
    if (t2 < t1) throw new Error('delta: `to` is before `from`');
    const ids = this.graphIds(opts.graphs);
    if (ids && ids.length === 0) return { from: t1, to: t2, added: [], removed: [] };
    const inGraphs = ids ? ` AND (q.g IN (${ids.join(',')}) OR ${this.ngColumn} IN (${ids.join(',')}))` : '';
    const addedRows = this.db.prepare<[number, number, number], RawRow & { k: string }>(
      `SELECT q.g || ' ' || q.s || ' ' || q.p || ' ' || q.o || ' ' || ${this.ngKey} AS k, ${this.cols} FROM quads q ${this.joins}
       WHERE q.from_t > ? AND q.from_t <= ? AND q.to_t > ?${inGraphs}`).all(t1, t2, t2);
    const removedRows = this.db.prepare<[number, number, number], RawRow & { k: string }>(
      `SELECT q.g || ' ' || q.s || ' ' || q.p || ' ' || q.o || ' ' || ${this.ngKey} AS k, ${this.cols} FROM quads q ${this.joins}
       WHERE q.to_t > ? AND q.to_t <= ? AND q.from_t <= ?${inGraphs}`).all(t1, t2, t1);
    const addedKeys = new Set(addedRows.map((r) => r.k));
    const removedKeys = new Set(removedRows.map((r) => r.k));
    return {
      from: t1,
      to: t2,
      added: addedRows.filter((r) => !removedKeys.has(r.k)).map(toQuadRow),
      removed: removedRows.filter((r) => !addedKeys.has(r.k)).map(toQuadRow),
    };
  }

  /**
   * Ver(pattern): every quad matching a triple pattern at some time, with its validity intervals and the
   * versions of its graph in which it holds. Reads the timestamped rows directly (no materialisation).
   */
  patternVersions(pattern: TriplePattern): PatternVersions[] {
    const where: string[] = [];
    const args: number[] = [];
    for (const [column, position] of [['s', pattern.s], ['p', pattern.p], ['o', pattern.o], ['g', pattern.graph]] as const) {
      if (!position || !('term' in position)) continue;
      const nt = column === 'g' ? (position.term.startsWith('<') ? position.term : iriTerm(position.term)) : position.term;
      const id = column === 'g' ? this.graphId(nt.slice(1, -1)) : this.lookupTerm(nt);
      if (id === undefined) return [];
      // A graph constant names a document or a named graph inside one.
      if (column === 'g') {
        where.push(`(q.g = ? OR ${this.ngColumn} = ?)`);
        args.push(id, id);
      } else {
        where.push(`q.${column} = ?`);
        args.push(id);
      }
    }
    const rows = this.db.prepare<number[], RawRow & { k: string; from_t: number; to_t: number; gid: number }>(
      `SELECT q.g || ' ' || q.s || ' ' || q.p || ' ' || q.o || ' ' || ${this.ngKey} AS k, q.g AS gid, q.from_t, q.to_t, ${this.cols}
       FROM quads q ${this.joins} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY k, q.from_t`).all(...args);
    const byKey = intervalsByQuad(rows, pattern);
    const versionTimes = this.db.prepare<[number], { time: number }>(`SELECT time FROM versions WHERE graph = ? AND kind = 'put' ORDER BY time`);
    const timesOf = new Map<number, number[]>();
    const out: PatternVersions[] = [];
    for (const { gid, ...entry } of byKey.values()) {
      let times = timesOf.get(gid);
      if (!times) timesOf.set(gid, (times = versionTimes.all(gid).map((r) => r.time)));
      entry.versions = times.filter((t) => entry.intervals.some((i: Interval) => t >= i.from && (i.to === undefined || t < i.to)));
      out.push(entry);
    }
    return out;
  }

  private lookupTerm(nt: string): number | undefined {
    const cached = this.termIds.get(nt);
    if (cached !== undefined) return cached;
    for (const row of this.stmts.termByHash.iterate(termHash(nt))) if (row.nt === nt) return row.id;
    return undefined;
  }

  /** Size and counts (bytes are what the file and its WAL take on disk now). */
  stats(): ArchiveStats {
    const count = (sql: string): number => (this.db.prepare<[], { n: number }>(sql).get()!.n);
    let bytes = 0;
    for (const f of [this.file, `${this.file}-wal`]) if (fs.existsSync(f)) bytes += fs.statSync(f).size;
    return {
      file: this.file,
      bytes,
      graphs: count('SELECT count(DISTINCT graph) AS n FROM versions'),
      versions: count('SELECT count(*) AS n FROM versions'),
      terms: count('SELECT count(*) AS n FROM terms'),
      rows: count('SELECT count(*) AS n FROM quads'),
    };
  }

  // ---- reads for the query planner (src/query/plan) ----------------------------------------------

  /**
   * The quads valid at `at`, streamed in row-id order: the order a query's rows are loaded in, whichever
   * rows those are, so that the engine answers in the same order over the whole snapshot as over the
   * rows of a query's patterns.
   */
  *snapshotRows(at: number, opts: { graphs?: string[] } = {}): Generator<[rowid: number, row: QuadRow]> {
    const t = checkTime(at, 'snapshot');
    const inGraphs = this.inGraphs(opts.graphs);
    if (inGraphs === false) return;
    const stmt = this.db.prepare<[number, number], RawRow & { rid: number }>(
      `SELECT q.rowid AS rid, ${this.cols} FROM quads q ${this.joins} WHERE q.to_t > ? AND q.from_t <= ?${inGraphs} ORDER BY q.rowid`);
    for (const r of stmt.iterate(t, t)) yield [r.rid, toQuadRow(r)];
  }

  /**
   * The ids of the rows valid at `at` whose terms are those of a pattern's constants (N-Triples;
   * undefined: any), through the index of its most selective bound position; no term is read. A constant
   * the dictionary lacks matches nothing.
   */
  matchAt(at: number, pattern: RowConstants, opts: { graphs?: string[]; limit?: number } = {}): number[] {
    const t = checkTime(at, 'matchAt');
    const inGraphs = this.inGraphs(opts.graphs);
    const where = this.patternWhere(pattern);
    if (inGraphs === false || where === undefined) return [];
    return this.db.prepare<unknown[], number>(
      `SELECT q.rowid FROM quads q WHERE ${[...where.sql, 'q.to_t > ?', 'q.from_t <= ?'].join(' AND ')}${inGraphs}${firstByRowId('q.rowid', opts.limit)}`)
      .pluck().all(...where.args, t, t);
  }

  /** The rows of these ids (ascending), with their terms, streamed a few hundred at a time. */
  *rowsById(rowids: ArrayLike<number>): Generator<[rowid: number, row: QuadRow]> {
    const CHUNK = 500;
    const full = this.db.prepare<number[], RawRow & { rid: number }>(
      `SELECT q.rowid AS rid, ${this.cols} FROM quads q ${this.joins} WHERE q.rowid IN (${Array(CHUNK).fill('?').join(',')}) ORDER BY q.rowid`);
    for (let i = 0; i < rowids.length; i += CHUNK) {
      const ids = Array.from({ length: Math.min(CHUNK, rowids.length - i) }, (_v, k) => rowids[i + k]!);
      const stmt = ids.length === CHUNK ? full : this.db.prepare<number[], RawRow & { rid: number }>(
        `SELECT q.rowid AS rid, ${this.cols} FROM quads q ${this.joins} WHERE q.rowid IN (${ids.map(() => '?').join(',')}) ORDER BY q.rowid`);
      for (const r of stmt.iterate(...ids)) yield [r.rid, toQuadRow(r)];
    }
  }

  /**
   * How many rows (of any time) a pattern's constants match, counted up to `cap`: the planner's
   * estimate of what loading them costs. One index range, stopped at the cap.
   */
  countMatching(pattern: RowConstants, cap: number): number {
    const where = this.patternWhere(pattern);
    if (where === undefined) return 0;
    const sql = where.sql.length ? `WHERE ${where.sql.join(' AND ')}` : '';
    return this.db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM quads q ${sql} LIMIT ?)`)
      .get(...where.args, Math.max(0, Math.floor(cap)))!.n;
  }

  countAt(at: number, pattern: RowConstants, req: CountRequest): number {
    const t = checkTime(at, 'countAt');
    const namedAtT = this.ngColumn !== 'NULL' && this.db.prepare(NAMED_ROW_AT_T).get(t, t) !== undefined;
    const q = countSql(pattern, req, t, (nt) => this.lookupTerm(nt), () => '?', 'quads', this.ngColumn, namedAtT, this.countTotals());
    return q ? (this.db.prepare<unknown[], { n: number }>(q.sql).get(...q.args)!.n) : 0;
  }

  literalTerms(after: number, limit: number): Array<{ id: number; nt: string }> {
    return this.db.prepare<[number, number], { id: number; nt: string }>(
      `SELECT id, nt FROM terms WHERE id > ? AND ${LITERAL_TERM} ORDER BY id LIMIT ?`).all(after, limit);
  }

  /**
   * The engine-form test runs on raw rows as they are read: only the few terms not in that form become
   * objects here (the count planner's first pass read 4,000,000 literal terms at 1,000,000 documents to keep
   * 100,000). Not as a function of the connection called by SQLite's scan: V8 (Node 20) died in its
   * deoptimizer in about one CLI count in six that way ("Fatal error … unreachable code", signal 5).
   */
  oddLiteralTerms(after: number, limit: number, upTo: number): Array<{ id: number; nt: string }> {
    const odd: Array<{ id: number; nt: string }> = [];
    const rows = this.db.prepare<[number, number], [number, string]>(
      `SELECT id, nt FROM terms WHERE id > ? AND id <= ? AND ${LITERAL_TERM} ORDER BY id`).raw();
    for (const [id, nt] of rows.iterate(after, upTo)) {
      if (inEngineForm(nt)) continue;
      odd.push({ id, nt });
      if (odd.length >= limit) break;
    }
    return odd;
  }

  termCheckMemo(): TermCheckMemo {
    return new SqliteTermCheckMemo(this.db);
  }

  lastTermId(): number {
    return this.db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM terms').get()?.n ?? 0;
  }

  idsOfTerms(nts: string[]): Array<number | undefined> {
    return nts.map((nt) => this.lookupTerm(nt));
  }

  /** About how many rows the store holds, without counting them (rows are deleted only on a rebuild). */
  rowsEstimate(): number {
    return this.db.prepare<[], { n: number | null }>('SELECT max(rowid) AS n FROM quads').get()?.n ?? 0;
  }

  /** The named graphs with a quad valid at `at`, each with its document (the snapshot's `dm:inDocument`). */
  namedGraphsAt(at: number, opts: { graphs?: string[] } = {}): QuadRow[] {
    if (this.ngColumn === 'NULL') return [];
    const t = checkTime(at, 'namedGraphsAt');
    const inGraphs = this.inGraphs(opts.graphs);
    if (inGraphs === false) return [];
    return this.db.prepare<[number, number], { g: string; ng: string }>(
      `SELECT DISTINCT tg.nt AS g, tn.nt AS ng FROM quads q JOIN terms tg ON tg.id = q.g JOIN terms tn ON tn.id = q.ng
       WHERE ${NAMED_ROWS_AT_T}${inGraphs}`)
      .all(t, t).map((r) => ({ graph: r.g.slice(1, -1), s: '', p: '', o: '', namedGraph: r.ng }));
  }

  /** The SQL condition of a graph selection (documents or named graphs); false when none is in the store. */
  private inGraphs(graphs: string[] | undefined): string | false {
    const ids = this.graphIds(graphs);
    if (!ids) return '';
    if (ids.length === 0) return false;
    const list = ids.join(',');
    return ` AND (q.g IN (${list}) OR ${this.ngColumn} IN (${list}))`;
  }

  private patternWhere(pattern: RowConstants): { sql: string[]; args: number[] } | undefined {
    return patternConditions(pattern, (nt) => this.lookupTerm(nt), () => '?', this.ngColumn);
  }

  /** Folds the WAL into the database file (for measuring size, or before copying the file). */
  checkpoint(): void {
    this.commit(); // a checkpoint cannot run inside the open batch
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}

function prepareStatements(db: Database.Database) {
  return {
    termByHash: db.prepare<[number], { id: number; nt: string }>('SELECT id, nt FROM terms WHERE h = ?'),
    termById: db.prepare<[number], { nt: string }>('SELECT nt FROM terms WHERE id = ?'),
    insertTerm: db.prepare<[number, string]>('INSERT INTO terms (h, nt) VALUES (?, ?)'),
    lastVersion: db.prepare<[number], { time: number; kind: VersionKind; triples: number }>(
      'SELECT time, kind, triples FROM versions WHERE graph = ? ORDER BY time DESC LIMIT 1'),
    // Prepared on first use: a store opened read-only before count_sums has no such table.
    addChange: once(() => db.prepare<[number, number, number]>(SQLITE_ADD_CHANGE)),
    openRows: db.prepare<[number], { rowid: number; h: number; from_t: number }>(
      `SELECT rowid, h, from_t FROM quads WHERE g = ? AND to_t = ${OPEN}`),
    // Prepared on first use: a store from before `ng`, opened read-only, has no such column and never inserts.
    insertQuad: once(() => db.prepare<[number, number, number, number, number, number, number | null]>(
      `INSERT INTO quads (g, s, p, o, h, from_t, to_t, ng) VALUES (?, ?, ?, ?, ?, ?, ${OPEN}, ?)`)),
    closeQuad: db.prepare<[number, number]>('UPDATE quads SET to_t = ? WHERE rowid = ?'),
    deleteQuad: db.prepare<[number]>('DELETE FROM quads WHERE rowid = ?'),
    countAddedAt: db.prepare<[number, number], { n: number }>(
      `SELECT count(*) AS n FROM quads WHERE g = ? AND to_t = ${OPEN} AND from_t = ?`),
    countRemovedAt: db.prepare<[number, number], { n: number }>(
      'SELECT count(*) AS n FROM quads WHERE g = ? AND to_t = ?'),
    putVersionRow: db.prepare<[number, number, VersionKind, number, number, number]>(
      'INSERT OR REPLACE INTO versions (graph, time, kind, added, removed, triples) VALUES (?, ?, ?, ?, ?, ?)'),
  };
}

function once<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}

export function checkGraph(graph: string): void {
  if (typeof graph !== 'string' || !/^[a-z][a-z0-9+.-]*:/i.test(graph)) throw new Error(`graph must be an absolute IRI, got ${JSON.stringify(graph)}`);
}

/**
 * cyrb53 (a public-domain 53-bit string hash) of a triple's N-Triples text. Within one graph a collision
 * (about n²/2^54: 10^-8 for 16,000 triples) would hide one added triple; that is the price of not reading
 * the dictionary for every unchanged triple.
 */
export function tripleHash(s: string, p: string, o: string, ng: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  // A default-graph triple hashes as before named graphs; the same triple in two named graphs is two rows.
  for (const part of ng ? [s, p, o, ng] : [s, p, o]) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ 32, 2654435761); // a separator, so that "ab"+"c" differs from "a"+"bc"
    h2 = Math.imul(h2 ^ 32, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * A pattern's matching rows (ordered by quad, then time) grouped by quad with their validity intervals,
 * rows failing a repeated variable dropped: the part of patternVersions both stores share.
 */
export function intervalsByQuad(rows: Iterable<RawRow & { k: string; from_t: number; to_t: number; gid: number }>, pattern: TriplePattern): Map<string, PatternVersions & { gid: number }> {
  const sameVariable = repeatedVariables(pattern);
  const byKey = new Map<string, PatternVersions & { gid: number }>();
  for (const r of rows) {
    if (sameVariable && !sameVariable(r)) continue;
    let entry = byKey.get(r.k);
    if (!entry) byKey.set(r.k, (entry = { quad: toQuadRow(r), intervals: [], versions: [], gid: r.gid }));
    entry.intervals.push(r.to_t === OPEN ? { from: r.from_t } : { from: r.from_t, to: r.to_t });
  }
  return byKey;
}

/** A pattern like `?x <p> ?x` needs equal terms where the variable repeats; SQL matched only constants. */
export function repeatedVariables(pattern: TriplePattern): ((r: RawRow) => boolean) | undefined {
  const positions = new Map<string, Array<'s' | 'p' | 'o' | 'g'>>();
  for (const [column, position] of [['s', pattern.s], ['p', pattern.p], ['o', pattern.o], ['g', pattern.graph]] as const) {
    if (position && 'variable' in position) positions.set(position.variable, [...(positions.get(position.variable) ?? []), column]);
  }
  const groups = [...positions.values()].filter((cols) => cols.length > 1);
  if (groups.length === 0) return undefined;
  return (r) => groups.every((cols) => cols.every((c) => r[c] === r[cols[0]]));
}

/** Opens (creating if needed) the versioned store of a data directory: `<dataDir>/versions.sqlite`. */
export function openVersionStore(dataDir: string, opts: { readonly?: boolean } = {}): VersionArchive {
  if (!opts.readonly) fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, VERSIONS_FILE);
  if (opts.readonly && !fs.existsSync(file)) throw new Error(`no versioned archive at ${file}`);
  return new VersionArchive(file, opts);
}
