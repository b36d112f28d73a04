import type Database from 'better-sqlite3';

/**
 * Crawl-log ids the index has gone past without seeing: ranges between two indexed ids. With PostgreSQL
 * and several workers, ids come from a sequence when a row is inserted but become visible when its
 * transaction commits, so a lower id can appear after a higher one was indexed. Remembering the holes
 * (instead of every indexed id, or a look-back window) keeps the re-check to one index seek per hole,
 * whatever the crawl's throughput; ids are otherwise dense (a sequence, SQLite's max+1 rowid), so holes are
 * few. A hole that stays empty for `ttlMs` after it was first seen was an aborted insert (or a sequence
 * jump after a crash) and is forgotten.
 */
export interface LogGap {
  from: number;
  to: number;
  /** Epoch ms when a catch-up first went past it. */
  seenAt: number;
}

export const LOG_GAPS_DDL = `CREATE TABLE IF NOT EXISTS log_gaps (from_id INTEGER PRIMARY KEY, to_id INTEGER NOT NULL, seen_at INTEGER NOT NULL);`;

export class LogGaps {
  constructor(private readonly db: Database.Database) {}

  /** Every open hole, lowest first. A store written before holes were tracked has none. */
  list(): LogGap[] {
    if (!this.exists()) return [];
    return this.db.prepare<[], LogGap>('SELECT from_id AS "from", to_id AS "to", seen_at AS seenAt FROM log_gaps ORDER BY from_id').all();
  }

  add(from: number, to: number, seenAt: number): void {
    if (to < from) return;
    this.db.prepare('INSERT INTO log_gaps (from_id, to_id, seen_at) VALUES (?, ?, ?)').run(from, to, seenAt);
  }

  /**
   * Takes `id` out of the hole that holds it (splitting the hole); false when no hole holds it, i.e. the
   * row was indexed already (by this or another process): the caller must not apply it again.
   */
  fill(id: number): boolean {
    const gap = this.db.prepare<[number], LogGap>('SELECT from_id AS "from", to_id AS "to", seen_at AS seenAt FROM log_gaps WHERE from_id <= ? ORDER BY from_id DESC LIMIT 1').get(id);
    if (!gap || gap.to < id) return false;
    this.db.prepare('DELETE FROM log_gaps WHERE from_id = ?').run(gap.from);
    this.add(gap.from, id - 1, gap.seenAt);
    this.add(id + 1, gap.to, gap.seenAt);
    return true;
  }

  /** Forgets holes first seen before `before`; returns how many. */
  expire(before: number): number {
    return this.db.prepare('DELETE FROM log_gaps WHERE seen_at < ?').run(before).changes;
  }

  clear(): void {
    if (this.exists()) this.db.exec('DELETE FROM log_gaps');
  }

  private exists(): boolean {
    return this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'log_gaps'`).get() !== undefined;
  }
}
