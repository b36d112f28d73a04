import path from 'node:path';
import type Database from 'better-sqlite3';
import type { CrawlLogEntry, CycleRow, DocumentRow, DocumentState, DueSelection, HostRow, MetadataStore } from './types.ts';
import { BULK_READ, CONVERTED, CYCLE_COLS, DOCUMENT_COLS, HOST_COLS, LOG_WRITE_COLS, assignments, ddl, documentsKeyMigration, dueWhere, fromRow, logEntry, logValues, QUEUED, reasonColumnMigration, toValues, urlArgs, urlIs, versionsArgs, versionsWhere, warcIdMigration } from './schema.ts';
import { WARC_FILES_SELECT, WarcIdCache, legacySql } from './warc-ids.ts';
import * as logReads from './log-reads.ts';
import { ReadOnlyStoreError, openSqliteReadOnly } from './read-only.ts';
import { STORE_BUSY_TIMEOUT_MS, openSqliteWal } from '../util/sqlite-wal.ts';
import { DamagedStoreError } from './damaged.ts';

/** 2: the crawl log's `reason` column; 3: its WARC file as an id in warc_files. */
export const SCHEMA_VERSION = 3;
/** Pages the WAL grows to before a commit copies it back into the file (SQLite's default is 1,000). */
const WAL_PAGES = 10_000;
/** Built once: the crawler appends a log row per page, and the statement cache is keyed by this text. */
const INSERT_LOG = `INSERT INTO crawl_log (${LOG_WRITE_COLS.map(([, c]) => c).join(', ')}) VALUES (${LOG_WRITE_COLS.map(() => '?').join(', ')})`;

/**
 * The embedded metadata store. Writes are grouped into one transaction that commits every
 * `batchMs` (or on flush): a crawl writes several rows per page, and one fsync per page would cap
 * the crawler far below what the network allows. A crash loses at most the open batch; the WARC
 * writer cuts any bytes the committed log does not point to, so the two never disagree.
 */
export class SqliteStore extends logReads.LogReadingStore implements MetadataStore {
  readonly db: Database.Database;
  private timer: NodeJS.Timeout | undefined;
  private stmts = new Map<string, Database.Statement>();
  private readonly batchMs: number;
  /** Opened with `readonly`: no pragma or DDL that writes, and every write method throws ReadOnlyStoreError. */
  readonly readonly: boolean;
  private removeCopy: () => void = () => undefined;
  private readonly warcIds = new WarcIdCache();
  /** Read-only on an archive from before warc_files: rows name their file in the old text column. */
  private legacyWarcColumn = false;

  constructor(readonly file: string, opts: { batchMs?: number; readonly?: boolean } = {}) {
    super();
    this.batchMs = opts.batchMs ?? 100;
    this.readonly = opts.readonly ?? false;
    if (this.readonly) {
      const opened = openSqliteReadOnly(file);
      this.db = opened.db;
      this.removeCopy = opened.remove;
    } else {
      this.db = openSqliteWal(file, STORE_BUSY_TIMEOUT_MS);
      // The crawl's commits copied the WAL back every 1,000 pages (SQLite's default), the same hot pages (the
      // log's last leaf, the documents' and the URL index's) again each time: 40 MB between copies made a
      // 20,000-page crawl 6 % faster (bench/RESULTS.md, "The metadata's WAL copied back every 10,000 pages").
      this.db.pragma(`wal_autocheckpoint = ${WAL_PAGES}`);
    }
    this.db.pragma(`busy_timeout = ${STORE_BUSY_TIMEOUT_MS}`);
  }

