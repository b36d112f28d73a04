import { TsThread } from '../util/ts-thread.ts';
import type { CatchUpProgress } from './catch-up.ts';
import type { IndexCompaction } from './backend.ts';
import { siblingModule } from '../util/sibling.ts';

/** What a live index did over a crawl, its last catch-up included. */
export interface LiveIndexSummary {
  /** Catch-ups run (one per interval with new log rows, and the last one). */
  catchUps: number;
  rows: number;
  versions: number;
  deletions: number;
  failed: number;
  /** Catch-ups that loaded in bulk (src/versions/catch-up.ts). */
  bulkCatchUps: number;
  lastLogId: number;
  /** First few versions that could not be indexed, and a failure of the index itself (the crawl goes on). */
  diagnostics: string[];
  /** The read indexes built whole again at the end (backend.ts compactIndexes), when most of their rows went in one at a time. */
  compacted?: IndexCompaction;
}

export interface LiveIndexOptions {
  /** The crawl's metadata store when it is not SQLite in `dataDir` (postgres://…). */
  db?: string;
  /** Pause between catch-ups (default 1 s): each indexes what the crawl logged meanwhile. */
  intervalMs?: number;
}

/** Messages between the live index and its thread: the last catch-up's progress (the user waits for it), then what it did. */
export type FromLiveIndex = { type: 'progress'; progress: CatchUpProgress } | { type: 'summary'; summary: LiveIndexSummary };

/**
 * Keeps `<dataDir>/versions.sqlite` current while a crawl runs, so that the first query after it waits
 * for nothing: a follower of the crawl log on a thread of its own (src/versions/live-index-thread.ts), which
 * catches the index up from the log and the WARC conversion records every interval, exactly as `query`
 * would, through its own connections. The crawl's hot path does not change: it writes the log and the
 * WARC files as without it, and the follower reads what has been committed. Stopping runs a last
 * catch-up, so the index ends at the crawl's last log row.
 */
export class LiveIndex {
  private summary: Promise<LiveIndexSummary>;

  private constructor(private readonly thread: TsThread) {
    this.summary = new Promise((resolve, reject) => {
      thread.worker.on('message', (m: FromLiveIndex | { type: string }) => {
        if (m.type === 'summary') resolve((m as Extract<FromLiveIndex, { type: 'summary' }>).summary);
      });
      thread.worker.once('error', reject);
      thread.worker.once('exit', (code) => reject(new Error(`the live index thread ended (exit ${code}) before its last catch-up`)));
    });
    this.summary.catch(() => undefined); // read by stop()
  }

  static start(dataDir: string, opts: LiveIndexOptions = {}): LiveIndex {
    return new LiveIndex(new TsThread(siblingModule(import.meta.url, './live-index-thread.ts'), { dataDir, db: opts.db, intervalMs: opts.intervalMs ?? 1_000 }));
  }

  /**
   * Ends the follower after a last catch-up (call it when the crawl has ended) and says what it did;
   * `onProgress` hears that catch-up, which is what the crawl's user waits for when the index fell behind.
   */
  async stop(onProgress?: (p: CatchUpProgress) => void): Promise<LiveIndexSummary> {
    if (onProgress) {
      this.thread.worker.on('message', (m: FromLiveIndex) => {
        if (m.type === 'progress') onProgress(m.progress);
      });
    }
    const closed = this.thread.close();
    try {
      return await this.summary;
    } finally {
      await closed;
    }
  }
}
