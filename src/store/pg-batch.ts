/**
 * Group commit for PostgresStore (issue 16, item 5): a crawl's per-page writes — its log row
 * (`appendLog`/`logFetch`), its document's patch and the links it found (`addDocuments`) — wait in
 * memory and go to the server together, in one statement (multi-row INSERTs and UPDATEs joined by
 * WITH: one round trip, one commit), when `pages` log rows are waiting or `waitMs` after the first
 * write, whichever comes first.
 *
 * Why: each statement in autocommit costs a round trip and a commit; one worker on PostgreSQL made
 * 0.59× what one on SQLite made (bench/WORKERS.md), because the embedded store already groups its
 * writes this way. Here a batch of N pages costs one round trip, not 2N.
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
import { DOCUMENT_COLS, LOG_WRITE_COLS, assignments, logValues, toValues } from './schema.ts';
import { hostHash } from './host-partition.ts';
import { OptionError } from '../util/errors.ts';
import type { CrawlLogEntry } from './types.ts';

export interface BatchLimits {
  /** Log rows (pages) per transaction: a batch commits when this many are waiting. */
  pages: number;
  /** Longest wait of a write before its batch commits, ms. */
  waitMs: number;
}

/**
 * A page's share of its batch's round trip is 1/pages once batches fill; 20 ms bounds how long a page
 * waits when they do not (a slow or polite crawl) and how much a killed worker fetches again. Chosen,
 * not tuned: bench/WORKERS.md has the figures at these values.
 */
export const BATCH_DEFAULTS: BatchLimits = { pages: 64, waitMs: 20 };

/** New URLs per batch before it commits whatever its page count: a page of a big sitemap holds 50,000. */
const MAX_ADDS = 20_000;
/** Bind parameters of one batch's statement: PostgreSQL takes at most 65,535. */
const MAX_PARAMS = 65_000;
/** Pages per batch: 22 parameters a log row and up to 15 a patch stay under MAX_PARAMS. */
const MAX_PAGES = 1000;
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

/** One batch: what waits to be written (new documents, log rows, patches). */
class Batch {
  /** New documents, first add of a URL wins (ON CONFLICT DO NOTHING), with the call that added it. */
  readonly adds = new Map<string, { host: string; depth: number; firstSeen: number; call: number }>();
  readonly addCalls: Waiter<number>[] = [];
  /** Each row's values as logged, its WARC file's id left to fill in at commit (`file`: the name). */
  readonly logs: { values: unknown[]; file: string | undefined; waiter: Waiter<number> }[] = [];
  /** Patches per URL, merged in call order (a later field wins, as two UPDATEs in a row would). */
  readonly patches = new Map<string, Partial<DocumentRow>>();
  readonly hosts = new Set<string>();
  get empty(): boolean {
    return this.addCalls.length === 0 && this.logs.length === 0;
  }
}

export interface BatchHooks {
  /** Runs one statement (autocommit) on the store's pool. */
  query(sql: string, values: unknown[]): Promise<pg.QueryResult>;
  /** Of these hosts, those this process has not put in host_leases yet. */
  unregistered(hosts: string[]): string[];
  /** After the commit: these hosts are registered. */
  registered(hosts: string[]): void;
  /** Errors as the store reports them (connection refused → UserError). */
  wrapError(e: unknown): Error;
  /** The ids of these WARC file names, added to warc_files (committed) where new. */
  warcIds(names: string[]): Promise<Map<string, number>>;
}

/** Where a log row's values hold its WARC file's id. */
const WARC_ID_AT = LOG_WRITE_COLS.findIndex(([, col]) => col === 'warc_id');