  async init(): Promise<void> {
    const version = this.db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`${this.file} was written by a newer datamonitor (schema ${version}); upgrade datamonitor to read it`);
    }
    if (this.readonly) {
      // A file SQLite reads as empty (cut to 0 bytes, or never written): nothing to read, and the WARC files may rebuild it.
      if (version === 0) throw new DamagedStoreError(path.dirname(this.file), [path.basename(this.file)], 'it holds no tables');
      this.legacyWarcColumn = this.hasLogColumn('warc_file');
      return;
    }
    this.db.transaction(() => {
      // An archive from before the column: the DDL's index on it needs the column first.
      if (version === 1) for (const sql of reasonColumnMigration('sqlite')) this.db.exec(sql);
      if (version >= 1 && version < 3 && this.hasLogColumn('warc_file')) for (const sql of warcIdMigration('sqlite')) this.db.exec(sql);
      if (this.documentsHaveRowids()) for (const sql of documentsKeyMigration()) this.db.exec(sql);
      for (const sql of ddl('sqlite')) this.db.exec(sql);
      for (const sql of logReads.sqliteUrlIndexDdl()) this.db.exec(sql);
      this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate(); // IMMEDIATE: a second process starting at once waits (busy_timeout) instead of failing "database is locked"
  }

  /** An archive written before the documents were keyed by URL (schema.ts documentsDdl); false also with no table yet. */
  private documentsHaveRowids(): boolean {
    const sql = this.db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'documents'").get()?.sql;
    return sql !== undefined && !/WITHOUT\s+ROWID/i.test(sql);
  }

  private hasLogColumn(name: string): boolean {
    return this.db.prepare(`SELECT 1 FROM pragma_table_info('crawl_log') WHERE name = ?`).get(name) !== undefined;
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(this.legacyWarcColumn ? legacySql(sql) : sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Throws when the store was opened read-only; `what` names the refused write for the message. */
  protected assertWritable(what: string): void {
    if (this.readonly) throw new ReadOnlyStoreError(this.file, what);
  }

  /** Opens the batch transaction if none is open; it commits on the timer. */
  private write(what: string): void {
    this.assertWritable(what);
    const failed = this.failedCommit;
    if (failed) {
      // Told once, to the next writer: a crawl stops on it; a later cycle (space freed) goes on.
      this.failedCommit = undefined;
      throw failed;
    }
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE'); // IMMEDIATE: take the write lock (waiting busy_timeout) before the snapshot; a deferred BEGIN fails with SQLITE_BUSY when another process wrote meanwhile
    this.timer = setTimeout(() => {
      // A commit on the timer has no caller to throw to (it used to end the process on a full disk).
      try {
        this.commit();
      } catch (e) {
        this.failedCommit = e as Error;
      }
    }, this.batchMs);
    this.timer.unref?.();
  }

  /** A batch the timer could not commit (disk full, I/O error): it was rolled back. */
  private failedCommit: Error | undefined;

  private commit(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.db.inTransaction) return;
    try {
      this.db.exec('COMMIT');
    } catch (e) {
      // SQLite leaves a failed COMMIT open and asks for a ROLLBACK; the WARC writer's recovery cuts the
      // records the lost batch pointed to, so the archive and the log still agree.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      this.warcIds.clear(); // ids taken in the lost batch are free again, for other files
      throw e;
    }
  }

  async flush(): Promise<void> {
    this.commit();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    this.commit();
    // SQLite removes the WAL when the last connection closes, but a crawl's last one to close is a reader
    // (the live index's), which may not: the file stayed at its high-water mark, 11 MB after a 100,000-document
    // crawl, 4.9 MB after 2,000 (more than meta.sqlite itself). Folded in and emptied here instead, waiting a
    // second at most for a reader's statement to end (else it stays, as it did).
    if (!this.readonly) {
      this.db.pragma('busy_timeout = 1000');
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // Another process writing holds the file: its close folds the WAL in.
      }
    }
    this.db.close();
    this.removeCopy();
  }

  async addDocuments(docs: Pick<DocumentRow, 'url' | 'host' | 'depth'>[], opts: { monitored?: boolean; strategy?: string; nextFetch?: number } = {}): Promise<number> {
    if (docs.length === 0) return 0;
    this.write('addDocuments');
    const now = Date.now();
    const insert = this.stmt(
      `INSERT INTO documents (url, host, depth, state, first_seen, monitored, strategy, next_fetch)
       VALUES (?, ?, ?, 'queued', ?, ?, ?, ?) ON CONFLICT (url) DO NOTHING`,
    );
    const monitor = opts.monitored
      ? this.stmt(`UPDATE documents SET monitored = 1, strategy = COALESCE(?, strategy), next_fetch = COALESCE(next_fetch, ?) WHERE url = ? AND monitored = 0`)
      : undefined;
    let added = 0;
    for (const d of docs) {
      added += insert.run(d.url, d.host, d.depth, now, opts.monitored ? 1 : 0, opts.strategy ?? null, opts.nextFetch ?? null).changes;
      monitor?.run(opts.strategy ?? null, opts.nextFetch ?? now, d.url);
    }
    return added;
  }

  async getDocument(url: string): Promise<DocumentRow | undefined> {
    const row = this.stmt('SELECT * FROM documents WHERE url = ?').get(url) as Record<string, unknown> | undefined;
    return row && fromRow(DOCUMENT_COLS, row);
  }

  async getDocuments(urls: readonly string[]): Promise<DocumentRow[]> {
    urls = [...new Set(urls)]; // a URL asked twice in different batches would come back twice
    const select = this.stmt('SELECT * FROM documents WHERE url IN (SELECT value FROM json_each(?))');
    const out: DocumentRow[] = [];
    for (let i = 0; i < urls.length; i += BULK_READ) {
      for (const r of select.all(JSON.stringify(urls.slice(i, i + BULK_READ)))) out.push(fromRow(DOCUMENT_COLS, r as Record<string, unknown>));
    }
    return out;
  }

  async updateDocument(url: string, patch: Partial<DocumentRow>): Promise<void> {
    const { cols, values } = assignments(DOCUMENT_COLS, patch, 'sqlite');
    if (cols.length === 0) return;
    this.write('updateDocument');
    this.stmt(`UPDATE documents SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE url = ?`).run(...values, url);
  }

  async makeDue(select: DueSelection, now: number): Promise<number> {
    this.write('makeDue');
    const [where, arg] = dueWhere(select);
    return this.stmt(`UPDATE documents SET next_fetch = ? WHERE monitored = 1 AND ${where}`).run(now, ...arg).changes;
  }

  async queuedDocuments(limit = 1e9): Promise<DocumentRow[]> {
    const rows = this.stmt(`SELECT * FROM documents WHERE ${QUEUED} ORDER BY depth, first_seen LIMIT ?`).all(limit);
    return rows.map((r) => fromRow(DOCUMENT_COLS, r as Record<string, unknown>));
  }

  async dueDocuments(now: number, limit: number): Promise<DocumentRow[]> {
    const rows = this.stmt(`SELECT * FROM documents WHERE monitored = 1 AND next_fetch <= ? ORDER BY next_fetch LIMIT ?`).all(now, limit);
    return rows.map((r) => fromRow(DOCUMENT_COLS, r as Record<string, unknown>));
  }

  async countDocuments(state?: DocumentState): Promise<number> {
    const row = (state
      ? this.stmt(state === 'queued' ? `SELECT COUNT(*) AS n FROM documents WHERE ${QUEUED}` : 'SELECT COUNT(*) AS n FROM documents WHERE state = ?').get(...(state === 'queued' ? [] : [state]))
      : this.stmt('SELECT COUNT(*) AS n FROM documents').get()) as { n: number };
    return row.n;
  }

  async appendLog(entry: CrawlLogEntry): Promise<number> {
    this.write('appendLog');
    const info = this.stmt(INSERT_LOG).run(...logValues(entry, entry.warcFile === undefined ? undefined : this.warcId(entry.warcFile), 'sqlite'));
    return Number(info.lastInsertRowid);
  }

  async logFetch(entry: CrawlLogEntry, patch: Partial<DocumentRow>): Promise<number> {
    // Both land in the same batched transaction (the commit timer), so one call costs what two do.
    const id = await this.appendLog(entry);
    await this.updateDocument(entry.url, patch);
    return id;
  }

  async versions(url: string): Promise<CrawlLogEntry[]> {
    const rows = this.named(this.stmt(`SELECT * FROM crawl_log WHERE ${versionsWhere('sqlite')} ORDER BY time, id`).all(...versionsArgs('sqlite', url)));
    return rows.map(logEntry);
  }

  async log(opts: { sinceId?: number; limit?: number; url?: string; warcFile?: string; converted?: boolean } = {}): Promise<CrawlLogEntry[]> {
    const where = ['id > ?'];
    const params: unknown[] = [opts.sinceId ?? 0];
    if (opts.url) (where.push(urlIs('sqlite', 'url')), params.push(...urlArgs('sqlite', [opts.url])));
    if (opts.warcFile !== undefined) {
      const file = this.fileKey(opts.warcFile);
      if (file === undefined) return [];
      where.push('warc_id = ?');
      params.push(file);
    }
    if (opts.converted) where.push(CONVERTED);
    const rows = this.named(this.stmt(`SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY id LIMIT ?`).all(...params, opts.limit ?? 1e9));
    return rows.map(logEntry);
  }

  /** The id of a WARC file's name, added to warc_files in the open write transaction if new. */
  private warcId(name: string): number {
    const known = this.warcIds.idOf(name);
    if (known !== undefined) return known;
    // The batch holds the write lock (BEGIN IMMEDIATE), so no other process adds a name meanwhile.
    this.stmt('INSERT INTO warc_files (name) VALUES (?) ON CONFLICT (name) DO NOTHING').run(name);
    this.warcIds.add([this.stmt('SELECT id, name FROM warc_files WHERE name = ?').get(name) as { id: number; name: string }]);
    return this.warcIds.idOf(name)!;
  }

  /** What `warc_id = ?` compares with for a file's name: its id (undefined: no row names it), or the name itself in an old archive. */
  private fileKey(name: string): number | string | undefined {
    if (this.legacyWarcColumn) return name;
    if (this.warcIds.idOf(name) === undefined) this.warcIds.add(this.stmt(WARC_FILES_SELECT).all() as { id: number; name: string }[]);
    return this.warcIds.idOf(name);
  }

  /** Log rows with their file's name in `warc_file` (read again from warc_files when another process added files). */
  private named(rows: unknown[]): Record<string, unknown>[] {
    const out = rows as Record<string, unknown>[];
    if (this.legacyWarcColumn) return out;
    if (!this.warcIds.knows(out)) this.warcIds.add(this.stmt(WARC_FILES_SELECT).all() as { id: number; name: string }[]);
    return this.warcIds.resolve(out);
  }


  /** The server's log reads, shared with the other backend (src/store/log-reads.ts). */
  protected readonly reader: logReads.LogReader = { dialect: 'sqlite', all: async (sql, params) => this.named(this.stmt(sql).all(...params)) };

  async warcEnds(files: readonly string[]): Promise<Map<string, number>> {
    const ends = new Map(files.map((f) => [f, 0]));
    const byKey = new Map<number | string, string>();
    for (const f of files) {
      const key = this.fileKey(f);
      if (key !== undefined) byKey.set(key, f);
    }
    if (byKey.size === 0) return ends;
    const rows = this.stmt(
      `SELECT warc_id AS k, MAX(MAX(COALESCE(warc_offset, 0) + COALESCE(warc_length, 0)), MAX(COALESCE(rdf_offset, 0) + COALESCE(rdf_length, 0))) AS e
       FROM crawl_log WHERE warc_id IN (SELECT value FROM json_each(?)) GROUP BY warc_id`,
    ).all(JSON.stringify([...byKey.keys()])) as { k: number | string; e: number | null }[];
    for (const r of rows) ends.set(byKey.get(r.k)!, r.e ?? 0);
    return ends;
  }

  async getHost(host: string): Promise<HostRow | undefined> {
    const row = this.stmt('SELECT * FROM hosts WHERE host = ?').get(host) as Record<string, unknown> | undefined;
    return row && fromRow(HOST_COLS, row);
  }

  async putHost(row: HostRow): Promise<void> {
    this.write('putHost');
    const cols = HOST_COLS.map(([, c]) => c);
    this.stmt(
      `INSERT INTO hosts (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
       ON CONFLICT (host) DO UPDATE SET ${cols.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ).run(...toValues(HOST_COLS, row, 'sqlite'));
  }

  async startCycle(row: Omit<CycleRow, 'id'>): Promise<number> {
    this.assertWritable('startCycle');
    const cols = CYCLE_COLS.map(([, c]) => c);
    this.commit();
    const info = this.stmt(`INSERT INTO cycles (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(...toValues(CYCLE_COLS, row, 'sqlite'));
    return Number(info.lastInsertRowid);
  }

  async finishCycle(id: number, patch: Partial<CycleRow>): Promise<void> {
    this.assertWritable('finishCycle');
    const { cols, values } = assignments(CYCLE_COLS, patch, 'sqlite');
    this.commit();
    if (cols.length) this.stmt(`UPDATE cycles SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...values, id);
  }

  async cycles(): Promise<CycleRow[]> {
    const rows = this.stmt('SELECT * FROM cycles ORDER BY id').all();
    return rows.map((r) => fromRow(CYCLE_COLS, r as Record<string, unknown>, { id: 'id' }) as CycleRow);
  }
}
