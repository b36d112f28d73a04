import type { LogGapStore } from './backend.ts';
import type { SqlRunner } from './dialect.ts';

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

/**
 * The holes of one store, in its table `<prefix>log_gaps` (both databases: `db` runs `?` statements). A SQLite
 * store written before holes were tracked, opened read-only, has no such table: no holes.
 */
export class LogGaps implements LogGapStore {
  private readonly table: string;

  constructor(private readonly db: SqlRunner, prefix = '') {
    this.table = `${prefix}log_gaps`;
  }

  /** Every open hole, lowest first. */
  list(): LogGap[] {
    return this.unlessMissing(() => this.db.all<LogGap>(`SELECT from_id AS "from", to_id AS "to", seen_at AS "seenAt" FROM ${this.table} ORDER BY from_id`), []);
  }

  add(from: number, to: number, seenAt: number): void {
    if (to < from) return;
    this.db.run([{ sql: `INSERT INTO ${this.table} (from_id, to_id, seen_at) VALUES (?, ?, ?)`, params: [from, to, seenAt] }]);
  }

  /**
   * Takes `id` out of the hole that holds it (splitting the hole); false when no hole holds it, i.e. the
   * row was indexed already (by this or another process): the caller must not apply it again.
   */
  fill(id: number): boolean {
    const gap = this.db.get<LogGap>(`SELECT from_id AS "from", to_id AS "to", seen_at AS "seenAt" FROM ${this.table} WHERE from_id <= ? ORDER BY from_id DESC LIMIT 1`, [id]);
    if (!gap || gap.to < id) return false;
    this.db.run([{ sql: `DELETE FROM ${this.table} WHERE from_id = ?`, params: [gap.from] }]);
    this.add(gap.from, id - 1, gap.seenAt);
    this.add(id + 1, gap.to, gap.seenAt);
    return true;
  }

  /** Forgets holes first seen before `before`; returns how many. */
  expire(before: number): number {
    const [counted] = this.db.run<{ n: number }>([
      { sql: `SELECT count(*) AS n FROM ${this.table} WHERE seen_at < ?`, params: [before] },
      { sql: `DELETE FROM ${this.table} WHERE seen_at < ?`, params: [before] },
    ]);
    return Number(counted![0]!.n);
  }

  clear(): void {
    this.unlessMissing(() => this.db.run([{ sql: `DELETE FROM ${this.table}` }]), undefined);
  }

  private unlessMissing<T>(fn: () => T, otherwise: T): T {
    try {
      return fn();
    } catch (e) {
      if (/no such table/.test((e as Error).message)) return otherwise;
      throw e;
    }
  }
}
