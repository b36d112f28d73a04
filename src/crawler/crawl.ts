import type { DeferredOrigin } from '../frontier/politeness.ts';
import type { CapturedDocument } from './capture.ts';
import type { CrawlOptions, RoundOptions } from './options.ts';
import type { Reason } from '../vocabulary/reasons.ts';
import type { Outcome } from '../vocabulary/outcomes.ts';
import type { Verdict } from '../trust/proof.ts';
import type { QueryDrivenSummary } from './follow/index.ts';
import type { VariantsSummary } from './variants/stage.ts';
import type { LdesSummary } from './ldes/streams.ts';
import { assembleCrawl } from './assembly.ts';
import { Drain } from './drain.ts';

export type { CrawlOptions, CrawlStore } from './options.ts';
export type { CapturedDocument } from './capture.ts';
export { isStorageStop, storageStopExit, storageStopOf, type StorageStop, type StorageStopReason } from './drain.ts';

export interface CrawlSummary {
  documents: number;
  triples: number;
  bytes: number;
  errors: number;
  durationMs: number;
  changed: number;
  unchanged: number;
  new: number;
  /** URLs skipped: disallowed by robots.txt, kept out by a filter (each URL once), dropped with a failing origin. */
  skipped: { robots: number; filtered: number; hostFailing: number };
  /** How many URLs met each fate (src/vocabulary/reasons.ts): every crawl-log row, and each filtered URL once. */
  reasons: Record<Reason, number>;
  /** The same URLs in the one way of counting shared with `stats`, `run` and the dashboard (src/vocabulary/outcomes.ts). */
  outcomes: Record<Outcome, number>;
  /** With `trust`: how many documents got each verdict (src/trust/proof.ts). */
  trust?: Partial<Record<Verdict, number>>;
  /** Sitemaps fetched and read, and the URLs they listed (in scope; before the seen test and the filters). */
  sitemaps: { read: number; urls: number };
  queued: number;
  hosts: number;
  /**
   * The breadth-first frontier's memory (`frontierMemory`): the most queued URLs it held in memory at once, and
   * how many went to its spill on disk (an origin's entries, or a whole origin's; an entry parked twice counts twice).
   * Absent for importance orderings, which keep every URL in memory.
   */
  frontier?: { peakInMemory: number; spilled: number };
  /**
   * What ended the crawl before its frontier was empty: a traffic limit, a signal, too little free
   * disk space (`minFreeBytes`), the archive's storage failing (disk full, I/O error), or its database
   * lost for longer than the store waits for it (src/store/pg-retry.ts). After the last three the URLs
   * not archived stay queued: free space, or wait for the database, and run the same crawl again to resume.
   */
  stoppedBy?: 'max-docs' | 'max-bytes' | 'max-triples' | 'max-time' | 'signal' | 'disk-space' | 'storage-error' | 'permission-denied' | 'database-unavailable' | 'answered';
  /** Why, for `disk-space`, `storage-error`, `permission-denied`, `database-unavailable` and `answered`, in words. */
  stopMessage?: string;
  /** Set when there were seeds and not one of them could be had (each failed or was refused): nothing to crawl from. */
  allSeedsFailed?: boolean;
  resumed: boolean;
  dataDir: string;
  /** A query-driven crawl (--follow, --until, --answer): what its queries cost and found. */
  query?: QueryDrivenSummary;
  /** With `variants`: the other representations of the documents, fetched, archived and compared. */
  variants?: VariantsSummary;
  /** With `ldes`: the stream pages read and the members archived. */
  ldes?: LdesSummary;
}

export interface CrawlProgress {
  documents: number;
  queued: number;
  errors: number;
  triples: number;
  bytes: number;
  elapsedMs: number;
  /** Set while nothing is in flight and every queued origin waits on a back-off or deferral (until when, why). */
  deferred?: DeferredOrigin[];
}

/**
 * A crawl: iterate it to receive each captured document as it is archived (seed 003's producer and
 * consumer), then read `summary`. Stopping iteration early stops the crawl cleanly.
 */
export class Crawl implements AsyncIterable<CapturedDocument> {
  summary: CrawlSummary | undefined;
  private started = false;
  private progressListeners: Array<(p: CrawlProgress) => void> = [];

  constructor(readonly options: CrawlOptions) {}

  onProgress(fn: (p: CrawlProgress) => void): this {
    this.progressListeners.push(fn);
    return this;
  }

  /** Runs the crawl to its end without looking at the documents; returns the summary. */
  async run(): Promise<CrawlSummary> {
    for await (const _ of this) {
      // consume
    }
    return this.summary as CrawlSummary;
  }

  [Symbol.asyncIterator](): AsyncIterator<CapturedDocument> {
    if (this.started) throw new Error('a Crawl can be iterated once');
    this.started = true;
    return runCrawl(this.options, (s) => (this.summary = s), (p) => this.progressListeners.forEach((f) => f(p)));
  }
}

/** Starts a crawl (nothing happens until it is iterated or run). */
export function crawl(options: CrawlOptions): Crawl {
  return new Crawl(options);
}

/** A worker's round (src/worker/): a crawl told the internal options of RoundOptions. */
export function crawlRound(options: RoundOptions): Crawl {
  return new Crawl(options);
}

/**
 * A crawl's run: built from its options in one place (assembly.ts), then drained (drain.ts), which
 * yields each archived document and closes the crawl, also when the consumer stops early.
 */
async function* runCrawl(o: RoundOptions, setSummary: (s: CrawlSummary) => void, progress: (p: CrawlProgress) => void): AsyncGenerator<CapturedDocument> {
  const assembly = await assembleCrawl(o);
  yield* new Drain(assembly, progress).run(setSummary);
}
