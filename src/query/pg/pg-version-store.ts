import type { Quad } from '@rdfjs/types';
import { SyncPg, type SyncStatement } from '../../util/sync-pg.ts';
import { parsePostgresUrl, redactUrl } from '../../store/redact.ts';
import { UserError } from '../../util/errors.ts';
import { iriTerm, skolemise, termHash, type NtQuad } from '../../rdf/terms.ts';
import { ALTERNATE_OF } from '../../archive/namespace.ts';
import type { LogGap } from '../log-gaps.ts';
import type { TermCheckMemo } from '../term-check-memo.ts';
import { PG_TERM_CHECK_DDL, PgTermCheckMemo } from './pg-term-check-memo.ts';
import { COUNT_TOTALS_KEY, PG_ADD_CHANGES, PG_COUNT_TOTALS_DDL, buildTotalsSql, sumRows, totalChange } from '../count-totals.ts';
import { countSql, firstByRowId, limitClause, patternConditions, type CountRequest, type LogGapStore, type RowConstants, type VersionBackend } from '../backend.ts';
import {
  OPEN, checkGraph, checkTime, intervalsByQuad, toQuadRow, tripleHash, type RawRow,
} from '../version-store.ts';
import type {
  ArchiveStats, Delta, GraphSummary, Interval, PatternVersions, QuadRow, TriplePattern, VersionInfo, VersionKind,
} from '../types.ts';

/**
 * Partitions of the quads table, by a hash of the document (`g`): every read and write of one document's
 * rows stays in one partition, and the same column is what Citus distributes the table by (docs/query.md).
 */
export const QUAD_PARTITIONS = 16;

/** Secondary indexes of vs_quads (built on every partition); the bulk catch-up drops and rebuilds them. */
const READ_INDEXES: Array<[name: string, definition: string]> = [
  ['vs_quads_by_id', '(id)'],
  ['vs_quads_by_from', '(from_t)'],
  ['vs_quads_by_to', '(to_t)'],
  ['vs_quads_by_sp', '(s, p)'],
  ['vs_quads_by_p', '(p)'],
  ['vs_quads_by_op', '(o, p)'],
  ['vs_quads_by_ng', '(ng) WHERE ng IS NOT NULL'],
];

function ddl(partitions: number): string[] {
  return [
    'CREATE TABLE IF NOT EXISTS vs_terms (id bigint PRIMARY KEY, h bigint NOT NULL, nt text NOT NULL)',
    'CREATE INDEX IF NOT EXISTS vs_terms_by_hash ON vs_terms (h)',
    `CREATE TABLE IF NOT EXISTS vs_versions (graph bigint NOT NULL, time bigint NOT NULL, kind text NOT NULL,
       added integer NOT NULL, removed integer NOT NULL, triples integer NOT NULL, PRIMARY KEY (graph, time))`,
    'CREATE INDEX IF NOT EXISTS vs_versions_by_time ON vs_versions (time)',
    // (g, id) is the key: a unique constraint of a partitioned (or Citus-distributed) table must hold its partition column.
    `CREATE TABLE IF NOT EXISTS vs_quads (id bigint NOT NULL, g bigint NOT NULL, s bigint NOT NULL, p bigint NOT NULL,
       o bigint NOT NULL, h bigint NOT NULL, from_t bigint NOT NULL, to_t bigint NOT NULL, ng bigint,
       PRIMARY KEY (g, id)) PARTITION BY HASH (g)`,
    ...Array.from({ length: partitions }, (_v, i) =>
      `CREATE TABLE IF NOT EXISTS vs_quads_${i} PARTITION OF vs_quads FOR VALUES WITH (MODULUS ${partitions}, REMAINDER ${i})`),
    // The writer reads a document's open rows through this one; it stays during a bulk load.
    'CREATE INDEX IF NOT EXISTS vs_quads_by_graph ON vs_quads (g, to_t)',
    'CREATE TABLE IF NOT EXISTS vs_meta (key text PRIMARY KEY, value bigint NOT NULL)',
    'CREATE TABLE IF NOT EXISTS vs_log_gaps (from_id bigint PRIMARY KEY, to_id bigint NOT NULL, seen_at bigint NOT NULL)',
    ...PG_TERM_CHECK_DDL,
    PG_COUNT_TOTALS_DDL,
  ];
}

/** SQLSTATE of "permission denied". */
const INSUFFICIENT_PRIVILEGE = '42501';
const INDEXED_LOG_ID = 'indexed_log_id';
const NEXT_ROW = 'next_row';
const NEXT_TERM = 'next_term';
const GENERATION = 'generation';
/** Set once a version states `dm:alternateOf` (src/archive/alternates.ts): read with the generation, so that a query of a store without alternates pays no look-up for them. */
const ALTERNATES = 'alternates';
const ALTERNATE_OF_NT = `<${ALTERNATE_OF}>`;
/** The backend pid (pg_backend_pid) of a session bulk-loading with the read indexes down. */
const BULK_LOADER = 'bulk_loader_pid';

const QUAD_COLUMNS = 'tg.nt AS g, ts.nt AS s, tp.nt AS p, t_o.nt AS o, tn.nt AS ng';
const QUAD_JOINS = `JOIN vs_terms tg ON tg.id = q.g JOIN vs_terms ts ON ts.id = q.s JOIN vs_terms tp ON tp.id = q.p
  JOIN vs_terms t_o ON t_o.id = q.o LEFT JOIN vs_terms tn ON tn.id = q.ng`;
/** A quad's identity across its intervals (document, terms, named graph), as the SQLite store's key. */
const ROW_KEY = `q.g || ' ' || q.s || ' ' || q.p || ' ' || q.o || ' ' || coalesce(q.ng, 0)`;
/** Rows read per round trip by the streaming reads (snapshot, rows by id). */
const PAGE = 20_000;
/** The term cache is emptied between transactions past this size (as the SQLite store's). */
const MAX_CACHED_TERMS = 200_000;

interface OpenRow { id: number; from: number }
interface GraphState { last: { time: number; kind: VersionKind; triples: number } | undefined; open: Map<number, OpenRow> }
/** A row to insert, its terms as N-Triples: ids are looked up or handed out once per flush, for every row at once. */
interface PendingQuad { id: number; g: string; s: string; p: string; o: string; h: number; from: number; to: number; ng: string | null }

