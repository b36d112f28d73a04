/**
 * The live index's thread (src/versions/live-index.ts): catches the versioned store up with the crawl log
 * every interval until told to close, then once more, and reports what it did.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { serveThread } from '../util/ts-thread.ts';
import { META_FILE } from '../util/data-dir.ts';
import { openStore } from '../store/index.ts';
import type { MetadataStore } from '../store/types.ts';
import { catchUpVersions, type CatchUpProgress } from './catch-up.ts';
import { openVersionBackend } from './version-index.ts';
import type { VersionBackend } from './backend.ts';
import type { FromLiveIndex, LiveIndexSummary } from './live-index.ts';

const { dataDir, db, intervalMs } = workerData as { dataDir: string; db?: string; intervalMs: number };

const summary: LiveIndexSummary = { catchUps: 0, rows: 0, versions: 0, deletions: 0, failed: 0, bulkCatchUps: 0, lastLogId: 0, diagnostics: [] };
let stopping = false;
let wake: (() => void) | undefined;
let store: MetadataStore | undefined;
let archive: VersionBackend | undefined;
/**
 * Keeping the read indexes up costs every row a seek in each of them, in B-trees that grow with the archive. A
 * follower whose catch-up, one version at a time, takes as long as its pause between catch-ups is indexing as fast
 * as a crawl at --delay 0 logs, on cores the crawl wants: it takes them down and loads on in bulk, as a catch-up far
 * behind does, and its last catch-up builds them once. Whether that happens no longer hangs on how many rows the
 * crawl's first second logged (bench/SCALE-RUN.md: a 1,000,000-document crawl whose follower kept them up took 42 %
 * more CPU than one that did not). A polite crawl's follower indexes a few rows in milliseconds and keeps them up, so
 * a query during the crawl reads them.
 */
let bulk = false;

/** One catch-up; returns the rows it indexed. */
async function catchUp(last: boolean): Promise<number> {
  // The crawl makes its store when it starts: until then there is nothing to follow.
  if (!store) {
    if (!db && !fs.existsSync(path.join(dataDir, META_FILE))) return 0;
    store = await openStore(dataDir, db, { readonly: true });
    await store.init();
    archive = openVersionBackend(dataDir, db);
  }
  // While the crawl runs, a bulk load's read indexes stay down; the last catch-up builds them.
  const onProgress = last ? (progress: CatchUpProgress) => parentPort!.postMessage({ type: 'progress', progress } satisfies FromLiveIndex) : undefined;
  const t0 = performance.now();
  const r = await catchUpVersions(archive!, store, dataDir, { keepIndexesDown: !last, readThread: last, onProgress, bulk: (bulk && !last) || undefined });
  if (r.rows === 0) return 0;
  if (!last && !r.bulk && performance.now() - t0 >= intervalMs) bulk = true;
  summary.catchUps++;
  summary.rows += r.rows;
  summary.versions += r.versions;
  summary.deletions += r.deletions;
  summary.failed += r.failed;
  if (r.bulk) summary.bulkCatchUps++;
  summary.lastLogId = r.lastLogId;
  for (const d of r.diagnostics) if (summary.diagnostics.length < 20) summary.diagnostics.push(d);
  return r.rows;
}

const loop = (async () => {
  let indexed = 0;
  for (;;) {
    // A crawl that has just begun has logged nothing: the first look is an interval in. A catch-up indexes the
    // rows logged when it began (catch-up.ts): one that found some goes again at once, deciding anew how to
    // load what the crawl logged meanwhile.
    if (!stopping && indexed === 0) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, intervalMs);
      });
    }
    // Asked to stop before this catch-up began: it is the last, and sees every row the crawl logged.
    const last = stopping;
    indexed = 0;
    try {
      indexed = await catchUp(last);
    } catch (e) {
      // The index is derived: a failure here costs the next query a catch-up, never the crawl.
      if (summary.diagnostics.length < 20) summary.diagnostics.push(`live index: ${(e as Error).message}`);
    }
    if (last) break;
  }
  try {
    // The crawl is over and the index current: rows that went in one at a time left its indexes a tenth empty.
    const compacted = archive?.compactIndexes();
    if (compacted) summary.compacted = compacted;
  } catch (e) {
    if (summary.diagnostics.length < 20) summary.diagnostics.push(`live index: compacting the read indexes: ${(e as Error).message}`);
  }
  await archive?.close();
  await store?.close();
  parentPort!.postMessage({ type: 'summary', summary } satisfies FromLiveIndex);
})();

serveThread(async () => undefined, async () => {
  // One more catch-up after this: whatever the crawl logged until it ended is indexed.
  stopping = true;
  wake?.();
  await loop;
});