export class WriteBatcher {
  private current = new Batch();
  /** Batches sent and not yet committed, oldest first: reads see them too (overlay). */
  private readonly sending: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Commits run one after another, in the order their batches closed. */
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly limits: BatchLimits, private readonly hooks: BatchHooks) {
    // A batch is one statement: its log rows and patches must fit PostgreSQL's 65,535 parameters.
    if (!(Number.isInteger(limits.pages) && limits.pages >= 1 && limits.pages <= MAX_PAGES)) throw new OptionError('batch', `must be a whole number from 1 to ${MAX_PAGES} (pages per transaction), got ${limits.pages}`);
    if (!(limits.waitMs >= 0)) throw new OptionError('batchWait', `must be at least 0 ms, got ${limits.waitMs}`);
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

  /**
   * A log row and, when `patch` has fields, its document's patch: committed together, with the rest of the
   * batch. Its WARC file's id is looked up at commit, once for the batch, so that rows keep their call order.
   */
  log(entry: CrawlLogEntry, patch?: Partial<DocumentRow>): Promise<number> {
    const b = this.current;
    const p = new Promise<number>((resolve, reject) => b.logs.push({ values: logValues(entry, undefined, 'postgres'), file: entry.warcFile, waiter: { resolve, reject } }));
    if (patch && Object.keys(patch).length) b.patches.set(entry.url, Object.assign(b.patches.get(entry.url) ?? {}, patch));
    // Rows logged faster than a macrotask comes (a burst, an import) must not outgrow one statement's parameters.
    if (b.logs.length >= 1.5 * MAX_PAGES) void this.send().catch(() => undefined);
    else this.arm(b.logs.length >= this.limits.pages);
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
          result = await this.statement(b);
          break;
        } catch (e) {
          const code = (e as { code?: string }).code;
          // Deadlock or serialization failure: the server rolled the whole statement back, so it can run again.
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
   * One statement, so one round trip and one commit per batch, all or nothing: data-modifying WITH
   * clauses, each run once whether read or not. They all see the database as it was when the statement
   * began, so an UPDATE cannot reach a row the INSERT beside it adds: a URL both added and patched in
   * this batch is inserted with its patch already applied, and the UPDATE patches the rows that existed
   * before. A URL another process inserted meanwhile (the INSERT skipped it, the UPDATE did not see it)
   * is patched by one more statement. Multi-row writes go in URL order, as PostgresStore's others do,
   * so that two workers' batches take row locks in one order.
   */
  private async statement(b: Batch): Promise<{ inserted: Set<string>; ids: number[] }> {
    const values: unknown[] = [];
    const param = (v: unknown) => `$${values.push(v)}`;
    const parts: string[] = [];
    const selects: string[] = [];
    if (b.adds.size) {
      const urls = [...b.adds.keys()].sort();
      const rows = urls.map((url) => {
        const a = b.adds.get(url)!;
        return toValues(DOCUMENT_COLS, { url, host: a.host, depth: a.depth, state: 'queued', firstSeen: a.firstSeen, monitored: false, ...b.patches.get(url) }, 'postgres');
      });
      const arrays = DOCUMENT_COLS.map(([, col], j) => `${param(rows.map((r) => r[j]))}::${DOCUMENT_PG_TYPES[col]}[]`);
      parts.push(`ins AS (INSERT INTO documents (${DOCUMENT_COLS.map(([, col]) => col).join(', ')})
        SELECT * FROM unnest(${arrays.join(', ')}) ON CONFLICT (url) DO NOTHING RETURNING url)`);
      selects.push(`SELECT 'added' AS k, url, NULL::bigint AS id FROM ins`); // every SELECT names its columns: the first one names the result's
      const hosts = this.hooks.unregistered([...b.hosts]);
      if (hosts.length) {
        parts.push(`hosts AS (INSERT INTO host_leases (host, hash, worker, expires_at)
          SELECT h, x, NULL, ${param(Math.min(...urls.map((u) => b.adds.get(u)!.firstSeen)))}::bigint FROM unnest(${param(hosts)}::text[], ${param(hosts.map(hostHash))}::bigint[]) AS t(h, x)
          ON CONFLICT (host) DO NOTHING)`);
      }
    }
    if (b.logs.length) {
      const cols = LOG_WRITE_COLS.map(([, col]) => col);
      const files = [...new Set(b.logs.flatMap((l) => (l.file === undefined ? [] : [l.file])))];
      const ids = files.length ? await this.hooks.warcIds(files) : new Map<string, number>();
      for (const l of b.logs) if (l.file !== undefined) l.values[WARC_ID_AT] = ids.get(l.file);
      const tuples = b.logs.map((l) => `(${l.values.map(param).join(', ')})`);
      parts.push(`log AS (INSERT INTO crawl_log (${cols.join(', ')}) VALUES ${tuples.join(', ')} RETURNING id)`);
      selects.push(`SELECT 'logged' AS k, NULL::text AS url, id FROM log`);
    }
    // One UPDATE per shape of patch (which columns it sets): a crawl has two or three shapes.
    const shapes = new Map<string, { cols: string[]; rows: unknown[][] }>();
    for (const url of [...b.patches.keys()].sort()) {
      const { cols: set, values: v } = assignments(DOCUMENT_COLS, b.patches.get(url)!, 'postgres');
      if (set.length === 0) continue;
      let shape = shapes.get(set.join(','));
      if (!shape) shapes.set(set.join(','), (shape = { cols: set, rows: [] }));
      shape.rows.push([url, ...v]);
    }
    let n = 0;
    for (const { cols: set, rows } of shapes.values()) {
      const types = ['text', ...set.map((col) => DOCUMENT_PG_TYPES[col])];
      const tuples = rows.map((r) => `(${r.map((v, j) => `${param(v)}::${types[j]}`).join(', ')})`);
      parts.push(`up${n} AS (UPDATE documents AS d SET ${set.map((col) => `${col} = v.${col}`).join(', ')}
        FROM (VALUES ${tuples.join(', ')}) AS v(url, ${set.join(', ')}) WHERE d.url = v.url RETURNING d.url)`);
      selects.push(`SELECT 'patched' AS k, url, NULL::bigint AS id FROM up${n++}`);
    }
    if (values.length > MAX_PARAMS) throw new Error(`a write batch of ${b.logs.length} pages and ${b.adds.size} new URLs needs ${values.length} parameters: give a smaller batch`);
    const { rows } = await this.hooks.query(`WITH ${parts.join(',\n')}\n${selects.join(' UNION ALL ')}`, values);
    const inserted = new Set<string>();
    const patched = new Set<string>();
    const ids: number[] = [];
    for (const r of rows) {
      if (r.k === 'added') inserted.add(r.url as string);
      else if (r.k === 'patched') patched.add(r.url as string);
      else ids.push(Number(r.id));
    }
    // Ids come from the sequence in VALUES order (one scan); sorted, they pair with the entries in order.
    ids.sort((x, y) => x - y);
    const missed = [...b.patches.keys()].filter((u) => b.adds.has(u) && !inserted.has(u) && !patched.has(u));
    for (const url of missed) {
      const { cols: set, values: v } = assignments(DOCUMENT_COLS, b.patches.get(url)!, 'postgres');
      if (set.length) await this.hooks.query(`UPDATE documents SET ${set.map((col, i) => `${col} = $${i + 1}`).join(', ')} WHERE url = $${set.length + 1}`, [...v, url]);
    }
    return { inserted, ids };
  }
}
