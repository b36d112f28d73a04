import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../util/errors.ts';
import { EXIT } from '../util/exit-codes.ts';
import { META_FILE, VERSIONS_FILE } from '../util/data-dir.ts';

/**
 * The archive's SQLite files are indexes of its WARC files (the crawl log points into them, the version
 * store is built from the conversion records they hold): when one is damaged (a disk that lost a write,
 * a copy cut short, a file overwritten), nothing archived is lost, and `datamonitor rebuild` makes them
 * again. This module tells a damaged store from a bug, names the file, and says so.
 */


/** Whether SQLite found a file to be no database, or a damaged one. */
export function isDamagedDatabase(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof DamagedStoreError) return true;
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(String(e.code ?? ''))) return true;
  }
  return false;
}

/** A metadata or version store found damaged: a user error naming it, saying what is safe and what to run. */
export class DamagedStoreError extends UserError {
  constructor(readonly dataDir: string, readonly files: string[], detail?: string) {
    super(damagedMessage(dataDir, files, detail), EXIT.noInput);
    this.name = 'DamagedStoreError';
  }
}

export function damagedMessage(dataDir: string, files: string[], detail?: string): string {
  const named = files.length > 0 ? files.map((f) => `'${path.join(dataDir, f)}'`).join(' and ') : `a SQLite file of the archive in '${dataDir}' (${META_FILE} or ${VERSIONS_FILE})`;
  return `${named} ${files.length > 1 ? 'are' : 'is'} damaged${detail ? ` (${detail})` : ''}. ` +
    `The WARC files under '${path.join(dataDir, 'warc')}' are untouched and hold what was archived: ` +
    `rebuild the archive's index from them with \`datamonitor rebuild --data ${dataDir}\` (it moves the damaged file aside, deleting nothing; see docs/recovery.md)`;
}

/**
 * Why the SQLite file `rel` of `dataDir` cannot serve, or undefined when it is sound (or absent): a file SQLite
 * does not take for a database, a failed `PRAGMA quick_check`, or (the metadata store) one emptied to no tables.
 * quick_check reads every page once: this runs when a command met a damaged database, and in `rebuild`.
 */
export function damageOf(dataDir: string, rel: string): string | undefined {
  const file = path.join(dataDir, rel);
  if (!fs.existsSync(file)) return undefined;
  if (fs.statSync(file).size === 0 && !fs.existsSync(file + '-wal')) return rel === META_FILE ? 'it is empty (0 bytes)' : undefined;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.pragma('quick_check') as Array<{ quick_check: string }>;
    const problems = rows.map((r) => r.quick_check).filter((r) => r !== 'ok');
    if (problems.length > 0) return problems.slice(0, 3).join('; ');
    if (rel === META_FILE && (db.pragma('user_version', { simple: true }) as number) === 0) return 'it holds no tables';
    return undefined;
  } catch (e) {
    if (isDamagedDatabase(e)) return (e as Error).message;
    // Not readable by this user, or locked: not a damage this can tell; the command's own error says what it is.
    return undefined;
  } finally {
    db?.close();
  }
}

/** The archive's SQLite files that are damaged, each with why. */
export function damagedFiles(dataDir: string): Array<{ file: string; why: string }> {
  const found: Array<{ file: string; why: string }> = [];
  for (const file of [META_FILE, VERSIONS_FILE]) {
    const why = damageOf(dataDir, file);
    if (why) found.push({ file, why });
  }
  return found;
}

/** The user error for a damaged-database error a command met in `dataDir`: which files, checked now. */
export function damagedStoreError(dataDir: string, err: unknown): DamagedStoreError {
  if (err instanceof DamagedStoreError) return err;
  const found = damagedFiles(dataDir);
  return new DamagedStoreError(dataDir, found.map((f) => f.file), found[0]?.why ?? (err as Error).message);
}
