import type { SyncPg, SyncStatement } from '../util/sync-pg.ts';
import type { IndexMaintenance } from './backend.ts';
import { redactUrl } from '../store/redact.ts';
import { UserError } from '../util/errors.ts';
import { PG_TERM_CHECK_DDL } from './pg-term-check-memo.ts';
import { PG_COUNT_TOTALS_DDL } from './count-totals.ts';

/**
 * Partitions of the quads table, by a hash of the document (`g`): every read and write of one document's
 * rows stays in one partition, and the same column is what Citus distributes the table by (docs/query.md).
 */
export const QUAD_PARTITIONS = 16;

/** Secondary indexes of vs_quads (built on every partition); the bulk catch-up drops and rebuilds them. */
const PG_READ_INDEXES: Array<[name: string, definition: string]> = [
  ['vs_quads_by_id', '(id)'],
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
       added integer NOT NULL, removed integer NOT NULL, triples integer NOT NULL, first_row bigint, last_row bigint,
       PRIMARY KEY (graph, time))`,
    'CREATE INDEX IF NOT EXISTS vs_versions_by_time ON vs_versions (time, graph, first_row, last_row)',
    // (g, id) is the key: a unique constraint of a partitioned (or Citus-distributed) table must hold its partition column.
    `CREATE TABLE IF NOT EXISTS vs_quads (id bigint NOT NULL, g bigint NOT NULL, s bigint NOT NULL, p bigint NOT NULL,
       o bigint NOT NULL, from_t bigint NOT NULL, to_t bigint NOT NULL, ng bigint,
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

/** SQL: whether `table` of the store's schema has the column `name`. */
const column = (table: string, name: string) =>
  `EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${table}' AND column_name = '${name}')`;

/** Whether the versions keep their runs of row ids (sqlite-schema.ts VERSIONS_TABLE): false in a store of the layout before, opened by a user who may not change it. */
export function hasPgRowRuns(db: SyncPg): boolean {
  return db.query<{ runs: boolean }>(`SELECT ${column('vs_versions', 'first_row')} AS runs`)[0]!.runs;
}

/** The meta key of the backend pid (pg_backend_pid) of a session bulk-loading with the read indexes down. */
export const BULK_LOADER = 'bulk_loader_pid';

/** SQLSTATE of "permission denied". */
const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Opens the store's tables in `schema`: made when missing (unless read-only), those added since gained;
 * returns whether this session may write them (false: read-only, a user with only SELECT, or a standby).
 */
export function openPgSchema(db: SyncPg, url: string, schema: string | undefined, opts: { readonly?: boolean; partitions?: number }): boolean {
  if (opts.readonly) {
    if (db.query<{ t: string | null }>("SELECT to_regclass('vs_meta')::text AS t")[0]!.t === null) {
      throw new UserError(`no versioned archive in ${redactUrl(url)}: run datamonitor query --db ${redactUrl(url)} once to build it`);
    }
    return false;
  }
  const statements: SyncStatement[] = [
    { sql: 'BEGIN' },
    // Two processes creating the tables at once: the second waits, then finds them there.
    { sql: 'SELECT pg_advisory_xact_lock(hashtext($1))', params: [`datamonitor-versions:${schema ?? 'public'}`] },
  ];
  // Tables there already: nothing to create, and a user who may not create anything (SELECT only) can open it.
  const have = db.query<{ meta: string | null; term_check: string | null; totals: string | null; row_hash: boolean; row_runs: boolean }>(
    `SELECT to_regclass('vs_meta')::text AS meta, to_regclass('vs_term_classes')::text AS term_check,
            to_regclass('vs_count_sums')::text AS totals, ${column('vs_quads', 'h')} AS row_hash, ${column('vs_versions', 'first_row')} AS row_runs`)[0]!;
  if (have.meta !== null) {
    // A store built before the count's term check (term-check-memo.ts) or its totals (count-totals.ts) were kept
    // gains their tables; a user who may not create them still opens the store, and the check is then made in
    // memory by each process, the count by a scan.
    const missing = [...(have.term_check === null ? PG_TERM_CHECK_DDL : []), ...(have.totals === null ? [PG_COUNT_TOTALS_DDL] : [])];
    if (missing.length > 0) runDdl(db, [...statements, ...missing.map((sql) => ({ sql }))], () => undefined);
    if (have.row_hash) {
      // A store from before rows dropped their triple's hash (sqlite-schema.ts quadsTable): the writer no
      // longer fills it. Dropping a column rewrites no row in PostgreSQL.
      // A user who may only read it reads it as it is (no read uses the column).
      runDdl(db, [...statements, { sql: 'ALTER TABLE vs_quads DROP COLUMN IF EXISTS h' }], (e) => {
        if (mayWrite(db)) throw new UserError(`the versioned store in PostgreSQL at ${redactUrl(url)} has an older layout that this user may not change (${e.message}); open it once for writing as its owner (datamonitor query --db URL)`);
      });
    }
    if (!have.row_runs) {
      // A store from before versions kept their runs of row ids (sqlite-schema.ts VERSIONS_TABLE): given them
      // from its rows, once; the index of every row's start they replace goes.
      runDdl(db, [...statements,
        { sql: 'ALTER TABLE vs_versions ADD COLUMN IF NOT EXISTS first_row bigint, ADD COLUMN IF NOT EXISTS last_row bigint' },
        { sql: `UPDATE vs_versions v SET first_row = r.a, last_row = r.b
                FROM (SELECT g, from_t, min(id) AS a, max(id) AS b FROM vs_quads GROUP BY g, from_t) r WHERE r.g = v.graph AND r.from_t = v.time` },
        { sql: 'DROP INDEX IF EXISTS vs_quads_by_from' },
        { sql: 'DROP INDEX IF EXISTS vs_versions_by_time' },
        { sql: 'CREATE INDEX vs_versions_by_time ON vs_versions (time, graph, first_row, last_row)' }], (e) => {
        if (mayWrite(db)) throw new UserError(`the versioned store in PostgreSQL at ${redactUrl(url)} has an older layout that this user may not change (${e.message}); open it once for writing as its owner (datamonitor query --db URL)`);
      });
    }
    return mayWrite(db);
  }
  if (schema) statements.push({ sql: `CREATE SCHEMA IF NOT EXISTS "${schema}"` });
  // IF NOT EXISTS throughout: another process may have created them while this one waited for the lock.
  runDdl(db, [...statements, ...ddl(opts.partitions ?? QUAD_PARTITIONS).map((sql) => ({ sql }))], (e) => {
    throw new UserError(`cannot create the versioned store in PostgreSQL at ${redactUrl(url)}: ${e.message}; a database user who may create tables there must build it once (datamonitor query --db URL as that user)`);
  });
  return mayWrite(db);
}

/** Runs DDL in a transaction; `denied` says what a user without the privilege gets. */
function runDdl(db: SyncPg, statements: SyncStatement[], denied: (e: Error) => void): void {
  try {
    db.run([...statements, { sql: 'COMMIT' }]);
  } catch (e) {
    db.query('ROLLBACK');
    if ((e as { code?: string }).code !== INSUFFICIENT_PRIVILEGE) throw e;
    denied(e as Error);
  }
}

/** Whether this session may write every table of the store (and the server takes writes at all). */
function mayWrite(db: SyncPg): boolean {
  const checks = [['vs_quads', 'INSERT,UPDATE,DELETE'], ['vs_terms', 'INSERT'], ['vs_versions', 'INSERT,UPDATE'], ['vs_meta', 'INSERT,UPDATE,DELETE'], ['vs_log_gaps', 'INSERT,DELETE']]
    // One call a privilege: given a list, has_table_privilege is true when any one of them is held.
    .flatMap(([table, privileges]) => privileges!.split(',').map((p) => `has_table_privilege('${table}', '${p}')`));
  return db.query<{ ok: boolean }>(
    `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AND ${checks.join(' AND ')} AS ok`)[0]!.ok;
}

/** The bulk load's index maintenance (backend.ts IndexMaintenance) of a PostgreSQL store. */
export class PgIndexes implements IndexMaintenance {
  constructor(private readonly db: SyncPg) {}

  /** Inside writeTransaction: drops the read indexes (every partition's), records this session as the loader. */
  dropReadIndexes(): string[] {
    const dropped = this.presentIndexes();
    // One statement an index, in one round trip: Citus refuses to drop several distributed objects in one command.
    if (dropped.length > 0) this.db.run(dropped.map((name) => ({ sql: `DROP INDEX IF EXISTS ${name}` })));
    this.db.query('INSERT INTO vs_meta (key, value) VALUES ($1, pg_backend_pid()) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [BULK_LOADER]);
    return dropped;
  }

  /**
   * Inside writeTransaction: builds the read indexes missing (each once over the whole table), then
   * gathers the planner's statistics: right after a bulk load autovacuum has not run yet, and without them
   * PostgreSQL joined the term dictionary by scanning it whole (a selective query took seconds).
   */
  restoreIndexes(): void {
    this.db.run([
      ...PG_READ_INDEXES.map(([name, def]) => ({ sql: `CREATE INDEX IF NOT EXISTS ${name} ON vs_quads ${def}` })),
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

  compactIndexes(): undefined {
    return undefined;
  }

  missingIndexes(): string[] {
    const have = new Set(this.presentIndexes());
    return PG_READ_INDEXES.map(([name]) => name).filter((n) => !have.has(n));
  }

  private presentIndexes(): string[] {
    const names = PG_READ_INDEXES.map(([name]) => name);
    return this.db.query<{ n: string }>('SELECT indexname AS n FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)', [names]).map((r) => r.n);
  }
}
