import os from 'node:os';
import v8 from 'node:v8';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import type { IndexMaintenance, StoreIdentity, VersionWriter } from './backend.ts';

/** What the catch-up writes to: versions, the log position, and the read indexes it takes down for a bulk load. */
type IndexTarget = StoreIdentity & VersionWriter & IndexMaintenance;
import { entriesForHeapShare } from '../util/memory.ts';
import { changesIndex } from './version-index.ts';
import { InlineVersions, VersionThread, type ReadVersion, type VersionSource } from './version-reader.ts';

/**
 * The versioned store is an index derived from the archive, built after the crawl as Heritrix and pywb
 * build a CDX index after the WARC: every crawl-log row with a changed graph points at a WARC
 * `conversion` record holding that version's canonical N-Quads, and a 404/410 of a known graph is its
 * deletion. `catchUpVersions` replays the rows the store has not seen yet, in id order.
 */

export interface CatchUpProgress {
  /** Log ids covered so far in this catch-up (ids are dense for one writer, so about rows). */
  done: number;
  /** Log ids to cover, as counted at the start (rows appended meanwhile are indexed too, beyond it). */
  total: number;
  lastLogId: number;
  /** 'indexes': the versions are in, the read indexes a bulk catch-up took down are being built again. */
  phase: 'versions' | 'indexes';
}

export interface CatchUpResult {
  /** Log rows this call replayed (rows another process indexed meanwhile are not counted). */
  rows: number;
  /** Of those, rows that committed after a higher id had been indexed (PostgreSQL, several workers). */
  lateRows: number;
  versions: number;
  deletions: number;
  /** Versions whose WARC record could not be read or stored: each is one diagnostic. */
  failed: number;
  /** The store predated the indexer (written live by the crawler, no indexed log id): emptied and rebuilt. */
  rebuilt: boolean;
  /** Bulk: the read indexes were dropped for the catch-up and built once at its end (see `bulk`). */
  bulk: boolean;
  lastLogId: number;
  diagnostics: string[];
  /**
   * Set when this process may not write the index (a PostgreSQL user with SELECT only) and the crawl
   * log has rows past it: answers come from the index as it is. `versions`: versions and deletions among
   * those rows; `atLeast`: more rows were not counted.
   */
  behind?: { rows: number; versions: number; atLeast: boolean };
}

export interface CatchUpOptions {
  /** Log rows read and indexed per write transaction. */
  batchRows?: number;
  onProgress?: (p: CatchUpProgress) => void;
  /** How long a hole in the log ids is re-checked for a late commit before it counts as an aborted insert. */
  gapTtlMs?: number;
  /** The clock (epoch ms), for tests of hole expiry. */
  now?: number;
  /**
   * Drop the read indexes for the catch-up and build them once at its end. Default: when the rows to
   * index are at least BULK_MIN_ROWS and at least a quarter of those indexed already (a first catch-up
   * after a crawl, or a crawl that grew the archive by a quarter), where building an index from scratch
   * costs less than keeping it up to date row by row.
   */
  bulk?: boolean;
  /**
   * Read and parse the versions of a bulk catch-up on a thread of its own, the next batch while this thread
   * writes the one before. Default: on a machine with more than one core.
   */
  readThread?: boolean;
  /**
   * A follower of a running crawl (src/versions/live-index.ts): the read indexes a bulk load took down stay
   * down after this catch-up, and the next ones load on without them, until one without this flag (the
   * crawl's last) builds them once. Taking them down and up at each catch-up would build them every second.
   */
  keepIndexesDown?: boolean;
}

/**
 * A batch's log rows (headers and diagnostics included) and the graphs read for them are held until its
 * commit: at most a thirty-second of the heap, at about 2 KiB a row, so that a server under a small heap
 * (`--max-old-space-size=48`) indexes a large archive in smaller batches instead of running out of memory.
 */
