import pg from 'pg';
import type { CrawlLogEntry, CycleRow, DocumentRow, DocumentState, DueSelection, HostRow } from './types.ts';
import type { HostLease, Partition, WorkerStore } from './worker-types.ts';
import { BULK_READ, CONVERTED, CYCLE_COLS, DOCUMENT_COLS, HOST_COLS, LOG_WRITE_COLS, WARC_FILES_DDL, WARC_INDEX, assignments, ddl, dueWhere, fromRow, logEntry, logValues, MOVED_INDEX, PARTIAL_INDEXES, QUEUED, reasonColumnMigration, toValues, versionsArgs, versionsWhere, warcIdMigration } from './schema.ts';
import { WARC_FILES_SELECT, WarcIdCache, legacySql } from './warc-ids.ts';
import { LEASE_DDL, checkPartition, hostHash, newHosts, partitionSql } from './host-partition.ts';
import { UserError, isDatabaseLost } from '../util/errors.ts';
import * as logReads from './log-reads.ts';
import { ReadOnlyStoreError } from './read-only.ts';
import { parsePostgresUrl, redactUrl } from './redact.ts';
import { WriteBatcher, type BatchLimits } from './pg-batch.ts';
import { StoreRetry } from './pg-retry.ts';

/** Each step runs once, in order, inside the migration transaction; DDL is idempotent anyway. */
const MIGRATIONS: { version: number; sql: string[] }[] = [
  { version: 1, sql: ddl('postgres') },
  { version: 2, sql: LEASE_DDL },
  { version: 3, sql: reasonColumnMigration('postgres') },
  { version: 4, sql: [logReads.captureIndexDdl('postgres')] },
  { version: 5, sql: MOVED_INDEX },
  { version: 6, sql: [...warcIdMigration('postgres'), ...WARC_FILES_DDL('postgres'), logReads.captureIndexDdl('postgres')] },
  { version: 7, sql: PARTIAL_INDEXES },
  { version: 8, sql: WARC_INDEX },
];
/** The first schema whose log rows name their WARC file by id (warc_files). */
const WARC_IDS = 6;
const LATEST = MIGRATIONS[MIGRATIONS.length - 1].version;

/** `$1, $2, …` for n values starting at `from`. */
function params(n: number, from = 1): string {
  return Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');
}

