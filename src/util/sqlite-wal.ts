import Database from 'better-sqlite3';

/** How long a store's statement waits for another connection's lock (SQLite's busy timeout) before it fails. */
export const STORE_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens a SQLite file for writing in WAL mode, as every writable store here is kept.
 *
 * Switching a new file to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY at once, without
 * its busy handler, while another connection holds the lock it would upgrade from (a deadlock it avoids by
 * refusing). Two workers started together on one new file met this about one start in ten: the switch is
 * tried again here until `timeoutMs` has passed, as the busy handler would have done.
 */
export function openSqliteWal(file: string, timeoutMs: number): Database.Database {
  const db = new Database(file, { timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      break;
    } catch (e) {
      if ((e as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) {
        db.close();
        throw e;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
    }
  }
  db.pragma('synchronous = NORMAL');
  return db;
}