const rowsForHeap = (rows: number, bytesPerRow = 2048) => entriesForHeapShare(bytesPerRow, 1 / 32, 50, rows);
/** A row with its version read ahead (VersionBackend.commitsBehind): about 35 parsed quads more. */
const READ_AHEAD_ROW_BYTES = 16 * 1024;
/**
 * A row with its version read on the thread: the version crosses as one string (about 100 bytes a quad),
 * made into terms only when the transaction asks for it.
 */
const THREAD_ROW_BYTES = 6 * 1024;
/**
 * Rows of a bulk load's transaction when a thread reads them. Each commit writes every page the batch
 * touched to the WAL, and a load touches most pages of the term dictionary's hash index in each: at
 * 100,000 documents the commits of 2,000-row batches were a fifth of the catch-up's time (bench/CATCH-UP.md).
 */
const THREAD_BULK_ROWS = 10_000;
/** Under this heap limit a bulk catch-up reads in process (see `threaded`). */
const SMALL_HEAP_BYTES = 256 * 1024 * 1024;
const BULK_MIN_ROWS = 2_000;
const BULK_SHARE = 0.25;
const MAX_DIAGNOSTICS = 100;
/**
 * A log row is one autocommit INSERT (PostgresStore.appendLog): its id is in flight for as long as that
 * statement runs, milliseconds, seconds under a stalled disk. An hour is far beyond that, and keeping a hole
 * costs one index seek per catch-up, so the margin is nearly free.
 */
export const GAP_TTL_MS = 3_600_000;

/**
 * Brings `archive` up to date with the crawl log of `store` (whose WARC files are in `dataDir`).
 * Safe with another process catching up the same file at once: each batch takes SQLite's write lock
 * and re-reads the last indexed id and the open holes inside it, so a row is applied once whoever gets
 * there first. Rows that commit out of id order are found through the holes they left (src/versions/log-gaps.ts).
 */
