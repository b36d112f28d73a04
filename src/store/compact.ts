/**
 * The SQLite metadata file rewritten whole after a large crawl. Its documents are keyed by URL and its
 * log's URL index by the lower-cased URL, and a crawl brings URLs in no order: rows go into the middle of
 * those B-trees, and a document's row grows when it is fetched, so pages split and stay part empty (an
 * eighth of the documents' pages, a tenth of the URL index's, after a crawl of 100,000 documents:
 * bench/ARCHIVE-SIZE.md, "The metadata rewritten whole"). VACUUM copies each B-tree in key order into
 * full pages; it is the only way SQLite gives such space back, since the file has no auto_vacuum and
 * half-empty pages are not free pages.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { freeBytes } from '../util/disk.ts';
import { STORE_BUSY_TIMEOUT_MS, openSqliteWal } from '../util/sqlite-wal.ts';

/**
 * Each try at emptying the WAL waits this long for readers, and the event loop runs between tries: SQLite's busy
 * handler sleeps inside the call, where a Ctrl-C's handler cannot run.
 */
const TRY_MS = 250;

/** What a rewrite did: the bytes the file shrank by, how long it took, and what a reader kept in the WAL. */
export interface FileCompaction {
  seconds: number;
  freedBytes: number;
  /**
   * The rewritten pages left in the `-wal` file beside it: a reader that held its snapshot past `readerWaitMs` keeps
   * them there, and the file at its old size (`freedBytes` is what the rewrite gives back once they are folded in); a
   * read-only connection never folds them in, the next write to the file does. 0 when emptied.
   */
  walBytes: number;
}

/** Rewrite only when at least this much of the file is empty, and `MIN_EMPTY_SHARE` of it: below that a rewrite costs more than it gives. */
export const MIN_EMPTY_BYTES = 4 * 1048576;
export const MIN_EMPTY_SHARE = 0.05;

/**
 * How long the rewrite waits for readers (a `serve` answering, a `query`) to let go of the pages it replaced before
 * the WAL can be emptied: a query at T on a large archive can take seconds, and the WAL holds a copy of the whole file.
 */
export const READER_WAIT_MS = 60_000;

export interface CompactOptions {
  minEmptyBytes?: number;
  minEmptyShare?: number;
  readerWaitMs?: number;
  /** Called once when a reader holds the WAL past the store's usual busy timeout: the wait is then long enough to say. */
  onWaiting?: () => void;
  /** Stops waiting for readers (the user's Ctrl-C): what they hold stays in the WAL, reported in `walBytes`. */
  signal?: AbortSignal;
}

/**
 * Measures the file's empty space (SQLite's `dbstat`: one read of every page, 0.14 s for 106 MiB) and rewrites it
 * when enough is empty: undefined when it did not. Meant for the end of a crawl, when nothing else writes; a
 * reader meanwhile goes on with the pages it had. The rewrite passes through the WAL and a temporary copy, so it
 * needs twice the file's size free, and is skipped without it.
 */
export async function compactSqliteFile(file: string, opts: CompactOptions = {}): Promise<FileCompaction | undefined> {
  const db = openSqliteWal(file, STORE_BUSY_TIMEOUT_MS);
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const bytes = () => (db.pragma('page_count', { simple: true }) as number) * pageSize;
    const before = bytes();
    const measured = db.prepare<[], { unused: number | null }>("SELECT sum(unused) AS unused FROM dbstat('main', 1)").get();
    const empty = (measured?.unused ?? 0) + (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
    if (empty < (opts.minEmptyBytes ?? MIN_EMPTY_BYTES) || empty < before * (opts.minEmptyShare ?? MIN_EMPTY_SHARE)) return undefined;
    if ((freeBytes(path.dirname(file)) ?? Number.POSITIVE_INFINITY) < 2 * before) return undefined;
    const t0 = performance.now();
    db.exec('VACUUM');
    const walBytes = await emptyWal(db, file, opts);
    return { seconds: (performance.now() - t0) / 1000, freedBytes: before - bytes(), walBytes };
  } finally {
    db.close();
  }
}

/**
 * Copies the rewritten pages from the WAL into the file and empties the WAL. TRUNCATE waits (through the busy
 * handler) until every reader reads the file alone; a reader's snapshot from before the VACUUM needs the old pages,
 * so until it ends the rewrite lives twice on disk. What is left is reported, not an error: the file is whole either way.
 */
async function emptyWal(db: Database.Database, file: string, opts: CompactOptions): Promise<number> {
  const emptied = (): boolean => {
    try {
      const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      return r?.busy === 0;
    } catch {
      return false;
    }
  };
  const started = Date.now();
  const deadline = started + (opts.readerWaitMs ?? READER_WAIT_MS);
  db.pragma(`busy_timeout = ${TRY_MS}`);
  let told = false;
  while (!emptied() && Date.now() < deadline && !opts.signal?.aborted) {
    if (!told && Date.now() - started >= STORE_BUSY_TIMEOUT_MS) {
      told = true;
      opts.onWaiting?.();
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  return fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;
}
