import { SyncPg, SyncPgError, type SyncStatement } from '../util/sync-pg.ts';
import { AsyncPg } from '../util/async-pg.ts';
import { parsePostgresUrl, redactUrl } from '../store/redact.ts';
import { UserError } from '../util/errors.ts';
import { termHash } from '../rdf/terms.ts';
import { LogGaps } from './log-gaps.ts';
import { graphColumn, type LogGapStore } from './backend.ts';
import type { TermCheckMemo } from './term-check-memo.ts';
import { PgTermCheckMemo } from './pg-term-check-memo.ts';
import { COUNT_TOTALS_KEY, PG_ADD_CHANGES, buildTotalsSql } from './count-totals.ts';
import { OPEN } from './rows.ts';
import { OPEN_ROW_LINE, literalTerm, type DocumentStates, type Generation, type PendingWrites, type Statement, type TransactionState, type VersionDialect } from './dialect.ts';
import { BULK_LOADER, PgIndexes, hasPgRowRuns, openPgSchema } from './pg-schema.ts';

const NEXT_ROW = 'next_row';
const NEXT_TERM = 'next_term';
const GENERATION = 'generation';
/** Set once a version states `dm:alternateOf` (src/archive/alternates.ts): read with the generation, so that a query of a store without alternates pays no look-up for them. */
const ALTERNATES = 'alternates';
/** How long a store whose read-ahead connection broke reads ahead through the thread before it connects again. */
const READER_RETRY_MS = 60_000;
/** The meta rows a generation is read from. */
const META_READ = [GENERATION, NEXT_ROW, ALTERNATES];

/** `?` placeholders numbered for PostgreSQL (no statement of the store has a `?` of its own). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The versioned store in PostgreSQL (issue #16 item 3), shared by every reader of one crawl database. It
 * blocks on a connection thread (src/util/sync-pg.ts), so store.ts treats it as remote: it batches a
 * transaction's writes (one multi-row INSERT, `unnest` of arrays, per table) and resolves terms inside
 * statements. Term and row ids are handed out from counters in vs_meta, read under the writers' lock.
 */
export class PgVersionDialect implements VersionDialect {
  readonly kind = 'postgres' as const;
  readonly prefix = 'vs_';
  readonly rowId = 'id';
  readonly ng = 'q.ng';
  readonly binary = ' COLLATE "C"';
  readonly endColumn = 'to_t';
  readonly rowRuns: boolean;
  /** PostgreSQL keeps its index of every row's document (its table's key leads with it). */
  readonly graphRows = graphColumn;
  readonly bigintParam = '?::bigint';
  readonly chunk = 20_000;
  readonly remote = true;
  readonly termHash = termHash;

  literalTermsSql(where: string): string {
    return `SELECT id, nt FROM vs_terms WHERE ${where} AND ${literalTerm('nt')}`;
  }

  readonly db: SyncPg;
  readonly logGaps: LogGapStore;
  readonly indexes: PgIndexes;
  /**
   * Whether this session may write the store: false when opened read-only, or when the database user
   * has only SELECT on its tables, or the server is a read-only standby. Such a store reads as it is
   * (VersionIndex then answers without catching it up, and says how far behind it may be).
   */
  readonly writable: boolean;
  keepsTotals = false;
  private generationSeen: number | undefined;
  private inTransaction = false;
  private readAheadRefused = false;
  private readonly connection: { connectionString: string; schema?: string };
  /** The read-ahead's own connection (async-pg.ts), from this store's second read-ahead on. */
  private reader: AsyncPg | undefined;
  private readAheads = 0;
  private readerBrokeAt = Number.NEGATIVE_INFINITY;
  private readerStatements = 0;
  /** Write transactions begun: a read-ahead that overlapped one is not taken (readAhead). */
  private writesBegun = 0;

  /** false: every read-ahead through the thread's connection (a pooler that allows one connection a client; the bench's comparison). */
  private readonly readerAllowed: boolean;

  constructor(readonly file: string, opts: { readonly?: boolean; partitions?: number; readAheadConnection?: boolean } = {}) {
    const { connectionString, schema } = parsePostgresUrl(file);
    this.connection = { connectionString, schema };
    this.readerAllowed = opts.readAheadConnection ?? true;
    this.db = new SyncPg(connectionString, { schema, readonly: opts.readonly ?? false });
    try {
      this.writable = openPgSchema(this.db, file, schema, opts);
      this.indexes = new PgIndexes(this.db);
      // Put back the read indexes a bulk loader that died left down (its session is gone).
      if (this.writable && this.indexes.liveBulkLoader() === undefined && this.indexes.missingIndexes().length > 0) this.locked(() => this.indexes.restoreIndexes());
      this.keepsTotals = this.writable && this.buildCountTotals();
      this.rowRuns = hasPgRowRuns(this.db);
    } catch (e) {
      void this.db.close();
      throw connectError(e, file);
    }
    this.logGaps = new LogGaps(this, this.prefix);
  }