/**
 * The versioned store in PostgreSQL (issue #16 item 3): the same timestamp-based rows as the SQLite store
 * (version-store.ts), with the same row ids, so that both load a query's rows in the same order and print
 * the same bytes; shared by every reader of one crawl database instead of rebuilt by each.
 *
 * Writes happen inside `writeTransaction` (a transaction holding an advisory lock: one indexer at a time,
 * as SQLite's BEGIN IMMEDIATE): what a version adds, closes and counts is computed here against an
 * in-memory view of the documents touched in the transaction, and written at its end with one multi-row
 * INSERT (`unnest` of arrays) per table, so a batch of 500 log rows costs a few round trips, not a few
 * per quad. Term and row ids are handed out here from counters in vs_meta, read under the lock.
 */
export class PgVersionArchive implements VersionBackend {
  readonly file: string;
  readonly kind = 'postgres' as const;
  readonly commitsBehind = true;
  readonly logGaps: LogGapStore;
  private readonly db: SyncPg;
  private readonly termIds = new Map<string, number>();
  private readonly: boolean;
  /**
   * Whether this session may write the store: false when opened read-only, or when the database user
   * has only SELECT on its tables, or the server is a read-only standby. Such a store reads as it is
   * (VersionIndex then answers without catching it up, and says how far behind it may be).
   */
  readonly writable: boolean;

  // The open transaction's state (undefined outside one).
  private tx: {
    nextRow: number; nextTerm: number; wrote: boolean;
    /** By the document's N-Triples IRI. */
    graphs: Map<string, GraphState>;
    inserts: Map<number, PendingQuad>;
    closes: Map<number, { g: string; to: number }>;
    versions: Map<string, [g: string, time: number, kind: VersionKind, added: number, removed: number, triples: number]>;
    /** How this transaction's versions change the rows valid from each instant on (count-totals.ts). */
    totals: Map<number, number>;
    /** A version of this transaction states dm:alternateOf (ALTERNATES). */
    alternates?: boolean;
  } | undefined;
  private generationSeen: number | undefined;
  /** ALTERNATES as read with the generation (undefined: not read yet). */
  private alternatesSeen: boolean | undefined;
  /**
   * The next row id read with the generation, kept until the event loop turns (or this store commits):
   * a query reads the generation (its cache key), then the planner asks for the archive's size, which
   * needs no round trip of its own. Only an estimate: a write since then makes it a little low.
   */
  private nextRowSeen: number | undefined;

  constructor(url: string, opts: { readonly?: boolean; partitions?: number } = {}) {
    const { connectionString, schema } = parsePostgresUrl(url);
    this.file = url;
    this.readonly = opts.readonly ?? false;
    this.db = new SyncPg(connectionString, { schema, readonly: this.readonly });
    try {
      if (this.readonly) this.checkSchema();
      else this.init(schema, opts.partitions ?? QUAD_PARTITIONS);
      this.writable = !this.readonly && this.mayWrite();
      this.readonly ||= !this.writable;
      // Put back the read indexes a bulk loader that died left down (its session is gone).
      if (this.writable && this.liveBulkLoader() === undefined && this.missingIndexes().length > 0) this.writeTransaction(() => this.restoreIndexes());
      this.keepsTotals = this.writable && this.buildCountTotals();
    } catch (e) {
      void this.db.close();
      throw connectError(e, url);
    }
    this.logGaps = new PgLogGaps(this.db);
  }

  /** Whether this writer keeps vs_count_sums (count-totals.ts) with each version. */
  private keepsTotals = false;

  /**
   * Fills vs_count_sums from the versions once (a store written before it), under the writers' lock; false
   * when this user may not write it (or it could not be made): counts then scan, as before.
   */
  private buildCountTotals(): boolean {
    const [state] = this.db.query<{ table: string | null; built: boolean }>(
      "SELECT to_regclass('vs_count_sums')::text AS table, EXISTS (SELECT 1 FROM vs_meta WHERE key = $1) AS built", [COUNT_TOTALS_KEY]);
    if (state!.table === null) return false;
    if (!this.db.query<{ ok: boolean }>("SELECT has_table_privilege('vs_count_sums', 'INSERT') AND has_table_privilege('vs_count_sums', 'UPDATE') AS ok")[0]!.ok) return false;
    if (state!.built) return true;
    this.writeTransaction(() => {
      if (this.meta(COUNT_TOTALS_KEY) !== undefined) return; // another writer built it while this one waited
      this.db.run([
        { sql: 'TRUNCATE vs_count_sums' },
        { sql: buildTotalsSql('vs_count_sums', 'vs_versions') },
        { sql: 'INSERT INTO vs_meta (key, value) VALUES ($1, 1) ON CONFLICT (key) DO NOTHING', params: [COUNT_TOTALS_KEY] },
      ]);
    });
    return true;
  }

  private init(schema: string | undefined, partitions: number): void {
    const statements: SyncStatement[] = [
      { sql: 'BEGIN' },
      // Two processes creating the tables at once: the second waits, then finds them there.
      { sql: 'SELECT pg_advisory_xact_lock(hashtext($1))', params: [`datamonitor-versions:${schema ?? 'public'}`] },
    ];
    // Tables there already: nothing to create, and a user who may not create anything (SELECT only) can open it.
    const have = this.db.query<{ meta: string | null; term_check: string | null; totals: string | null }>(
      `SELECT to_regclass('vs_meta')::text AS meta, to_regclass('vs_term_classes')::text AS term_check,
              to_regclass('vs_count_sums')::text AS totals`)[0]!;
    if (have.meta !== null) {
      const missing = [...(have.term_check === null ? PG_TERM_CHECK_DDL : []), ...(have.totals === null ? [PG_COUNT_TOTALS_DDL] : [])];
      if (missing.length > 0) this.addMissingTables(statements, missing);
      return;
    }
    if (schema) statements.push({ sql: `CREATE SCHEMA IF NOT EXISTS "${schema}"` });
    // IF NOT EXISTS throughout: another process may have created them while this one waited for the lock.
    statements.push(...ddl(partitions).map((sql) => ({ sql })), { sql: 'COMMIT' });
    try {
      this.db.run(statements);
    } catch (e) {
      this.db.query('ROLLBACK');
      if ((e as { code?: string }).code === INSUFFICIENT_PRIVILEGE) {
        throw new UserError(`cannot create the versioned store in PostgreSQL at ${redactUrl(this.file)}: ${(e as Error).message}; a database user who may create tables there must build it once (datamonitor query --db URL as that user)`);
      }
      throw e;
    }
  }