export async function catchUpVersions(archive: IndexTarget, store: CrawlLog, dataDir: string, opts: CatchUpOptions = {}): Promise<CatchUpResult> {
  const now = opts.now ?? Date.now();
  const result: CatchUpResult = { rows: 0, lateRows: 0, versions: 0, deletions: 0, failed: 0, rebuilt: false, bulk: false, lastLogId: 0, diagnostics: [] };
  const inline = new InlineVersions(dataDir, archive.commitsBehind === true);
  let source: VersionSource = inline;
  let thread: VersionThread | undefined;
  try {
    const rowBytes = archive.commitsBehind ? READ_AHEAD_ROW_BYTES : undefined;
    await fillLogGaps(archive, store, inline, opts.batchRows ?? rowsForHeap(500, rowBytes), now - (opts.gapTtlMs ?? GAP_TTL_MS), result);
    // Outside the lock this is only where to start reading; the batch decides under the lock.
    let cursor = archive.indexedLogId() ?? 0;
    const start = cursor;
    // Most catch-ups (a server's, before each query) have a few rows to do: one seek says so, and spares
    // the few dozen that find the last id (round trips, with PostgreSQL).
    const many = opts.bulk ?? (await store.log({ sinceId: start + BULK_MIN_ROWS - 1, limit: 1 })).length > 0;
    const counted = opts.onProgress !== undefined || many || opts.bulk !== undefined;
    const end = counted ? await lastLogId(store, cursor) : cursor;
    // The rows logged by now, and no further: a crawl logging meanwhile would keep a query from its answer, and
    // a live follower in the mode chosen for the rows it found (a crawl's first seconds: row by row, every index
    // kept) for the whole crawl. Without the count, fewer than BULK_MIN_ROWS rows follow `start`.
    const bound = counted ? end : start + BULK_MIN_ROWS - 1;
    // A follower's earlier catch-up left them down: this one loads on without them.
    const down = archive.liveBulkLoader() === process.pid;
    result.bulk = opts.bulk ?? (down || (many && end - start >= BULK_MIN_ROWS && end - start >= start * BULK_SHARE));
    // A thread costs its start (a tenth of a second): worth it for a bulk load only. It holds a second batch,
    // and the message that brings it, beside the one written: under a small heap (a server run with
    // --max-old-space-size=48, test/server/serve-small-heap.test.ts) the batch is read in process instead.
    const threaded = result.bulk && (opts.readThread ?? (os.availableParallelism() > 1 && v8.getHeapStatistics().heap_size_limit >= SMALL_HEAP_BYTES));
    if (threaded) source = thread = new VersionThread(dataDir);
    // A bulk load holds the write lock longer per batch: fewer commits, each rewriting the same hot pages.
    // Read on a thread, two batches are in memory at once (the one written, the one read).
    // (A store that commits behind the caller holds a batch's writes until its commit: not larger for it.)
    const batchRows = opts.batchRows ?? (threaded && !archive.commitsBehind
      ? rowsForHeap(THREAD_BULK_ROWS, 2 * THREAD_ROW_BYTES)
      : rowsForHeap(result.bulk ? 2_000 : 500, threaded ? 2 * READ_AHEAD_ROW_BYTES : rowBytes));
    // Another process's bulk load has them down already: it builds them at its end.
    if (result.bulk && archive.liveBulkLoader() === undefined) archive.writeTransaction(() => archive.dropReadIndexes());
    const progress = (phase: CatchUpProgress['phase']) =>
      opts.onProgress?.({ done: cursor - start, total: Math.max(end, cursor) - start, lastLogId: cursor, phase });
    try {
      let rows = await store.log({ sinceId: cursor, limit: batchRows });
      let reading = rows.length > 0 ? source.read(rows) : undefined;
      while (rows.length > 0) {
        // A reading thread that ended (its heap, a bug) ends the catch-up with its error: what is committed
        // stays, and the next catch-up goes on from there.
        const read = await reading!;
        const last = rows.at(-1)!.id!;
        // On a thread, the next batch is read while this one is written.
        const nextRows = threaded ? await store.log({ sinceId: last, limit: batchRows }) : undefined;
        const nextReading = nextRows && nextRows.length > 0 ? source.read(nextRows) : undefined;
        cursor = archive.writeTransaction(() => applyBatch(archive, rows, read, now, result));
        progress('versions');
        await turn();
        if (cursor >= bound) {
          nextReading?.catch(() => undefined);
          break;
        }
        if (nextRows && cursor === last) {
          rows = nextRows;
          reading = nextReading;
        } else {
          // Another process indexed past this batch meanwhile: what was read ahead is skipped.
          nextReading?.catch(() => undefined);
          rows = await store.log({ sinceId: cursor, limit: batchRows });
          reading = rows.length > 0 ? source.read(rows) : undefined;
        }
      }
    } finally {
      // Ours to build again, or left down by a loader that was killed.
      const owner = archive.liveBulkLoader();
      const keep = opts.keepIndexesDown === true && owner === process.pid;
      if (!keep && archive.missingIndexes().length > 0 && (owner === undefined || owner === process.pid)) {
        progress('indexes');
        archive.writeTransaction(() => archive.restoreIndexes());
      }
    }
    result.lastLogId = cursor;
    return result;
  } finally {
    await inline.close();
    await thread?.close();
  }
}