  noIndex(expr: string): string {
    return expr;
  }

  anyOf(column: string, values: unknown[], type: 'bigint' | 'text'): Statement {
    return { sql: `${column} = ANY(?::${type}[])`, params: [values] };
  }

  all<R>(sql: string, params?: unknown[]): R[] {
    return this.db.query<R>(numbered(sql), params);
  }

  get<R>(sql: string, params?: unknown[]): R | undefined {
    return this.all<R>(sql, params)[0];
  }

  iterate<R>(sql: string, params?: unknown[], raw = false): Iterable<R> {
    const rows = this.all<Record<string, unknown>>(sql, params);
    return (raw ? rows.map((r) => Object.values(r)) : rows) as Iterable<R>;
  }

  run<R>(statements: Statement[]): R[][] {
    return this.db.run<R>(statements.map((s) => ({ sql: numbered(s.sql), params: s.params, prepared: s.prepared })));
  }

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
    this.locked(() => {
      if (this.get('SELECT 1 FROM vs_meta WHERE key = ?', [COUNT_TOTALS_KEY])) return; // another writer built it while this one waited
      this.db.run([
        { sql: 'TRUNCATE vs_count_sums' },
        { sql: buildTotalsSql('vs_count_sums', 'vs_versions') },
        { sql: 'INSERT INTO vs_meta (key, value) VALUES ($1, 1) ON CONFLICT (key) DO NOTHING', params: [COUNT_TOTALS_KEY] },
      ]);
    });
    return true;
  }

  /** `fn` holding the writers' lock, writing no version. */
  private locked(fn: () => void): void {
    const state = this.begin();
    try {
      fn();
    } catch (e) {
      this.rollback();
      throw e;
    }
    this.commit([], state);
  }

  /** Read afresh each time (a cache key must not be stale), with the next row id and the alternates mark beside it. */
  generation(): Generation {
    const meta = this.db.query<{ key: string; value: number }>('SELECT key, value FROM vs_meta WHERE key = ANY($1)', [META_READ]);
    return this.generationOf(Object.fromEntries(meta.map((r) => [r.key, r.value])));
  }

  /**
   * One statement: its first row (rid NULL, ordered first) holds the meta rows and the counts as JSON; the
   * rows follow, in row-id order, unless the counts add up to more than `rowsUpTo`. A database that refuses it
   * (Citus may refuse subqueries in a select list over a distributed table) is not asked again.
   *
   * Sent on the read-ahead's own connection (async-pg.ts: two wake-ups a call, not SyncPg's four), once
   * every commit this process sent on the thread's connection is acknowledged (settle), so that it reads
   * this process's writes: another connection sees a commit once it is acknowledged, however
   * synchronous_commit is set. A write transaction begun while it ran makes it answer nothing (the
   * caller then reads through the thread, after that write): its generation would come after the
   * write's. The first read-ahead of a store goes through the thread, and later ones while the
   * connection cannot be had: a process that asks one query (the CLI) opens no second connection.
   */
  async readAhead<R>(counts: Statement[], rows: Statement, rowsUpTo: number, sources: Statement[] = []): Promise<{ generation: Generation; counts: number[]; rows: R[] } | undefined> {
    if (this.readAheadRefused) return undefined;
    // A commit sent before and not waited for throws its own error here, not taken for this statement's.
    this.db.settle();
    const statement = this.readAheadStatement(counts, rows, rowsUpTo, sources);
    const reader = this.inTransaction ? undefined : this.asyncReader();
    if (reader) {
      const begun = this.writesBegun;
      try {
        this.readerStatements++;
        const answer = await reader.query<R & { head?: unknown }>({ sql: numbered(statement.sql), params: statement.params, prepared: true });
        return this.writesBegun === begun && !this.inTransaction ? this.readAheadAnswer(answer) : undefined;
      } catch {
        // Refused, or the connection failed: the thread's connection answers, and says which.
        if (this.writesBegun !== begun || this.inTransaction) return undefined;
      }
    }
    let answer: Array<R & { head?: unknown }>;
    try {
      answer = this.run<R & { head?: unknown }>([statement])[0]!;
    } catch (e) {
      if (!(e instanceof SyncPgError)) throw e;
      this.readAheadRefused = true;
      return undefined;
    }
    return this.readAheadAnswer(answer);
  }

  private readAheadAnswer<R>(answer: Array<R & { head?: unknown }>): { generation: Generation; counts: number[]; rows: R[] } {
    const head = answer[0]!.head as { meta: Record<string, number> | null; counts: number[] };
    return { generation: this.generationOf(head.meta ?? {}), counts: head.counts, rows: answer.slice(1) };
  }

  /**
   * The read-ahead's connection, made on the second read-ahead; undefined for the first. One that broke (a
   * server restarted, or one that refuses more connections) is made again a minute later, not at every query.
   */
  private asyncReader(): AsyncPg | undefined {
    if (this.reader?.broken) {
      void this.reader.close();
      this.reader = undefined;
      this.readerBrokeAt = Date.now();
    }
    if (this.readAheads++ === 0 || !this.readerAllowed) return undefined;
    if (!this.reader && Date.now() - this.readerBrokeAt < READER_RETRY_MS) return undefined;
    this.reader ??= new AsyncPg(this.connection.connectionString, this.connection.schema);
    return this.reader;
  }

  /** Statements the read-ahead's own connection ran (each a round trip that is not a SyncPg call). */
  get readerCalls(): number {
    return this.readerStatements;
  }

  private readAheadStatement(counts: Statement[], rows: Statement, rowsUpTo: number, sources: Statement[]): Statement {
    return {
      sql: `WITH ${sources.map((s) => `${s.sql}, `).join('')}n AS (SELECT ARRAY[${counts.map((c) => c.sql).join(', ')}]::bigint[] AS c)
        SELECT NULL::bigint AS rid, NULL::text AS g, NULL::text AS s, NULL::text AS p, NULL::text AS o, NULL::text AS ng,
          json_build_object('meta', (SELECT json_object_agg(key, value) FROM vs_meta WHERE key = ANY(?::text[])), 'counts', (SELECT to_json(c) FROM n)) AS head
        UNION ALL
        SELECT r.*, NULL FROM (${rows.sql}) r WHERE (SELECT sum(x) FROM n, unnest(n.c) x) <= ?
        ORDER BY rid NULLS FIRST`,
      params: [...sources.flatMap((s) => s.params ?? []), ...counts.flatMap((c) => c.params ?? []), META_READ, ...(rows.params ?? []), Number.isFinite(rowsUpTo) ? rowsUpTo : Number.MAX_SAFE_INTEGER],
      // Its text depends on the query's shape only (which positions are constants, whether graphs are named): few texts, run often.
      prepared: true,
    };
  }

  /** The generation of the meta rows read (by key), taken as seen. */
  private generationOf(meta: Record<string, number>): Generation & { nextRow: number; alternates: boolean } {
    const value = (k: string): number | undefined => meta[k];
    const generation = value(GENERATION) ?? 0;
    const changed = !this.inTransaction && this.generationSeen !== undefined && generation !== this.generationSeen;
    if (!this.inTransaction) this.generationSeen = generation;
    return { key: String(generation), changed, nextRow: value(NEXT_ROW) ?? 1, alternates: value(ALTERNATES) !== undefined };
  }

  begin(): TransactionState & { changed: boolean } {
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
    const changed = this.generationSeen !== undefined && generation !== this.generationSeen;
    this.generationSeen = generation;
    this.inTransaction = true;
    this.writesBegun++;
    return { nextRow: value(NEXT_ROW) ?? 1, nextTerm: value(NEXT_TERM) ?? 1, wrote: false, changed };
  }

  writeStatements(rows: PendingWrites): Statement[] {
    const out: Statement[] = [];
    const columns = (list: unknown[][], n: number) => Array.from({ length: n }, (_v, i) => list.map((r) => r[i]));
    if (rows.terms.length > 0) out.push({ sql: 'INSERT INTO vs_terms (id, h, nt) SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[])', params: columns(rows.terms, 3) });
    if (rows.quads.length > 0) {
      out.push({
        sql: `INSERT INTO vs_quads (id, g, s, p, o, from_t, to_t, ng) SELECT * FROM unnest(${Array(8).fill('?::bigint[]').join(', ')})`,
        params: columns(rows.quads, 8),
      });
    }
    if (rows.closes.length > 0) {
      out.push({
        sql: 'UPDATE vs_quads q SET to_t = u.t FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) AS u(g, id, t) WHERE q.g = u.g AND q.id = u.id',
        params: columns(rows.closes, 3),
      });
    }
    if (rows.versions.length > 0) {
      out.push({
        sql: `INSERT INTO vs_versions (graph, time, kind, added, removed, triples, first_row, last_row)
              SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::int[], ?::int[], ?::int[], ?::bigint[], ?::bigint[])
              ON CONFLICT (graph, time) DO UPDATE SET kind = excluded.kind, added = excluded.added, removed = excluded.removed,
                triples = excluded.triples, first_row = excluded.first_row, last_row = excluded.last_row`,
        params: columns(rows.versions, 8),
      });
    }
    if (rows.sums.length > 0) out.push({ sql: PG_ADD_CHANGES.replace(/\$\d/g, '?'), params: columns(rows.sums, 3) });
    return out;
  }

  /**
   * Not waited for: the catch-up reads and parses its next batch while the server writes and commits
   * this one (bench/SCALE-RUN.md, PostgreSQL catch-up). The next call waits for it and throws its error;
   * every statement of a later transaction runs after this COMMIT on the same connection. If it fails, the
   * generation in the database is not the one assumed here, and the next transaction or read forgets the
   * term ids it handed out.
   */
  commit(statements: Statement[], state: TransactionState): void {
    const commit: SyncStatement[] = statements.map((s) => ({ sql: numbered(s.sql), params: s.params }));
    if (state.wrote) {
      const generation = this.generationSeen! + 1;
      this.generationSeen = generation;
      const alternates = state.alternates ? [[ALTERNATES], [1]] : [[], []];
      commit.push({
        sql: `INSERT INTO vs_meta (key, value) SELECT * FROM unnest($1::text[], $2::bigint[])
              ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        params: [[NEXT_ROW, NEXT_TERM, GENERATION, ...alternates[0]!], [state.nextRow, state.nextTerm, generation, ...alternates[1]!]],
      });
    }
    commit.push({ sql: 'COMMIT' });
    this.inTransaction = false;
    this.db.send(commit, { rollbackOnError: true });
  }

  rollback(): void {
    this.inTransaction = false;
    try {
      this.db.query('ROLLBACK');
    } catch {
      // the connection is gone: the server rolled back
    }
  }

  documentStates(nts: string[]): DocumentStates {
    const [lasts, open] = this.db.run<never>(prefetchStatements(nts));
    return { lasts: lasts!, open: open! };
  }

  clearTables(): void {
    this.db.run([
      { sql: 'TRUNCATE vs_quads, vs_versions, vs_terms, vs_log_gaps' },
      // Absent from a store built before them whose writer may not create tables (addMissingTables).
      { sql: "DO $$ BEGIN IF to_regclass('vs_term_classes') IS NOT NULL THEN TRUNCATE vs_term_forms, vs_term_classes; END IF; END $$" },
      { sql: "DO $$ BEGIN IF to_regclass('vs_count_sums') IS NOT NULL THEN TRUNCATE vs_count_sums; END IF; END $$" },
      { sql: 'DELETE FROM vs_meta WHERE key <> ALL($1)', params: [[BULK_LOADER, COUNT_TOTALS_KEY]] },
    ]);
  }

  size(): { file: string; bytes: number } {
    const bytes = this.db.query<{ bytes: number }>(`SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname LIKE 'vs\\_%'`)[0]!.bytes;
    return { file: redactUrl(this.file), bytes };
  }

  termCheckMemo(): TermCheckMemo {
    return new PgTermCheckMemo(this.db, !this.writable);
  }

  async close(): Promise<void> {
    const reader = this.reader;
    this.reader = undefined;
    try {
      await this.db.close();
    } finally {
      await reader?.close();
    }
  }
}

/** The ids of terms given as parameters: their hashes (an index probe each), then their N-Triples. */
function idsOfTermsSql(hashes: string, nts: string, columns = 'id'): string {
  return `SELECT ${columns} FROM vs_terms WHERE h = ANY(${hashes}::bigint[]) AND nt = ANY(${nts}::text[])`;
}

/**
 * The last version, then the open rows, of documents (their N-Triples IRIs): the store's prefetch in one
 * round trip, exported for the test of its plan (test/query/pg-writes.test.ts).
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
    // With their terms' text, which the writer hashes (sqlite-dialect.ts SQLITE_OPEN_ROWS says why).
    { sql: `SELECT t.nt, q.id, q.from_t, ${OPEN_ROW_LINE} AS line FROM vs_quads q JOIN vs_terms t ON t.id = q.g
              JOIN vs_terms s ON s.id = q.s JOIN vs_terms p ON p.id = q.p JOIN vs_terms o ON o.id = q.o LEFT JOIN vs_terms n ON n.id = q.ng
            WHERE q.g = ANY(ARRAY(${idsOfTermsSql('$1', '$2')}))
              AND q.to_t = ${OPEN}`, params },
  ];
}

function connectError(e: unknown, url: string): Error {
  if (e instanceof UserError) return e;
  const err = e as { code?: string; message?: string };
  if (['ECONNREFUSED', 'ENOTFOUND', '3D000', '28000', '28P01'].includes(err.code ?? '') || /connect/i.test(err.message ?? '')) {
    return new UserError(`cannot use PostgreSQL at ${redactUrl(url)} for the versioned store: ${err.message}; check that the server runs and the URL names an existing database and user`);
  }
  return e as Error;
}
