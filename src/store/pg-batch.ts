/**
 * Group commit for PostgresStore (issue 16, item 5): a crawl's per-page writes — its log row
 * (`appendLog`/`logFetch`), its document's patch and the links it found (`addDocuments`) — wait in
 * memory and go to the server together, in one transaction of a few multi-row statements, when
 * `pages` log rows are waiting or `waitMs` after the first write, whichever comes first.
 *
 * Why: each statement in autocommit costs a round trip and a commit; one worker on PostgreSQL made
 * 0.59× what one on SQLite made (bench/WORKERS.md), because the embedded store already groups its
 * writes this way. Here a batch of N pages costs about five round trips, not 2N.
 *
 * What a caller sees: a write's promise resolves when its batch has committed (with its log id), and
 * rejects with the batch's error when the batch rolled back; nothing of a failed batch stays in the
 * store. So a crawl awaits durability exactly as before, only later by at most `waitMs`, and a
 * worker killed before its batch commits leaves those pages queued in the store (fetched again by
 * whoever leases their host), never half-written; their WARC records are the unlogged bytes that
 * recovery cuts (docs/workers.md, "When a worker dies").
 */
import type pg from 'pg';
import type { DocumentRow } from './types.ts';
import { DOCUMENT_COLS, LOG_COLS, assignments, toValues } from './schema.ts';
import type { CrawlLogEntry } from './types.ts';

export interface BatchLimits {
  /** Log rows (pages) per transaction: a batch commits when this many are waiting. */
  pages: number;
  /** Longest wait of a write before its batch commits, ms. */
  waitMs: number;
}

/** Measured on the workers bench (bench/WORKERS.md): past ~50 pages the round trips no longer show. */
export const BATCH_DEFAULTS: BatchLimits = { pages: 64, waitMs: 20 };

/** New URLs per batch before it commits whatever its page count: a page of a big sitemap holds 50,000. */
const MAX_ADDS = 20_000;
/** Bind parameters per statement stay well under PostgreSQL's 65,535. */
const MAX_PARAMS = 30_000;
/** A deadlock between two workers' batches (one aborted by the server) is retried this often. */
const RETRIES = 3;

/** Types of the documents columns, for the VALUES list of the batched UPDATE (it has no target column to infer them from). */
const DOCUMENT_PG_TYPES: Record<string, string> = {
  url: 'text', host: 'text', depth: 'integer', state: 'text', first_seen: 'bigint', last_fetched: 'bigint', next_fetch: 'bigint',
  strategy: 'text', strategy_state: 'text', etag: 'text', last_modified: 'text', checksum: 'text', graph_hash: 'text', monitored: 'integer',
};
for (const [, col] of DOCUMENT_COLS) if (!DOCUMENT_PG_TYPES[col]) throw new Error(`pg-batch: no type for documents.${col}`);

interface Waiter<T> {
  resolve(v: T): void;
  reject(e: Error): void;
}

/** One batch: what waits to be written, in the order the flush writes it (new documents, log rows, patches). */
class Batch {
  /** New documents, first add of a URL wins (ON CONFLICT DO NOTHING), with the call that added it. */
  readonly adds = new Map<string, { host: string; depth: number; firstSeen: number; call: number }>();
  readonly addCalls: Waiter<number>[] = [];
  readonly logs: { values: unknown[]; waiter: Waiter<number> }[] = [];
  /** Patches per URL, merged in call order (a later field wins, as two UPDATEs in a row would). */
  readonly patches = new Map<string, Partial<DocumentRow>>();
  readonly hosts = new Set<string>();
  get empty(): boolean {
    return this.addCalls.length === 0 && this.logs.length === 0;
  }
}

/** Runs SQL on a connection in a transaction; PostgresStore gives it a pool client. */
export interface BatchConnection {
  query(sql: string, values?: unknown[]): Promise<pg.QueryResult>;
}

export interface BatchHooks {
  /** A client of the pool for one transaction, and its release. */
  connect(): Promise<pg.PoolClient>;
  /** Rows for host_leases of hosts not registered yet (PostgresStore keeps the set), inside the transaction. */
  registerHosts(c: BatchConnection, hosts: string[], now: number): Promise<void>;
  /** After the commit: these hosts are registered. */
  registered(hosts: string[]): void;
  /** Errors as the store reports them (connection refused → UserError). */
  wrapError(e: unknown): Error;
}