/**
 * A turn of the event loop between batches. On SQLite every step of a batch is synchronous (the log read,
 * the WARC records, the writes), so without it a catch-up of a new archive would hold `serve`'s event loop
 * for minutes: no request, not even the dashboard or a 503 saying how far the index is, would be answered.
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One batch of log rows (their versions: versionsOf), in the caller's write transaction; returns the last log id indexed. */
function applyBatch(archive: IndexTarget, rows: CrawlLogEntry[], read: (i: number) => ReadVersion, now: number, result: CatchUpResult): number {
  let indexed = archive.indexedLogId();
  if (indexed === undefined) {
    // Versions but no indexed id: written live by a crawler before the store became an index.
    // Replaying the log on top would store every version twice, so index it again from the start.
    if (archive.hasVersions()) {
      archive.clear();
      result.rebuilt = true;
    }
    indexed = 0;
  }
  let reached = indexed;
  archive.prefetch?.(rows.filter(changesIndex).map((e) => e.finalUrl ?? e.url));
  for (const [i, e] of rows.entries()) {
    if (e.id! > reached) {
      // Ids skipped on the way may belong to rows not committed yet: remember them.
      archive.logGaps.add(reached + 1, e.id! - 1, now);
      reached = e.id!;
    } else if (archive.logGaps.fill(e.id!)) {
      result.lateRows++; // committed after this batch's read of the holes, found here by chance
    } else {
      continue; // another process indexed it while this batch was read
    }
    applyLogRow(archive, e, read(i), result);
    result.rows++;
  }
  archive.setIndexedLogId(reached);
  return reached;
}

/**
 * Re-reads the holes the index went past (one `id > from - 1 ORDER BY id LIMIT size` seek each), applies
 * the rows that have committed since, then forgets holes older than `expireBefore` that are still empty.
 */
async function fillLogGaps(archive: IndexTarget, store: CrawlLog, source: VersionSource, batchRows: number, expireBefore: number, result: CatchUpResult): Promise<void> {
  const gaps = archive.logGaps.list();
  if (gaps.length === 0) return;
  for (const gap of gaps) {
    let cursor = gap.from - 1;
    while (cursor < gap.to) {
      // No more rows can lie in the hole than it has ids: an empty hole costs one seek and no row read.
      const rows = await store.log({ sinceId: cursor, limit: Math.min(batchRows, gap.to - cursor) });
      const inGap = rows.filter((e) => e.id! <= gap.to);
      if (inGap.length === 0) break;
      const read = await source.read(inGap);
      archive.writeTransaction(() => {
        for (const [i, e] of inGap.entries()) {
          if (!archive.logGaps.fill(e.id!)) continue; // another process got there first
          applyLogRow(archive, e, read(i), result);
          result.rows++;
          result.lateRows++;
        }
      });
      if (inGap.length < rows.length) break;
      cursor = inGap.at(-1)!.id!;
      await turn();
    }
  }
  archive.writeTransaction(() => archive.logGaps.expire(expireBefore));
}

/** One log row into the store; a row that cannot be applied costs its version, not the index. */
function applyLogRow(archive: IndexTarget, e: CrawlLogEntry, read: ReadVersion, result: CatchUpResult): void {
  const graph = e.finalUrl ?? e.url;
  try {
    if (read) {
      if ('error' in read) throw read.error;
      archive.putTermsNow(graph, e.time, read.terms);
      result.versions++;
    } else if (e.status === 404 || e.status === 410) {
      if (archive.deleteGraphNow(graph, e.time)) result.deletions++;
    }
  } catch (err) {
    result.failed++;
    if (result.diagnostics.length < MAX_DIAGNOSTICS) result.diagnostics.push(`log entry ${e.id} (${e.url}): ${(err as Error).message}`);
  }
}

/**
 * The largest log id, for the progress bar's total, found with the store's one log query (`id > x
 * ORDER BY id LIMIT 1`, an index seek): doubling steps, then halving. A few dozen seeks instead of a
 * count method in every store.
 */
export async function lastLogId(store: CrawlLog, after = 0): Promise<number> {
  const next = async (id: number): Promise<number | undefined> => (await store.log({ sinceId: id, limit: 1 }))[0]?.id;
  let lo = after; // an id with nothing known after it yet
  let step = 1024;
  let hi: number; // no row after it
  for (;;) {
    const found = await next(lo + step);
    if (found === undefined) { hi = lo + step; break; }
    lo = found;
    step *= 2;
  }
  for (;;) {
    const mid = Math.floor((lo + hi) / 2);
    if (mid <= lo) break;
    const found = await next(mid);
    if (found === undefined) hi = mid;
    else lo = found;
  }
  return (await next(lo)) ?? lo;
}
