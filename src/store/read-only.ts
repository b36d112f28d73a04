import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/** A write to a store opened read-only (serve, query, diff, export, stats): a mistake of the caller, said plainly. */
export class ReadOnlyStoreError extends Error {
  /** The server answers it as a refused write, not as an internal error. */
  readonly statusCode = 403;
  constructor(where: string, what: string) {
    super(`${what} refused: the metadata store ${where} was opened read-only (this command or server only reads the archive)`);
    this.name = 'ReadOnlyStoreError';
  }
}

/**
 * Opens a SQLite database for reading only, writing nothing where it lies. A WAL-mode database is read
 * in place when SQLite can map its `-shm` index: the directory can be written (SQLite creates it), or the
 * `-shm` and `-wal` files are there (a writer has it open, perhaps as another user). Otherwise (a read-only
 * directory after the last writer closed cleanly) SQLite cannot open it at all, `immutable=1` needs URI
 * file names that better-sqlite3 only allows process-wide, so the database (and a `-wal` if any) is read from
 * a temporary copy, removed by `remove`.
 */
export function openSqliteReadOnly(file: string): { db: Database.Database; remove: () => void } {
  if (!fs.existsSync(file)) throw Object.assign(new Error(`${file} does not exist`), { code: 'ENOENT' });
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.prepare('SELECT count(*) FROM sqlite_master').get(); // the first read opens the WAL index: fails here if it cannot
      return { db, remove: () => undefined };
    } catch (e) {
      db.close();
      throw e;
    }
  } catch (e) {
    if (!/^SQLITE_(READONLY|CANTOPEN)/.test(String((e as { code?: unknown }).code))) throw e;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'datamonitor-meta-'));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    for (const suffix of ['', '-wal']) {
      if (!fs.existsSync(file + suffix)) continue;
      const copy = path.join(dir, path.basename(file) + suffix);
      fs.copyFileSync(file + suffix, copy);
      fs.chmodSync(copy, 0o600); // the copy keeps the original's read-only mode otherwise, and SQLite must make its -shm beside it
    }
    return { db: new Database(path.join(dir, path.basename(file)), { readonly: true, fileMustExist: true }), remove };
  } catch (e) {
    remove();
    throw e;
  }
}
