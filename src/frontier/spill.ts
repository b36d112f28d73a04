import Database from 'better-sqlite3';
import path from 'node:path';
import type { FrontierEntry } from './types.ts';

/**
 * Where a bounded frontier keeps the queued URLs it has no room for in memory (Heritrix's BDB-backed work
 * queues): per origin, taken back lowest key first. A spill is scratch space, not a record: the store holds
 * every queued URL for a resume, so a spill is thrown away with its crawl.
 */
export interface FrontierSpill {
  /** Keeps `entry` (its `origin` is not stored: the caller gives it back). Buffered; `take` sees it. */
  put(origin: string, entry: FrontierEntry): void;
  /** Removes and returns the `limit` entries of `origin` with the lowest keys (ties: in the order put). */
  take(origin: string, limit: number): FrontierEntry[];
  close(): void;
}

/** Rows written in one transaction: a row alone would pay a commit each. */
const PUT_BATCH = 1_000;

/** The spill in a SQLite file: one B-tree ordered by (origin, key, arrival). */
export class SqliteFrontierSpill implements FrontierSpill {
  private readonly db: Database.Database;
  private readonly ids = new Map<string, number>();
  private pending: Array<[number, number, number, string]> = [];
  private arrival = 0;
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly writeBatch: (rows: Array<[number, number, number, string]>) => void;

  constructor(dir: string) {
    this.db = new Database(path.join(dir, 'frontier.sqlite'));
    // Scratch data, rebuilt from the store by a resume: a crash may lose it, so no journal and no fsync.
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.exec('CREATE TABLE IF NOT EXISTS q (o INTEGER NOT NULL, k REAL NOT NULL, n INTEGER NOT NULL, e TEXT NOT NULL, PRIMARY KEY (o, k, n)) WITHOUT ROWID');
    this.insert = this.db.prepare('INSERT INTO q (o, k, n, e) VALUES (?, ?, ?, ?)');
    this.select = this.db.prepare('SELECT k, n, e FROM q WHERE o = ? ORDER BY k, n LIMIT ?');
    this.remove = this.db.prepare('DELETE FROM q WHERE o = ? AND (k, n) <= (?, ?)');
    this.writeBatch = this.db.transaction((rows) => {
      for (const r of rows) this.insert.run(r);
    });
  }

  put(origin: string, entry: FrontierEntry): void {
    let id = this.ids.get(origin);
    if (id === undefined) this.ids.set(origin, (id = this.ids.size));
    const { origin: _, ...rest } = entry;
    this.pending.push([id, entry.key, this.arrival++, JSON.stringify(rest)]);
    if (this.pending.length >= PUT_BATCH) this.flush();
  }

  take(origin: string, limit: number): FrontierEntry[] {
    const id = this.ids.get(origin);
    if (id === undefined || limit <= 0) return [];
    this.flush();
    const rows = this.select.all(id, Number.isFinite(limit) ? limit : -1) as Array<{ k: number; n: number; e: string }>;
    if (rows.length === 0) return [];
    const last = rows.at(-1)!;
    this.remove.run(id, last.k, last.n);
    return rows.map((r) => Object.assign(JSON.parse(r.e) as FrontierEntry, { origin }));
  }

  close(): void {
    this.pending = [];
    this.db.close();
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    // Cleared only once written: a failed write (a full disk) leaves the rows here, and the error to the crawl.
    this.writeBatch(this.pending);
    this.pending = [];
  }
}