  /**
   * A store built before the count's term check (term-check-memo.ts) or its totals (count-totals.ts) were kept
   * gains their tables; a user who may not create them still opens the store, and the check is then made in
   * memory by each process, the count by a scan.
   */
  private addMissingTables(begin: SyncStatement[], ddl: string[]): void {
    try {
      this.db.run([...begin, ...ddl.map((sql) => ({ sql })), { sql: 'COMMIT' }]);
    } catch (e) {
      this.db.query('ROLLBACK');
      if ((e as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw e;
    }
  }

  /** Whether this session may write every table of the store (and the server takes writes at all). */
  private mayWrite(): boolean {
    const checks = [['vs_quads', 'INSERT,UPDATE,DELETE'], ['vs_terms', 'INSERT'], ['vs_versions', 'INSERT,UPDATE'], ['vs_meta', 'INSERT,UPDATE,DELETE'], ['vs_log_gaps', 'INSERT,DELETE']]
      // One call a privilege: given a list, has_table_privilege is true when any one of them is held.
      .flatMap(([table, privileges]) => privileges!.split(',').map((p) => `has_table_privilege('${table}', '${p}')`));
    return this.db.query<{ ok: boolean }>(
      `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AND ${checks.join(' AND ')} AS ok`)[0]!.ok;
  }

  private checkSchema(): void {
    if (this.db.query<{ t: string | null }>("SELECT to_regclass('vs_meta')::text AS t")[0]!.t === null) {
      throw new UserError(`no versioned archive in ${redactUrl(this.file)}: run datamonitor query --db ${redactUrl(this.file)} once to build it`);
    }
  }

  /** Synchronous calls to the server so far (src/util/sync-pg.ts): what a query costs beyond its SQL. */
  get roundTrips(): number {
    return this.db.roundTrips;
  }

  /** Read afresh each time (a cache key must not be stale), with the next row id beside it (nextRowSeen). */
  get generation(): string {
    return String(this.readGeneration());
  }

  /** As read with the last generation (a query reads that first); true before any was read. */
  mayHoldAlternates(): boolean {
    return this.alternatesSeen ?? true;
  }

  private readGeneration(): number {
    const meta = this.db.query<{ key: string; value: number }>('SELECT key, value FROM vs_meta WHERE key = ANY($1)', [[GENERATION, NEXT_ROW, ALTERNATES]]);
    const value = (k: string) => meta.find((r) => r.key === k)?.value;
    const generation = value(GENERATION) ?? 0;
    this.alternatesSeen = value(ALTERNATES) !== undefined;
    // Another process wrote since: if it rebuilt the index, the ids of the cached terms are stale.
    if (!this.tx && this.generationSeen !== undefined && generation !== this.generationSeen) this.termIds.clear();
    if (!this.tx) this.generationSeen = generation;
    const nextRow = value(NEXT_ROW) ?? 1;
    this.nextRowSeen = nextRow;
    setImmediate(() => {
      if (this.nextRowSeen === nextRow) this.nextRowSeen = undefined;
    }).unref();
    return generation;
  }

  private meta(key: string): number | undefined {
    return this.db.query<{ value: number }>('SELECT value FROM vs_meta WHERE key = $1', [key])[0]?.value;
  }

  // ---- writes -------------------------------------------------------------------------------------

  async putVersion(graph: string, time: number, quads: Iterable<Quad>): Promise<{ added: number; removed: number }> {
    return this.writeTransaction(() => this.putVersionNow(graph, time, quads));
  }

  async deleteGraph(graph: string, time: number): Promise<void> {
    this.writeTransaction(() => this.deleteGraphNow(graph, time));
  }

  putVersionNow(graph: string, time: number, quads: Iterable<Quad>): { added: number; removed: number } {
    checkGraph(graph);
    const t = checkTime(time, `putVersion(${graph})`);
    return this.inTransaction(() => this.applyVersion(graph, t, skolemise(graph, quads)));
  }

  deleteGraphNow(graph: string, time: number): boolean {
    checkGraph(graph);
    const t = checkTime(time, `deleteGraph(${graph})`);
    return this.inTransaction(() => {
      const last = this.graphState(iriTerm(graph)).last;
      if (!last || last.kind === 'deleted') return false;
      this.applyVersion(graph, t, undefined);
      return true;
    });
  }

  /**
   * A write outside the caller's transaction gets one of its own. Inside one, a version that throws (a
   * WARC record that cannot be read, a time going back) does so before it changes anything.
   */
  private inTransaction<T>(fn: () => T): T {
    return this.tx ? fn() : this.writeTransaction(fn);
  }

  writeTransaction<T>(fn: () => T): T {
    if (this.tx) return fn();
    if (this.readonly) throw new Error('the versioned store was opened read-only');
    const [, , , meta] = this.db.run<{ key: string; value: number }>([
      { sql: 'BEGIN' },
      // One writer at a time per schema, whoever and wherever it is: a second catch-up waits here.
      { sql: "SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.vs_write'))" },
      // Every statement of a writer is a keyed look-up. During a bulk load the planner's statistics are
      // those of the tables' first minutes (autovacuum has not analysed them since), and it scanned every
      // open row of vs_quads once a batch, growing with the store: the catch-up slowed as it went.
      { sql: 'SET LOCAL enable_seqscan = off' },
      { sql: 'SELECT key, value FROM vs_meta WHERE key = ANY($1)', params: [[NEXT_ROW, NEXT_TERM, GENERATION]] },
    ]);
    const value = (k: string) => meta!.find((r) => r.key === k)?.value;
    const generation = value(GENERATION) ?? 0;
    // Another process wrote since: term ids it removed (a rebuild) must not come from our cache.
    if ((this.generationSeen !== undefined && generation !== this.generationSeen) || this.termIds.size >= MAX_CACHED_TERMS) this.termIds.clear();
    this.generationSeen = generation;
    this.nextRowSeen = undefined;
    this.tx = {
      nextRow: value(NEXT_ROW) ?? 1, nextTerm: value(NEXT_TERM) ?? 1, wrote: false,
      graphs: new Map(), inserts: new Map(), closes: new Map(), versions: new Map(), totals: new Map(),
    };
    try {
      const out = fn();
      const tx = this.tx;
      const commit = this.pendingStatements();
      if (tx.wrote) {
        this.generationSeen = generation + 1;
        const alternates = tx.alternates ? [[ALTERNATES], [1]] : [[], []];
        commit.push({
          sql: `INSERT INTO vs_meta (key, value) SELECT * FROM unnest($1::text[], $2::bigint[])
                ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          params: [[NEXT_ROW, NEXT_TERM, GENERATION, ...alternates[0]!], [tx.nextRow, tx.nextTerm, generation + 1, ...alternates[1]!]],
        });
      }
      commit.push({ sql: 'COMMIT' });
      // Not waited for: the catch-up reads and parses its next batch while the server writes and commits
      // this one (bench/SCALE-RUN.md, PostgreSQL catch-up). The next call waits for it and throws its
      // error; every statement of a later transaction runs after this COMMIT on the same connection. If it
      // fails, the generation in the database is not the one assumed here, and the next transaction or
      // read (readGeneration) forgets the term ids it handed out.
      this.db.send(commit, { rollbackOnError: true });
      this.nextRowSeen = undefined;
      return out;
    } catch (e) {
      // Ids of terms this transaction made are not in the database: not in the cache either.
      this.termIds.clear();
      try {
        this.db.query('ROLLBACK');
      } catch {
        // the connection is gone: the server rolled back
      }
      throw e;
    } finally {
      this.tx = undefined;
    }
  }

  /** Waits for the last transaction's commit (writeTransaction does not); throws its error. */
  settle(): void {
    this.db.settle();
  }

  /** Writes what the transaction holds in memory; it stays open. */
  private flushPending(): void {
    const statements = this.pendingStatements();
    if (statements.length > 0) this.db.run(statements);
  }

  /** The multi-row INSERTs and UPDATEs that write what the transaction holds in memory, which is then emptied. */
  private pendingStatements(): SyncStatement[] {
    const tx = this.tx!;
    const statements: SyncStatement[] = [];
    const newTerms = this.resolveTerms([
      ...[...tx.inserts.values()].flatMap((r) => (r.ng ? [r.g, r.s, r.p, r.o, r.ng] : [r.g, r.s, r.p, r.o])),
      ...[...tx.closes.values()].map((c) => c.g), ...[...tx.versions.values()].map((v) => v[0]),
    ]);
    const id = (nt: string) => this.termIds.get(nt)!;
    if (newTerms.length > 0) {
      statements.push({
        sql: 'INSERT INTO vs_terms (id, h, nt) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[])',
        params: [newTerms.map((t) => t[0]), newTerms.map((t) => t[1]), newTerms.map((t) => t[2])],
      });
    }
    if (tx.inserts.size > 0) {
      const rows = [...tx.inserts.values()];
      statements.push({
        sql: `INSERT INTO vs_quads (id, g, s, p, o, h, from_t, to_t, ng)
              SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])`,
        params: [rows.map((r) => r.id), rows.map((r) => id(r.g)), rows.map((r) => id(r.s)), rows.map((r) => id(r.p)), rows.map((r) => id(r.o)),
          rows.map((r) => r.h), rows.map((r) => r.from), rows.map((r) => r.to), rows.map((r) => (r.ng ? id(r.ng) : null))],
      });
      tx.inserts.clear();
    }
    if (tx.closes.size > 0) {
      const ids = [...tx.closes.keys()];
      const closes = [...tx.closes.values()];
      statements.push({
        sql: `UPDATE vs_quads q SET to_t = u.t FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS u(g, id, t)
              WHERE q.g = u.g AND q.id = u.id`,
        params: [closes.map((c) => id(c.g)), ids, closes.map((c) => c.to)],
      });
      tx.closes.clear();
    }
    if (tx.versions.size > 0) {
      const rows = [...tx.versions.values()];
      statements.push({
        sql: `INSERT INTO vs_versions (graph, time, kind, added, removed, triples)
              SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::int[], $5::int[], $6::int[])
              ON CONFLICT (graph, time) DO UPDATE SET kind = excluded.kind, added = excluded.added, removed = excluded.removed, triples = excluded.triples`,
        params: [rows.map((r) => id(r[0])), ...[1, 2, 3, 4, 5].map((i) => rows.map((r) => r[i]))],
      });
      tx.versions.clear();
    }
    const sums = sumRows(tx.totals);
    tx.totals.clear();
    if (sums.length > 0) statements.push({ sql: PG_ADD_CHANGES, params: [0, 1, 2].map((i) => sums.map((r) => r[i])) });
    if (statements.length > 0) tx.wrote = true;
    return statements;
  }

  /** The last version and open rows of a document (its N-Triples IRI): from this transaction's view, else from the database. */
  private graphState(graph: string): GraphState {
    if (!this.tx!.graphs.has(graph)) this.prefetch([graph.slice(1, -1)]);
    return this.tx!.graphs.get(graph)!;
  }

  /**
   * Reads the last version and open rows of these documents into the transaction's view, all in one round
   * trip: the catch-up calls it with a batch's documents, so that its versions then cost none each.
   */
  prefetch(graphs: string[]): void {
    const tx = this.tx;
    if (!tx) return;
    const wanted = [...new Set(graphs.map(iriTerm))].filter((nt) => !tx.graphs.has(nt));
    if (wanted.length === 0) return;
    const [lasts, open] = this.db.run<{ nt: string; time: number; kind: VersionKind; triples: number; id: number; h: number; from_t: number }>(prefetchStatements(wanted));
    for (const nt of wanted) tx.graphs.set(nt, { last: undefined, open: new Map() });
    for (const r of lasts!) tx.graphs.get(r.nt)!.last = { time: r.time, kind: r.kind, triples: r.triples };
    for (const r of open!) tx.graphs.get(r.nt)!.open.set(r.h, { id: r.id, from: r.from_t });
  }

  /** The same steps as VersionArchive.applyVersion, against the transaction's view. */
  private applyVersion(graph: string, time: number, triples: NtQuad[] | undefined): { added: number; removed: number } {
    const tx = this.tx!;
    const g = iriTerm(graph);
    const state = this.graphState(g);
    const last = state.last;
    if (last && time < last.time) {
      throw new Error(`putVersion(${graph}): time ${new Date(time).toISOString()} is before the graph's last version ${new Date(last.time).toISOString()}`);
    }
    if (!triples && (!last || last.kind === 'deleted')) return { added: 0, removed: 0 };
    let added = 0;
    let removed = 0;
    const kept = new Set<number>();
    const seen = new Set<number>();
    const born: Array<[number, OpenRow]> = [];
    for (const [s, p, o, ng] of triples ?? []) {
      if (p === ALTERNATE_OF_NT) tx.alternates = true;
      const h = tripleHash(s, p, o, ng);
      if (seen.has(h)) continue;
      seen.add(h);
      if (state.open.has(h)) { kept.add(h); continue; }
      const rowId = tx.nextRow++;
      tx.inserts.set(rowId, { id: rowId, g, s, p, o, h, from: time, to: OPEN, ng: ng || null });
      born.push([h, { id: rowId, from: time }]);
      added++;
    }
    let deletedMax = false;
    for (const [h, row] of state.open) {
      if (kept.has(h)) continue;
      state.open.delete(h);
      removed++;
      if (row.from === time) {
        // Born at this same instant, never visible: gone without a trace, as in the SQLite store.
        if (tx.inserts.delete(row.id)) continue;
        this.flushPending();
        this.db.query('DELETE FROM vs_quads WHERE g = $1 AND id = $2', [this.termIds.get(g), row.id]);
        if (row.id === tx.nextRow - 1) deletedMax = true;
        continue;
      }
      const pending = tx.inserts.get(row.id);
      if (pending) pending.to = time;
      else tx.closes.set(row.id, { g, to: time });
    }
    for (const [h, row] of born) state.open.set(h, row);
    if (deletedMax) {
      // SQLite gives a new row max(rowid) + 1: row ids stay the same in both stores, and so the load order.
      this.flushPending();
      tx.nextRow = this.db.query<{ m: number }>('SELECT coalesce(max(id), 0) AS m FROM vs_quads')[0]!.m + 1;
    }
    const kind: VersionKind = triples ? 'put' : 'deleted';
    if (last?.time === time) {
      // Against the version before this instant, not against the replaced one.
      this.flushPending();
      const gid = this.termIds.get(g);
      const [[a], [r]] = this.db.run<{ n: number }>([
        { sql: `SELECT count(*)::int AS n FROM vs_quads WHERE g = $1 AND to_t = ${OPEN} AND from_t = $2`, params: [gid, time] },
        { sql: 'SELECT count(*)::int AS n FROM vs_quads WHERE g = $1 AND to_t = $2', params: [gid, time] },
      ]);
      added = a!.n;
      removed = r!.n;
    }
    tx.versions.set(`${g} ${time}`, [g, time, kind, added, removed, seen.size]);
    if (this.keepsTotals) tx.totals.set(time, (tx.totals.get(time) ?? 0) + totalChange(seen.size, last));
    state.last = { time, kind, triples: seen.size };
    tx.wrote = true;
    return { added, removed };
  }

  /**
   * Every term in the cache: those not there looked up (one round trip for all), those the database
   * lacks given new ids; returns the new ones, to be inserted.
   */
  private resolveTerms(terms: Iterable<string>): Array<[id: number, h: number, nt: string]> {
    const tx = this.tx!;
    const missing = new Set<string>();
    for (const nt of terms) if (!this.termIds.has(nt)) missing.add(nt);
    if (missing.size === 0) return [];
    const hashes = [...new Set([...missing].map(termHash))];
    for (const r of this.db.query<{ id: number; nt: string }>('SELECT id, nt FROM vs_terms WHERE h = ANY($1::bigint[])', [hashes])) {
      if (missing.delete(r.nt)) this.termIds.set(r.nt, r.id);
    }
    const made: Array<[number, number, string]> = [];
    for (const nt of missing) {
      const termId = tx.nextTerm++;
      made.push([termId, termHash(nt), nt]);
      this.termIds.set(nt, termId);
    }
    return made;
  }

  indexedLogId(): number | undefined {
    return this.meta(INDEXED_LOG_ID);
  }

  setIndexedLogId(id: number): void {
    this.db.query('INSERT INTO vs_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [INDEXED_LOG_ID, id]);
  }

  hasVersions(): boolean {
    return this.db.query('SELECT 1 FROM vs_versions LIMIT 1').length > 0;
  }

  clear(): void {
    const tx = this.tx;
    if (tx) Object.assign(tx, { nextRow: 1, nextTerm: 1, graphs: new Map(), inserts: new Map(), closes: new Map(), versions: new Map(), totals: new Map(), wrote: true });
    this.db.run([
      { sql: 'TRUNCATE vs_quads, vs_versions, vs_terms, vs_log_gaps' },
      // Absent from a store built before them whose writer may not create tables (addMissingTables).
      { sql: "DO $$ BEGIN IF to_regclass('vs_term_classes') IS NOT NULL THEN TRUNCATE vs_term_forms, vs_term_classes; END IF; END $$" },
      { sql: "DO $$ BEGIN IF to_regclass('vs_count_sums') IS NOT NULL THEN TRUNCATE vs_count_sums; END IF; END $$" },
      { sql: 'DELETE FROM vs_meta WHERE key <> ALL($1)', params: [[BULK_LOADER, COUNT_TOTALS_KEY]] },
    ]);
    this.termIds.clear();
  }

  flush(): void {
    // Every write commits with its transaction: nothing waits here.
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  // ---- bulk loading ----------------------------------------------------------------------------------

  /** Inside writeTransaction: drops the read indexes (every partition's), records this session as the loader. */
  dropReadIndexes(): string[] {
    const dropped = this.presentIndexes();
    // One statement an index, in one round trip: Citus refuses to drop several distributed objects in one command.
    if (dropped.length > 0) this.db.run(dropped.map((name) => ({ sql: `DROP INDEX IF EXISTS ${name}` })));
    this.db.query(`INSERT INTO vs_meta (key, value) VALUES ($1, pg_backend_pid()) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [BULK_LOADER]);
    return dropped;
  }

  /**
   * Inside writeTransaction: builds the read indexes missing (each once over the whole table), then
   * gathers the planner's statistics: right after a bulk load autovacuum has not run yet, and without them
   * PostgreSQL joined the term dictionary by scanning it whole (a selective query took seconds).
   */
  restoreIndexes(): void {
    this.db.run([
      ...READ_INDEXES.map(([name, def]) => ({ sql: `CREATE INDEX IF NOT EXISTS ${name} ON vs_quads ${def}` })),
      { sql: 'ANALYZE vs_quads, vs_terms, vs_versions' },
      { sql: 'DELETE FROM vs_meta WHERE key = $1', params: [BULK_LOADER] },
    ]);
  }

  /**
   * The session that took the read indexes down and is still connected (pg_stat_activity says so,
   * whichever machine it runs on); undefined when none, or when it died (its indexes are then restored).
   */
  liveBulkLoader(): number | undefined {
    const [row] = this.db.query<{ pid: number; live: boolean; mine: boolean }>(
      `SELECT m.value AS pid, m.value = pg_backend_pid() AS mine, EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = m.value) AS live
       FROM vs_meta m WHERE m.key = $1`, [BULK_LOADER]);
    // This store's own session: the catch-up knows its loader by the process id.
    if (row?.mine) return process.pid;
    return row?.live ? row.pid : undefined;
  }

  missingIndexes(): string[] {
    const have = new Set(this.presentIndexes());
    return READ_INDEXES.map(([name]) => name).filter((n) => !have.has(n));
  }

  private presentIndexes(): string[] {
    const names = READ_INDEXES.map(([name]) => name);
    return this.db.query<{ n: string }>('SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)', [names]).map((r) => r.n);
  }

  // ---- reads ------------------------------------------------------------------------------------------

  private lookupTerm(nt: string): number | undefined {
    const cached = this.termIds.get(nt);
    if (cached !== undefined) return cached;
    const row = this.db.query<{ id: number; nt: string }>('SELECT id, nt FROM vs_terms WHERE h = $1', [termHash(nt)]).find((r) => r.nt === nt);
    if (row) this.termIds.set(nt, row.id);
    return row?.id;
  }

  private graphIds(graphs: string[] | undefined): number[] | undefined {
    if (!graphs) return undefined;
    return graphs.map((g) => this.lookupTerm(iriTerm(g))).filter((id): id is number => id !== undefined);
  }

  /** The SQL condition of a graph selection (documents or named graphs); false when none is in the store. */
  private inGraphs(graphs: string[] | undefined): string | false {
    const ids = this.graphIds(graphs);
    if (!ids) return '';
    if (ids.length === 0) return false;
    const list = ids.join(',');
    return ` AND (q.g IN (${list}) OR q.ng IN (${list}))`;
  }

  graphs(): GraphSummary[] {
    return this.db.query<{ graph: string; firsttime: number; lasttime: number; versions: number; lastkind: VersionKind; triples: number }>(`
      SELECT t.nt AS graph, v.firsttime, v.lasttime, v.versions, l.kind AS lastkind, l.triples
      FROM (SELECT graph, min(time) AS firsttime, max(time) AS lasttime, count(*)::int AS versions FROM vs_versions GROUP BY graph) v
      JOIN vs_versions l ON l.graph = v.graph AND l.time = v.lasttime
      JOIN vs_terms t ON t.id = v.graph ORDER BY t.nt COLLATE "C"`).map((r) => ({
      graph: r.graph.slice(1, -1), firstTime: r.firsttime, lastTime: r.lasttime, versions: r.versions,
      deleted: r.lastkind === 'deleted', triples: r.triples,
    }));
  }

  versions(graph: string): VersionInfo[] {
    const g = this.lookupTerm(iriTerm(graph));
    if (g === undefined) return [];
    return this.db.query<VersionInfo>('SELECT time, kind, added, removed, triples FROM vs_versions WHERE graph = $1 ORDER BY time', [g]);
  }

  changePoints(opts: { graphs?: string[]; from?: number; to?: number; limit?: number } = {}): number[] {
    const ids = this.graphIds(opts.graphs);
    if (ids && ids.length === 0) return [];
    const where = [`time >= ${Math.floor(opts.from ?? -OPEN)}`, `time <= ${Math.floor(opts.to ?? OPEN)}`];
    if (ids) where.push(`(graph IN (${ids.join(',')}) OR graph IN (SELECT DISTINCT q.g FROM vs_quads q WHERE q.ng IN (${ids.join(',')})))`);
    return this.db.query<{ time: number }>(`SELECT DISTINCT time FROM vs_versions WHERE ${where.join(' AND ')} ORDER BY time${limitClause(opts.limit)}`).map((r) => r.time);
  }

  *snapshot(at: number, opts: { graphs?: string[] } = {}): Generator<QuadRow> {
    for (const [, row] of this.snapshotRows(at, opts)) yield row;
  }

  /** Streamed a page at a time, by row id (keyset paging: each page one index range). */
  *snapshotRows(at: number, opts: { graphs?: string[] } = {}): Generator<[rowid: number, row: QuadRow]> {
    const t = checkTime(at, 'snapshot');
    const inGraphs = this.inGraphs(opts.graphs);
    if (inGraphs === false) return;
    let after = 0;
    for (;;) {
      const rows = this.db.query<RawRow & { rid: number }>(
        `SELECT q.id AS rid, ${QUAD_COLUMNS} FROM vs_quads q ${QUAD_JOINS}
         WHERE q.id > $1 AND q.to_t > $2 AND q.from_t <= $2${inGraphs} ORDER BY q.id LIMIT ${PAGE}`, [after, t]);
      for (const r of rows) yield [r.rid, toQuadRow(r)];
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.rid;
    }
  }

  delta(from: number, to: number, opts: { graphs?: string[] } = {}): Delta {
    const t1 = checkTime(from, 'delta');
    const t2 = checkTime(to, 'delta');
    if (t2 < t1) throw new Error('delta: `to` is before `from`');
    const ids = this.graphIds(opts.graphs);
    if (ids && ids.length === 0) return { from: t1, to: t2, added: [], removed: [] };
    const inGraphs = ids ? ` AND (q.g IN (${ids.join(',')}) OR q.ng IN (${ids.join(',')}))` : '';
    const key = ROW_KEY;
    const [addedRows, removedRows] = this.db.run<RawRow & { k: string }>([
      { sql: `SELECT ${key} AS k, ${QUAD_COLUMNS} FROM vs_quads q ${QUAD_JOINS} WHERE q.from_t > $1 AND q.from_t <= $2 AND q.to_t > $2${inGraphs} ORDER BY q.id`, params: [t1, t2] },
      { sql: `SELECT ${key} AS k, ${QUAD_COLUMNS} FROM vs_quads q ${QUAD_JOINS} WHERE q.to_t > $1 AND q.to_t <= $2 AND q.from_t <= $1${inGraphs} ORDER BY q.id`, params: [t1, t2] },
    ]);
    const addedKeys = new Set(addedRows!.map((r) => r.k));
    const removedKeys = new Set(removedRows!.map((r) => r.k));
    return {
      from: t1,
      to: t2,
      added: addedRows!.filter((r) => !removedKeys.has(r.k)).map(toQuadRow),
      removed: removedRows!.filter((r) => !addedKeys.has(r.k)).map(toQuadRow),
    };
  }

  patternVersions(pattern: TriplePattern): PatternVersions[] {
    const where: string[] = [];
    const args: number[] = [];
    for (const [column, position] of [['s', pattern.s], ['p', pattern.p], ['o', pattern.o], ['g', pattern.graph]] as const) {
      if (!position || !('term' in position)) continue;
      const nt = column === 'g' ? (position.term.startsWith('<') ? position.term : iriTerm(position.term)) : position.term;
      const id = this.lookupTerm(nt);
      if (id === undefined) return [];
      args.push(id);
      where.push(column === 'g' ? `(q.g = $${args.length} OR q.ng = $${args.length})` : `q.${column} = $${args.length}`);
    }
    const rows = this.db.query<RawRow & { k: string; from_t: number; to_t: number; gid: number }>(
      `SELECT ${ROW_KEY} AS k, q.g AS gid, q.from_t, q.to_t, ${QUAD_COLUMNS}
       FROM vs_quads q ${QUAD_JOINS} ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY (${ROW_KEY}) COLLATE "C", q.from_t`, args);
    const byKey = intervalsByQuad(rows, pattern);
    const gids = [...new Set([...byKey.values()].map((e) => e.gid))];
    const timesOf = new Map<number, number[]>();
    if (gids.length > 0) {
      for (const r of this.db.query<{ graph: number; time: number }>(`SELECT graph, time FROM vs_versions WHERE graph = ANY($1::bigint[]) AND kind = 'put' ORDER BY graph, time`, [gids])) {
        timesOf.set(r.graph, [...(timesOf.get(r.graph) ?? []), r.time]);
      }
    }
    const out: PatternVersions[] = [];
    for (const { gid, ...entry } of byKey.values()) {
      entry.versions = (timesOf.get(gid) ?? []).filter((t) => entry.intervals.some((i: Interval) => t >= i.from && (i.to === undefined || t < i.to)));
      out.push(entry);
    }
    return out;
  }

  stats(): ArchiveStats {
    const [r] = this.db.query<{ bytes: number; graphs: number; versions: number; terms: number; rows: number }>(`SELECT
      (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'vs\\_%') AS bytes,
      (SELECT count(DISTINCT graph)::int FROM vs_versions) AS graphs, (SELECT count(*)::int FROM vs_versions) AS versions,
      (SELECT count(*)::int FROM vs_terms) AS terms, (SELECT count(*)::bigint FROM vs_quads) AS rows`);
    return { file: redactUrl(this.file), ...r! };
  }

  // ---- reads for the query planner -------------------------------------------------------------------------

  matchAt(at: number, pattern: RowConstants, opts: { graphs?: string[]; limit?: number } = {}): number[] {
    const t = checkTime(at, 'matchAt');
    const statement = this.matchStatement(t, [pattern], opts.graphs, 'ids');
    return this.db.run<{ id: number }>([{ ...statement, sql: statement.sql + firstByRowId('id', opts.limit) }])[0]!.map((r) => r.id);
  }

  /**
   * The rows of a selective query in as few round trips as its size allows: when the planner's estimate
   * (an upper bound: it counted every row of each pattern, at any time) fits in a page, one statement
   * resolves the terms, finds each pattern's rows at `at`, merges them and joins their terms; otherwise
   * every pattern's row ids in one call, then their rows a page at a time.
   */
  *rowsMatchingAt(at: number, patterns: RowConstants[], estimate: number, opts: { graphs?: string[] } = {}): Generator<[rowid: number, row: QuadRow]> {
    const t = checkTime(at, 'rowsMatchingAt');
    if (patterns.length === 0) return;
    if (estimate <= PAGE) {
      for (const r of this.db.run<RawRow & { rid: number }>([this.matchStatement(t, patterns, opts.graphs, 'rows')])[0]!) yield [r.rid, toQuadRow(r)];
      return;
    }
    const ids = new Set<number>();
    for (const rows of this.db.run<{ id: number }>(patterns.map((p) => this.matchStatement(t, [p], opts.graphs, 'ids')))) for (const r of rows) ids.add(r.id);
    yield* this.rowsById(Float64Array.from(ids).sort());
  }

  /**
   * One statement for the rows valid at `t` that match any of `patterns` (and lie in `graphs`): their
   * ids, or the rows with their terms in row-id order; every term resolved in the statement
   * (resolvedConditions), the graphs' too.
   */
  private matchStatement(t: number, patterns: RowConstants[], graphs: string[] | undefined, what: 'ids' | 'rows'): SyncStatement {
    const params: unknown[] = [t];
    const param = (v: unknown) => `$${params.push(v)}`;
    let inGraphs = '';
    if (graphs) {
      const nts = [...new Set(graphs.map(iriTerm))];
      const ids = `(${idsOfTermsSql(param(nts.map(termHash)), param(nts))})`;
      inGraphs = ` AND (q.g IN ${ids} OR q.ng IN ${ids})`;
    }
    const selects = patterns.map((pattern) => {
      const sql = resolvedConditions(pattern, param);
      const columns = what === 'ids' ? 'q.id' : 'q.id, q.g, q.s, q.p, q.o, q.ng';
      return `SELECT ${columns} FROM vs_quads q WHERE ${[...sql, 'q.to_t > $1', 'q.from_t <= $1'].join(' AND ')}${inGraphs}`;
    });
    if (what === 'ids') return { sql: selects.join(' UNION '), params };
    return {
      sql: `SELECT q.id AS rid, ${QUAD_COLUMNS} FROM (${selects.join(' UNION ')}) q ${QUAD_JOINS} ORDER BY q.id`,
      params,
    };
  }

  *rowsById(rowids: ArrayLike<number>): Generator<[rowid: number, row: QuadRow]> {
    for (let i = 0; i < rowids.length; i += PAGE) {
      const ids = Array.from({ length: Math.min(PAGE, rowids.length - i) }, (_v, k) => rowids[i + k]!);
      const rows = this.db.query<RawRow & { rid: number }>(
        `SELECT q.id AS rid, ${QUAD_COLUMNS} FROM vs_quads q ${QUAD_JOINS} WHERE q.id = ANY($1::bigint[]) ORDER BY q.id`, [ids]);
      for (const r of rows) yield [r.rid, toQuadRow(r)];
    }
  }

  /** One round trip: the pattern's terms are resolved by the statement (see matchStatement). */
  countMatching(pattern: RowConstants, cap: number): number {
    const params: unknown[] = [Math.max(0, Math.floor(cap))];
    const sql = resolvedConditions(pattern, (v) => `$${params.push(v)}`);
    return this.db.query<{ n: number }>(
      `SELECT count(*)::bigint AS n FROM (SELECT 1 FROM vs_quads q ${sql.length ? `WHERE ${sql.join(' AND ')}` : ''} LIMIT $1) x`, params)[0]!.n;
  }

  countAt(at: number, pattern: RowConstants, req: CountRequest): number {
    const t = checkTime(at, 'countAt');
    const [state] = this.db.query<{ named: boolean; totals: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM vs_quads q WHERE q.ng IS NOT NULL AND q.to_t > $1 AND q.from_t <= $1) AS named,
              EXISTS (SELECT 1 FROM vs_meta WHERE key = $2) AS totals`, [t, COUNT_TOTALS_KEY]);
    const q = countSql(pattern, req, t, (nt) => this.lookupTerm(nt), (n) => `$${n}::bigint`, 'vs_quads', 'q.ng', state!.named, state!.totals ? 'vs_count_sums' : undefined);
    return q ? Number(this.db.query<{ n: number }>(q.sql.replace('count(*) AS n', 'count(*)::bigint AS n'), q.args)[0]!.n) : 0;
  }

  literalTerms(after: number, limit: number): Array<{ id: number; nt: string }> {
    return this.db.query<{ id: number; nt: string }>(
      `SELECT id, nt FROM vs_terms WHERE id > $1 AND nt LIKE '"%' AND (nt LIKE '%"^^<%' OR nt LIKE '%"@%') ORDER BY id LIMIT $2`, [after, limit]).map((r) => ({ id: Number(r.id), nt: r.nt }));
  }

  idsOfTerms(nts: string[]): Array<number | undefined> {
    const missing = [...new Set(nts.filter((nt) => !this.termIds.has(nt)))];
    // A round trip a chunk, not a term: the count's term check looks up thousands of engine forms at once.
    for (let i = 0; i < missing.length; i += PAGE) {
      const part = missing.slice(i, i + PAGE);
      const found = this.db.query<{ id: number; nt: string }>(idsOfTermsSql('$1', '$2', 'id, nt'), [part.map(termHash), part]);
      for (const r of found) this.termIds.set(r.nt, Number(r.id));
    }
    return nts.map((nt) => this.termIds.get(nt));
  }

  termCheckMemo(): TermCheckMemo {
    return new PgTermCheckMemo(this.db, this.readonly);
  }

  /** The highest row id handed out (rows are deleted only on a rebuild): no count of the table. */
  rowsEstimate(): number {
    if (this.nextRowSeen === undefined) this.readGeneration();
    return this.nextRowSeen! - 1;
  }

  namedGraphsAt(at: number, opts: { graphs?: string[] } = {}): QuadRow[] {
    const t = checkTime(at, 'namedGraphsAt');
    const inGraphs = this.inGraphs(opts.graphs);
    if (inGraphs === false) return [];
    return this.db.query<{ g: string; ng: string }>(
      `SELECT DISTINCT tg.nt AS g, tn.nt AS ng FROM vs_quads q JOIN vs_terms tg ON tg.id = q.g JOIN vs_terms tn ON tn.id = q.ng
       WHERE q.ng IS NOT NULL AND q.to_t > $1 AND q.from_t <= $1${inGraphs}`, [t])
      .map((r) => ({ graph: r.g.slice(1, -1), s: '', p: '', o: '', namedGraph: r.ng }));
  }
}

/** The ids of terms given as parameters: their hashes (an index probe each), then their N-Triples. */
function idsOfTermsSql(hashes: string, nts: string, columns = 'id'): string {
  return `SELECT ${columns} FROM vs_terms WHERE h = ANY(${hashes}::bigint[]) AND nt = ANY(${nts}::text[])`;
}

/**
 * The last version, then the open rows, of documents (their N-Triples IRIs): PgVersionArchive.prefetch's
 * one round trip, exported for the test of its plan (test/query/pg-writes.test.ts).
 */
export function prefetchStatements(documents: string[]): SyncStatement[] {
  const params = [documents.map(termHash), documents];
  return [
    { sql: `SELECT t.nt, l.time, l.kind, l.triples FROM vs_terms t CROSS JOIN LATERAL
              (SELECT time, kind, triples FROM vs_versions v WHERE v.graph = t.id ORDER BY time DESC LIMIT 1) l
            WHERE t.h = ANY($1::bigint[]) AND t.nt = ANY($2::text[])`, params },
    // Rows are open only after a put: a deleted or new document (most of a first catch-up) has none.
    // The documents' ids go in as one array (an InitPlan), not as a join: with the statistics of a store
    // being bulk-loaded, PostgreSQL hash-joined every open row of vs_quads to them, once a batch.
    { sql: `SELECT t.nt, q.id, q.h, q.from_t FROM vs_quads q JOIN vs_terms t ON t.id = q.g
            WHERE q.g = ANY(ARRAY(${idsOfTermsSql('$1', '$2')}))
              AND q.to_t = ${OPEN}`, params },
  ];
}

/**
 * A pattern's WHERE conditions (patternConditions) with each term resolved by the statement itself, a
 * scalar subquery on vs_terms that PostgreSQL runs once before scanning: no look-up round trip, and a
 * term the store lacks gives NULL, which matches nothing, as "not in the dictionary" did. `param` adds a
 * statement parameter and returns its placeholder. patternConditions asks for a term's placeholder right
 * after looking the term up, so the last term looked up is the one each placeholder stands for.
 */
function resolvedConditions(pattern: RowConstants, param: (value: unknown) => string): string[] {
  let last = '';
  const where = patternConditions(pattern, (nt) => ((last = nt), 0), () => `(SELECT id FROM vs_terms WHERE h = ${param(termHash(last))} AND nt = ${param(last)})`);
  return where!.sql;
}

/** The crawl-log holes of src/query/log-gaps.ts, in vs_log_gaps. */
class PgLogGaps implements LogGapStore {
  constructor(private readonly db: SyncPg) {}

  list(): LogGap[] {
    return this.db.query<LogGap>('SELECT from_id AS "from", to_id AS "to", seen_at AS "seenAt" FROM vs_log_gaps ORDER BY from_id');
  }

  add(from: number, to: number, seenAt: number): void {
    if (to < from) return;
    this.db.query('INSERT INTO vs_log_gaps (from_id, to_id, seen_at) VALUES ($1, $2, $3)', [from, to, seenAt]);
  }

  fill(id: number): boolean {
    const [gap] = this.db.query<LogGap>('SELECT from_id AS "from", to_id AS "to", seen_at AS "seenAt" FROM vs_log_gaps WHERE from_id <= $1 ORDER BY from_id DESC LIMIT 1', [id]);
    if (!gap || gap.to < id) return false;
    this.db.query('DELETE FROM vs_log_gaps WHERE from_id = $1', [gap.from]);
    this.add(gap.from, id - 1, gap.seenAt);
    this.add(id + 1, gap.to, gap.seenAt);
    return true;
  }

  expire(before: number): number {
    return this.db.query<{ n: number }>('WITH d AS (DELETE FROM vs_log_gaps WHERE seen_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM d', [before])[0]!.n;
  }

  clear(): void {
    this.db.query('DELETE FROM vs_log_gaps');
  }
}

function connectError(e: unknown, url: string): Error {
  if (e instanceof UserError) return e;
  const err = e as { code?: string; message?: string };
  if (['ECONNREFUSED', 'ENOTFOUND', '3D000', '28000', '28P01'].includes(err.code ?? '') || /connect/i.test(err.message ?? '')) {
    return new UserError(`cannot use PostgreSQL at ${redactUrl(url)} for the versioned store: ${err.message}; check that the server runs and the URL names an existing database and user`);
  }
  return e as Error;
}
