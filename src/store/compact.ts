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
import { openSqliteWal } from '../util/sqlite-wal.ts';

/** What a rewrite did: the bytes the file shrank by, and how long it took. */
export interface FileCompaction {
  seconds: number;
  freedBytes: number;
}

/** Rewrite only when at least this much of the file is empty, and `MIN_EMPTY_SHARE` of it: below that a rewrite costs more than it gives. */
export const MIN_EMPTY_BYTES = 4 * 1048576;
export const MIN_EMPTY_SHARE = 0.05;

export interface CompactOptions {
  minEmptyBytes?: number;
  minEmptyShare?: number;
}

/**
 * Measures the file's empty space (SQLite's `dbstat`: one read of every page, 0.14 s for 106 MiB) and rewrites it
 * when enough is empty: undefined when it did not. Meant for the end of a crawl, when nothing else writes; a
 * reader meanwhile goes on with the pages it had. The rewrite passes through the WAL and a temporary copy, so it
 * needs twice the file's size free, and is skipped without it.
 */
export function compactSqliteFile(file: string, opts: CompactOptions = {}): FileCompaction | undefined {
  const db = openSqliteWal(file, 5000);
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const bytes = () => (db.pragma('page_count', { simple: true }) as number) * pageSize;
    const before = bytes();
    const measured = db.prepare<[], { unused: number | null }>("SELECT sum(unused) AS unused FROM dbstat('main', 1)").get();
    const empty = (measured?.unused ?? 0) + (db.pragma('freelist_count', { simple: true }) as number) * pageSize;
    if (empty < (opts.minEmptyBytes ?? MIN_EMPTY_BYTES) || empty < before * (opts.minEmptyShare ?? MIN_EMPTY_SHARE)) return undefined;
    if (freeBytes(path.dirname(file)) < 2 * before) return undefined;
    const t0 = performance.now();
    db.exec('VACUUM');
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // A reader holds the WAL: its last connection to close folds it in.
    }
    return { seconds: (performance.now() - t0) / 1000, freedBytes: before - bytes() };
  } finally {
    db.close();
  }
}

function freeBytes(dir: string): number {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