export class WriteBatcher {
  private current = new Batch();
  /** Batches sent and not yet committed, oldest first: reads see them too (overlay). */
  private readonly sending: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Commits run one after another, in the order their batches closed. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly limits: BatchLimits, private readonly hooks: BatchHooks) {
    if (!(limits.pages >= 1)) throw new Error(`batch pages must be at least 1, got ${limits.pages}`);
    if (!(limits.waitMs >= 0)) throw new Error(`batch wait must be at least 0 ms, got ${limits.waitMs}`);
  }

  /** Writes waiting or being committed. */
  get busy(): boolean {
    return !this.current.empty || this.sending.length > 0;
  }

  addDocuments(docs: Pick<DocumentRow, 'url' | 'host' | 'depth'>[], now: number): Promise<number> {
    const b = this.current;
    const call = b.addCalls.length;
    const p = new Promise<number>((resolve, reject) => b.addCalls.push({ resolve, reject }));
    for (const d of docs) {
      if (!b.adds.has(d.url)) b.adds.set(d.url, { host: d.host, depth: d.depth, firstSeen: now, call });
      b.hosts.add(d.host);
    }
    this.arm(b.adds.size >= MAX_ADDS);
    return p;
  }

  /** A log row and, when `patch` has fields, its document's patch: committed together, with the rest of the batch. */
  log(entry: CrawlLogEntry, patch?: Partial<DocumentRow>): Promise<number> {
    const b = this.current;
    const p = new Promise<number>((resolve, reject) => b.logs.push({ values: toValues(LOG_COLS, entry), waiter: { resolve, reject } }));
    if (patch && Object.keys(patch).length) b.patches.set(entry.url, Object.assign(b.patches.get(entry.url) ?? {}, patch));
    this.arm(b.logs.length >= this.limits.pages);
    return p;
  }

  /**
   * The row as it will be once the waiting batches commit: `row` (read from the server, which may or
   * may not hold a batch in flight already) with their new documents and patches laid over it.
   */
  overlay(url: string, row: DocumentRow | undefined): DocumentRow | undefined {
    for (const b of [...this.sending, this.current]) {
      const add = b.adds.get(url);
      if (!row && add) row = { url, host: add.host, depth: add.depth, state: 'queued', firstSeen: add.firstSeen, monitored: false };
      const patch = b.patches.get(url);
      if (row && patch) {
        row = { ...row, ...patch };
        for (const k of Object.keys(patch) as (keyof DocumentRow)[]) if (row[k] === undefined || row[k] === null) delete row[k];
      }
    }
    return row;
  }

  /** URLs that the waiting batches add or patch (reads of many URLs overlay these). */
  pendingUrls(): Set<string> {
    const out = new Set<string>();
    for (const b of [...this.sending, this.current]) {
      for (const u of b.adds.keys()) out.add(u);
      for (const u of b.patches.keys()) out.add(u);
    }
    return out;
  }

  /** Commits what waits now (and what is in flight); rejects with the error of a batch that failed. */
  flush(): Promise<void> {
    if (this.current.empty) return this.chain;
    return this.send();
  }

  /**
   * Batches are sent from a macrotask only (a timer, setImmediate), never in the middle of a chain
   * of microtasks: a crawl job that logs its page and then, without waiting on I/O, adds the links it
   * found (src/crawler/stages: capture → links → store) puts both into one batch, so a kill never
   * leaves a page fetched whose links were lost. Each writer gets its own rejection, hence the catch.
   */
  private arm(full: boolean): void {
    if (full) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      this.immediate ??= setImmediate(() => {
        this.immediate = undefined;
        void this.send().catch(() => undefined);
      });
      return;
    }
    // Not unref'd: a writer awaits this batch, and an unresolved promise would not keep the process up.
    if (!this.immediate) this.timer ??= setTimeout(() => void this.send().catch(() => undefined), this.limits.waitMs);
  }

  private immediate: NodeJS.Immediate | undefined;

  /** flush() for a statement about to run: from the next macrotask, for the reason arm() gives. */
  async flushSoon(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    await this.flush();
  }

  private send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    const b = this.current;
    if (b.empty) return this.chain;
    this.current = new Batch();
    this.sending.push(b);
    const done = this.chain.then(() => this.commit(b));
    this.chain = done.catch(() => undefined);
    return done;
  }

  private async commit(b: Batch): Promise<void> {
    try {
      let result: { inserted: Set<string>; ids: number[] } | undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          result = await this.transaction(b);
          break;
        } catch (e) {
          const code = (e as { code?: string }).code;
          // Deadlock or serialization failure: the server rolled the whole batch back, so it can run again.
          if ((code === '40P01' || code === '40001') && attempt < RETRIES) continue;
          throw e;
        }
      }
      this.hooks.registered([...b.hosts]);
      const added = new Array<number>(b.addCalls.length).fill(0);
      for (const u of result.inserted) added[b.adds.get(u)!.call]++;
      b.addCalls.forEach((w, i) => w.resolve(added[i]));
      b.logs.forEach((l, i) => l.waiter.resolve(result.ids[i]));
    } catch (e) {
      const err = this.hooks.wrapError(e);
      for (const w of b.addCalls) w.reject(err);
      for (const l of b.logs) l.waiter.reject(err);
      throw err;
    } finally {
      this.sending.splice(this.sending.indexOf(b), 1);
    }
  }

  /**
   * One transaction: new documents first (so that a page's patch finds a row its own batch added),
   * then the log rows, then the patches. Multi-row writes go in URL order, as PostgresStore's others
   * do, so that two workers' batches take row locks in one order.
   */
  private async transaction(b: Batch): Promise<{ inserted: Set<string>; ids: number[] }> {
    const c = await this.hooks.connect();
    let broken = false;
    try {
      await c.query('BEGIN');
      const inserted = new Set<string>();
      if (b.adds.size) {
        const urls = [...b.adds.keys()].sort();
        const rows = urls.map((u) => b.adds.get(u)!);
        const { rows: got } = await c.query(
          `INSERT INTO documents (url, host, depth, state, first_seen, monitored)
           SELECT u, h, d, 'queued', f, 0 FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) AS t(u, h, d, f)
           ON CONFLICT (url) DO NOTHING RETURNING url`,
          [urls, rows.map((r) => r.host), rows.map((r) => r.depth), rows.map((r) => r.firstSeen)],
        );
        for (const r of got) inserted.add(r.url as string);
        await this.hooks.registerHosts(c, [...b.hosts], Math.min(...rows.map((r) => r.firstSeen)));
      }
      const ids: number[] = [];
      const cols = LOG_COLS.map(([, col]) => col);
      const perStatement = Math.max(1, Math.floor(MAX_PARAMS / cols.length));
      for (let i = 0; i < b.logs.length; i += perStatement) {
        const chunk = b.logs.slice(i, i + perStatement);
        const values: unknown[] = [];
        const tuples = chunk.map((l) => `(${l.values.map((v) => `$${values.push(v)}`).join(', ')})`);
        // Ids come from the sequence in VALUES order (one scan); sorted, they pair with the entries in order.
        const { rows } = await c.query(`INSERT INTO crawl_log (${cols.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id`, values);
        ids.push(...rows.map((r) => Number(r.id)).sort((x, y) => x - y));
      }
      // One UPDATE per shape of patch (which columns it sets): a crawl has two or three shapes.
      const shapes = new Map<string, { cols: string[]; rows: unknown[][] }>();
      for (const url of [...b.patches.keys()].sort()) {
        const { cols: set, values } = assignments(DOCUMENT_COLS, b.patches.get(url)!);
        if (set.length === 0) continue;
        const key = set.join(',');
        let s = shapes.get(key);
        if (!s) shapes.set(key, (s = { cols: set, rows: [] }));
        s.rows.push([url, ...values]);
      }
      for (const { cols: set, rows } of shapes.values()) {
        const perUpdate = Math.max(1, Math.floor(MAX_PARAMS / (set.length + 1)));
        for (let i = 0; i < rows.length; i += perUpdate) {
          const values: unknown[] = [];
          const types = ['text', ...set.map((col) => DOCUMENT_PG_TYPES[col])];
          const tuples = rows.slice(i, i + perUpdate).map((r) => `(${r.map((v, j) => `$${values.push(v)}::${types[j]}`).join(', ')})`);
          await c.query(
            `UPDATE documents AS d SET ${set.map((col) => `${col} = v.${col}`).join(', ')}
             FROM (VALUES ${tuples.join(', ')}) AS v(url, ${set.join(', ')}) WHERE d.url = v.url`,
            values,
          );
        }
      }
      await c.query('COMMIT');
      return { inserted, ids };
    } catch (e) {
      // A connection that cannot even roll back is dropped from the pool, not handed to the next query.
      await c.query('ROLLBACK').catch(() => (broken = true));
      throw e;
    } finally {
      c.release(broken || undefined);
    }
  }
}