/** `?` placeholders (the shared SQL of log-reads.ts, which has no `?` in literals) as `$1, $2, …`. */
function numbered(sql: string): string {
  let i = 0;
  return sql.replace(/\?/g, () => `$${++i}`);
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

export { parsePostgresUrl, redactUrl };

/**
 * The PostgreSQL metadata store (seed 000's meta data store) for several processes or machines
 * sharing one archive. Without `batch`, every write is its own statement in autocommit, so nothing
 * is pending between calls and `flush()` has nothing to do. With `batch` (what `worker` opens), the
 * crawl's per-page writes (log rows, their documents' patches, plain addDocuments) are grouped into
 * one transaction per batch (src/store/pg-batch.ts); every other statement first commits what waits,
 * so this process reads its own writes in order, and getDocument(s) lay the waiting writes over
 * what the server answers instead, so that the per-page read does not end the batch. Multi-row
 * writes go in a fixed key order so that two workers inserting overlapping batches cannot deadlock.
 */
export class PostgresStore extends logReads.LogReadingStore implements WorkerStore {
  readonly pool: pg.Pool;
  readonly schema: string | undefined;
  /** Hosts this process has already put in host_leases (saves a statement per page). */
  private registered = new Set<string>();
  /** Opened with `readonly`: sessions are read-only (the server refuses every write) and init migrates nothing. */
  readonly readonly: boolean;

  /** Group commit of the per-page writes, when opened with `batch`. */
  private readonly batcher: WriteBatcher | undefined;
  /** Every statement but init's goes through it: a lost database is waited for, up to a bound (src/store/pg-retry.ts). */
  private readonly retry: StoreRetry;
  private readonly warcIds = new WarcIdCache();
  /** Read-only on a schema from before warc_files: rows name their file in the old text column. */
  private legacyWarcColumn = false;

  constructor(readonly url: string, opts: { max?: number; readonly?: boolean; batch?: BatchLimits } = {}) {
    super();
    const { connectionString, schema } = parsePostgresUrl(url);
    this.schema = schema;
    this.readonly = opts.readonly ?? false;
    this.pool = new pg.Pool({
      connectionString,
      max: opts.max ?? 8,
      // Set at connection start-up, so no query can ever run in the wrong schema. Commits do not
      // wait for the WAL flush (synchronous_commit=off): a server crash loses at most the last
      // fraction of a second of log rows, never consistency, the same promise the SQLite store's
      // batching makes, and the WARC writer cuts bytes the log does not point to. The commit wait
      // was what capped cooperating workers (bench/WORKERS.md).
      options: `${schema ? `-c search_path=${schema} ` : ''}-c synchronous_commit=off${this.readonly ? ' -c default_transaction_read_only=on' : ''}`,
    });
    // An idle client that loses its server must not crash the process; the next query reports it.
    this.pool.on('error', () => {});
    // Opened read-only, a refused write (25006) is the caller's mistake, not a fail-over.
    this.retry = new StoreRetry(redactUrl(url), (e) => isDatabaseLost(e) && !(this.readonly && (e as { code?: string }).code === '25006'));
    if (opts.batch && !this.readonly) {
      this.batcher = new WriteBatcher(opts.batch, {
        query: (sql, values) => this.retry.run(() => this.pool.query(sql, values)),
        unregistered: (hosts) => newHosts(hosts.map((host) => ({ host })), this.registered),
        registered: (hosts) => hosts.forEach((h) => this.registered.add(h)),
        wrapError: (e) => this.storeError(e, 'INSERT INTO crawl_log'),
        warcIds: (names) => this.warcIdsOf(names),
      });
    }
  }

  /** Every statement but the batched writes and getDocument(s): what waits in the batch commits first, so reads and writes keep their order. */
  private async query(sql: string, values?: unknown[]): Promise<pg.QueryResult> {
    // A failed batch has told its own writers; this statement runs anyway.
    if (this.batcher?.busy) await this.batcher.flushSoon().catch(() => undefined);
    return this.send(sql, values);
  }

  private async send(sql: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (this.legacyWarcColumn) sql = legacySql(sql);
    try {
      return await this.retry.run(() => this.pool.query(sql, values));
    } catch (e) {
      throw this.storeError(e, sql);
    }
  }

  private storeError(e: unknown, sql: string): Error {
    const err = e as NodeJS.ErrnoException;
    if (err.code === '25006') return new ReadOnlyStoreError(redactUrl(this.url), sql.trim().split(/\s+/).slice(0, 3).join(' '));
    if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === '3D000' || err.code === '28000') {
      return new UserError(`cannot use PostgreSQL at ${redactUrl(this.url)}: ${err.message}; check that the server runs and the URL names an existing database and user`);
    }
    return err;
  }

  async init(): Promise<void> {
    if (this.readonly) return this.checkSchema();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw new UserError(`cannot connect to PostgreSQL at ${redactUrl(this.url)}: ${(e as Error).message}; check that the server runs and the URL names an existing database and user`);
    }
    try {
      await client.query('BEGIN');
      // Two processes starting at once: the second waits here, then finds the migrations done.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`datamonitor:${this.schema ?? 'public'}`]);
      if (this.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`);
      await client.query('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
      const current = Number((await client.query('SELECT MAX(version) AS v FROM schema_version')).rows[0].v ?? 0);
      if (current > LATEST) {
        throw new UserError(`${redactUrl(this.url)} was written by a newer datamonitor (schema ${current}, this one knows ${LATEST}); upgrade datamonitor`);
      }
      for (const m of MIGRATIONS) {
        if (m.version <= current) continue;
        for (const sql of m.sql) await client.query(sql);
        await client.query('INSERT INTO schema_version (version) VALUES ($1)', [m.version]);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  /** A read-only open migrates nothing: the schema must be there already, and not newer than this code. */
  private async checkSchema(): Promise<void> {
    const { rows } = await this.query(`SELECT to_regclass('schema_version') IS NOT NULL AS present`);
    if (!rows[0].present) throw new UserError(`${redactUrl(this.url)} holds no datamonitor archive (no schema_version table); crawl into it first`);
    const current = Number((await this.query('SELECT MAX(version) AS v FROM schema_version')).rows[0].v ?? 0);
    if (current > LATEST) throw new UserError(`${redactUrl(this.url)} was written by a newer datamonitor (schema ${current}, this one knows ${LATEST}); upgrade datamonitor`);
    this.legacyWarcColumn = current < WARC_IDS;
  }

  async flush(): Promise<void> {
    await this.batcher?.flush();
  }

  async close(): Promise<void> {
    try {
      await this.batcher?.flush();
    } finally {
      await this.pool.end().catch(() => {});
    }
  }

  async addDocuments(docs: Pick<DocumentRow, 'url' | 'host' | 'depth'>[], opts: { monitored?: boolean; strategy?: string; nextFetch?: number } = {}): Promise<number> {
    if (docs.length === 0) return 0;
    const now = Date.now();
    // The crawler's links (no options): into the batch, with the pages that found them.
    if (this.batcher && !opts.monitored && opts.strategy === undefined && opts.nextFetch === undefined) return this.batcher.addDocuments(docs, now);
    const sorted = [...docs].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
    const res = await this.query(
      `INSERT INTO documents (url, host, depth, state, first_seen, monitored, strategy, next_fetch)
       SELECT u, h, d, 'queued', $4, $5, $6, $7 FROM unnest($1::text[], $2::text[], $3::int[]) AS t(u, h, d)
       ON CONFLICT (url) DO NOTHING`,
      [sorted.map((d) => d.url), sorted.map((d) => d.host), sorted.map((d) => d.depth), now, opts.monitored ? 1 : 0, opts.strategy ?? null, opts.nextFetch ?? null],
    );
    if (opts.monitored) {
      await this.query(
        `UPDATE documents SET monitored = 1, strategy = COALESCE($1, strategy), next_fetch = COALESCE(next_fetch, $2)
         WHERE url = ANY($3::text[]) AND monitored = 0`,
        [opts.strategy ?? null, opts.nextFetch ?? now, sorted.map((d) => d.url)],
      );
    }
    await this.registerHosts(docs, now);
    return res.rowCount ?? 0;
  }

  /** Puts hosts not seen before into host_leases (free since now), so that workers can lease them. */
  private async registerHosts(docs: { host: string }[], now: number): Promise<void> {
    const hosts = newHosts(docs, this.registered);
    if (hosts.length === 0) return;
    await this.query(
      `INSERT INTO host_leases (host, hash, worker, expires_at)
       SELECT h, x, NULL, $3 FROM unnest($1::text[], $2::bigint[]) AS t(h, x) ON CONFLICT (host) DO NOTHING`,
      [hosts, hosts.map(hostHash), now],
    );
    for (const h of hosts) this.registered.add(h);
  }

  // The fetch stage reads each page's row before fetching it: these two do not end the batch, they
  // lay its waiting writes over the server's answer (a redirect target fetched a moment ago is seen fetched).
  async getDocument(url: string): Promise<DocumentRow | undefined> {
    const { rows } = await this.send('SELECT * FROM documents WHERE url = $1', [url]);
    const row = rows[0] && fromRow<DocumentRow>(DOCUMENT_COLS, rows[0]);
    return this.batcher ? this.batcher.overlay(url, row) : row;
  }

  async getDocuments(urls: readonly string[]): Promise<DocumentRow[]> {
    urls = [...new Set(urls)]; // a URL asked twice in different batches would come back twice
    const out: DocumentRow[] = [];
    for (let i = 0; i < urls.length; i += BULK_READ) {
      const { rows } = await this.send('SELECT * FROM documents WHERE url = ANY($1::text[])', [urls.slice(i, i + BULK_READ)]);
      for (const r of rows) out.push(fromRow(DOCUMENT_COLS, r));
    }
    if (!this.batcher?.busy) return out;
    const pending = this.batcher.pendingUrls();
    const byUrl = new Map(out.map((d) => [d.url, d]));
    for (const u of urls) {
      if (!pending.has(u)) continue;
      const d = this.batcher.overlay(u, byUrl.get(u));
      if (d) byUrl.set(u, d);
    }
    return [...byUrl.values()];
  }

  async updateDocument(url: string, patch: Partial<DocumentRow>): Promise<void> {
    const { cols, values } = assignments(DOCUMENT_COLS, patch, 'postgres');
    if (cols.length === 0) return;
    await this.query(`UPDATE documents SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE url = $${cols.length + 1}`, [...values, url]);
  }

  async makeDue(select: DueSelection, now: number): Promise<number> {
    const [where, arg] = dueWhere(select, 2);
    const r = await this.query(`UPDATE documents SET next_fetch = $1 WHERE monitored = 1 AND ${where}`, [now, ...arg]);
    return r.rowCount ?? 0;
  }

  async queuedDocuments(limit = 1e9): Promise<DocumentRow[]> {
    const { rows } = await this.query(`SELECT * FROM documents WHERE ${QUEUED} ORDER BY depth, first_seen, url LIMIT $1`, [limit]);
    return rows.map((r) => fromRow(DOCUMENT_COLS, r));
  }

  async dueDocuments(now: number, limit: number): Promise<DocumentRow[]> {
    const { rows } = await this.query(`SELECT * FROM documents WHERE monitored = 1 AND next_fetch <= $1 ORDER BY next_fetch, url LIMIT $2`, [now, limit]);
    return rows.map((r) => fromRow(DOCUMENT_COLS, r));
  }

  async countDocuments(state?: DocumentState): Promise<number> {
    const { rows } = state
      ? await (state === 'queued' ? this.query(`SELECT COUNT(*) AS n FROM documents WHERE ${QUEUED}`) : this.query('SELECT COUNT(*) AS n FROM documents WHERE state = $1', [state]))
      : await this.query('SELECT COUNT(*) AS n FROM documents');
    return Number(rows[0].n);
  }

  async appendLog(entry: CrawlLogEntry): Promise<number> {
    if (this.batcher) return this.batcher.log(entry);
    const warcId = await this.warcIdOf(entry.warcFile);
    const cols = LOG_WRITE_COLS.map(([, c]) => c);
    const { rows } = await this.query(`INSERT INTO crawl_log (${cols.join(', ')}) VALUES (${params(cols.length)}) RETURNING id`, logValues(entry, warcId, 'postgres'));
    return Number(rows[0].id);
  }

  async logFetch(entry: CrawlLogEntry, patch: Partial<DocumentRow>): Promise<number> {
    if (this.batcher) return this.batcher.log(entry, patch);
    const { cols: set, values } = assignments(DOCUMENT_COLS, patch, 'postgres');
    if (set.length === 0) return this.appendLog(entry);
    const warcId = await this.warcIdOf(entry.warcFile);
    const cols = LOG_WRITE_COLS.map(([, c]) => c);
    const n = cols.length;
    // A data-modifying WITH runs whether or not it is read: one statement, one round trip, one commit.
    const { rows } = await this.query(
      `WITH entry AS (INSERT INTO crawl_log (${cols.join(', ')}) VALUES (${params(n)}) RETURNING id),
       doc AS (UPDATE documents SET ${set.map((c, i) => `${c} = $${n + i + 1}`).join(', ')} WHERE url = $${n + set.length + 1})
       SELECT id FROM entry`,
      [...logValues(entry, warcId, 'postgres'), ...values, entry.url],
    );
    return Number(rows[0].id);
  }

  async versions(url: string): Promise<CrawlLogEntry[]> {
    const { rows } = await this.query(numbered(`SELECT * FROM crawl_log WHERE ${versionsWhere('postgres')} ORDER BY time, id`), versionsArgs('postgres', url));
    return (await this.named(rows)).map(logEntry);
  }

  async log(opts: { sinceId?: number; limit?: number; url?: string; warcFile?: string; converted?: boolean } = {}): Promise<CrawlLogEntry[]> {
    const where = ['id > ?'];
    const params: unknown[] = [opts.sinceId ?? 0];
    if (opts.url) (where.push('url = ?'), params.push(opts.url));
    if (opts.warcFile !== undefined) {
      const file = await this.fileKey(opts.warcFile);
      if (file === undefined) return [];
      where.push('warc_id = ?');
      params.push(file);
    }
    if (opts.converted) where.push(CONVERTED);
    const { rows } = await this.query(numbered(`SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`), [...params, opts.limit ?? 1e9]);
    return (await this.named(rows)).map(logEntry);
  }

  private async warcIdOf(name: string | undefined): Promise<number | undefined> {
    return name === undefined ? undefined : (await this.warcIdsOf([name])).get(name);
  }

  /**
   * The ids of WARC file names, those not known yet put in warc_files (committed at once, outside any
   * batch, so that each id is there before a row points to it). Workers adding the same names at once
   * agree: the unique name lets one INSERT in and the others find its row; names go in sorted order, so
   * that two such INSERTs cannot deadlock.
   */
  private async warcIdsOf(names: string[]): Promise<Map<string, number>> {
    const missing = names.filter((n) => this.warcIds.idOf(n) === undefined).sort();
    if (missing.length) {
      await this.send('INSERT INTO warc_files (name) SELECT n FROM unnest($1::text[]) AS t(n) ORDER BY n ON CONFLICT (name) DO NOTHING', [missing]);
      this.warcIds.add((await this.send('SELECT id, name FROM warc_files WHERE name = ANY($1::text[])', [missing])).rows as { id: number; name: string }[]);
    }
    return new Map(names.map((n) => [n, this.warcIds.idOf(n)!]));
  }

  /** What `warc_id = ?` compares with for a file's name: its id (undefined: no row names it), or the name itself in an old schema. */
  private async fileKey(name: string): Promise<number | string | undefined> {
    if (this.legacyWarcColumn) return name;
    if (this.warcIds.idOf(name) === undefined) this.warcIds.add((await this.send(WARC_FILES_SELECT)).rows as { id: number; name: string }[]);
    return this.warcIds.idOf(name);
  }

  /** Log rows with their file's name in `warc_file` (read again from warc_files when another process added files). */
  private async named(rows: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
    if (this.legacyWarcColumn) return rows;
    if (!this.warcIds.knows(rows)) this.warcIds.add((await this.send(WARC_FILES_SELECT)).rows as { id: number; name: string }[]);
    return this.warcIds.resolve(rows);
  }


  /** The server's log reads, shared with the other backend (src/store/log-reads.ts). */
  protected readonly reader: logReads.LogReader = { dialect: 'postgres', all: async (sql, params) => this.named((await this.query(numbered(sql), params)).rows) };

  async warcEnds(files: readonly string[]): Promise<Map<string, number>> {
    const ends = new Map(files.map((f) => [f, 0]));
    const byKey = new Map<string, string>();
    for (const f of files) {
      const key = await this.fileKey(f);
      if (key !== undefined) byKey.set(String(key), f);
    }
    if (byKey.size === 0) return ends;
    const keys = [...byKey.keys()];
    const { rows } = await this.query(
      `SELECT warc_id::text AS k, GREATEST(MAX(COALESCE(warc_offset, 0) + COALESCE(warc_length, 0)), MAX(COALESCE(rdf_offset, 0) + COALESCE(rdf_length, 0))) AS e
       FROM crawl_log WHERE warc_id = ANY($1::${this.legacyWarcColumn ? 'text' : 'int'}[]) GROUP BY warc_id`,
      [this.legacyWarcColumn ? keys : keys.map(Number)],
    );
    for (const r of rows as { k: string; e: string | number | null }[]) ends.set(byKey.get(r.k)!, Number(r.e ?? 0));
    return ends;
  }

  async getHost(host: string): Promise<HostRow | undefined> {
    const { rows } = await this.query('SELECT * FROM hosts WHERE host = $1', [host]);
    return rows[0] && fromRow(HOST_COLS, rows[0]);
  }

  async putHost(row: HostRow): Promise<void> {
    const cols = HOST_COLS.map(([, c]) => c);
    await this.query(
      `INSERT INTO hosts (${cols.join(', ')}) VALUES (${params(cols.length)})
       ON CONFLICT (host) DO UPDATE SET ${cols.slice(1).map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
      toValues(HOST_COLS, row, 'postgres'),
    );
  }

  async startCycle(row: Omit<CycleRow, 'id'>): Promise<number> {
    const cols = CYCLE_COLS.map(([, c]) => c);
    const { rows } = await this.query(`INSERT INTO cycles (${cols.join(', ')}) VALUES (${params(cols.length)}) RETURNING id`, toValues(CYCLE_COLS, row, 'postgres'));
    return Number(rows[0].id);
  }

  async finishCycle(id: number, patch: Partial<CycleRow>): Promise<void> {
    const { cols, values } = assignments(CYCLE_COLS, patch, 'postgres');
    if (cols.length === 0) return;
    await this.query(`UPDATE cycles SET ${cols.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${cols.length + 1}`, [...values, id]);
  }

  async cycles(): Promise<CycleRow[]> {
    const { rows } = await this.query('SELECT * FROM cycles ORDER BY id');
    return rows.map((r) => fromRow(CYCLE_COLS, r, { id: 'id' }) as CycleRow);
  }

  // ---- leases (WorkerStore) ----

  async leaseHosts(workerId: string, partition: Partition, leaseMs: number, maxHosts: number, now = Date.now()): Promise<HostLease[]> {
    checkPartition(partition);
    if (maxHosts <= 0) return [];
    const own = partitionSql('h.hash', '$2::bigint', '$3::bigint');
    // SKIP LOCKED: a worker passes over the hosts another worker is leasing this very moment
    // instead of queueing behind it; the UPDATE re-checks that the host is still free.
    const { rows } = await this.query(
      `WITH cand AS (
         SELECT h.host FROM host_leases h
         WHERE h.expires_at <= $1
           AND (${own} OR h.worker IS NOT NULL OR h.expires_at <= $1 - $4::bigint)
           AND EXISTS (SELECT 1 FROM documents d WHERE d.host = h.host AND (d.state = 'queued' OR (d.monitored = 1 AND d.next_fetch <= $1)))
         ORDER BY (${own}) DESC, h.expires_at, h.host
         LIMIT $5
         FOR UPDATE OF h SKIP LOCKED
       )
       UPDATE host_leases h SET worker = $6, expires_at = $1 + $4::bigint
       FROM cand WHERE h.host = cand.host AND h.expires_at <= $1
       RETURNING h.host, h.worker, h.expires_at`,
      [now, partition.count, partition.index, leaseMs, maxHosts, workerId],
    );
    return rows.map(toLease).sort((a, b) => (a.host < b.host ? -1 : 1));
  }

  async renewLease(workerId: string, hosts: string[], leaseMs: number, now = Date.now()): Promise<string[]> {
    if (hosts.length === 0) return [];
    // Still ours as long as nobody took it over, even if the renewal comes a little late.
    const { rows } = await this.query(
      `UPDATE host_leases SET expires_at = $1 WHERE worker = $2 AND host = ANY($3::text[]) RETURNING host`,
      [now + leaseMs, workerId, [...hosts].sort()],
    );
    return rows.map((r) => r.host as string).sort();
  }

  async releaseHost(workerId: string, host: string, now = Date.now()): Promise<void> {
    await this.query('UPDATE host_leases SET worker = NULL, expires_at = $1 WHERE host = $2 AND worker = $3', [now, host, workerId]);
  }

  async hostDocuments(host: string, now: number, limit: number): Promise<DocumentRow[]> {
    const { rows } = await this.query(
      `SELECT * FROM documents WHERE host = $1 AND (state = 'queued' OR (monitored = 1 AND next_fetch <= $2))
       ORDER BY depth, COALESCE(next_fetch, first_seen), url LIMIT $3`,
      [host, now, limit],
    );
    return rows.map((r) => fromRow(DOCUMENT_COLS, r));
  }

  async activeLeases(now = Date.now()): Promise<HostLease[]> {
    const { rows } = await this.query('SELECT host, worker, expires_at FROM host_leases WHERE worker IS NOT NULL AND expires_at > $1 ORDER BY host', [now]);
    return rows.map(toLease);
  }
}

function toLease(r: Record<string, unknown>): HostLease {
  return { host: r.host as string, worker: r.worker as string, expiresAt: Number(r.expires_at) };
}
