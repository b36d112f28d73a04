/**
 * The metadata store (seed 000's "meta data store"): documents with their schedule, the crawl log,
 * hosts, and cycles. SQLite (embedded default) and PostgreSQL implement all of it (MetadataStore);
 * consumers see it through the narrow interfaces at the end of this file. Every method is async so
 * that both backends fit.
 */

import type { Reason } from '../vocabulary/reasons.ts';
import type { ArchiveCounts, ArchivedUrl, Capture, CaptureQuery, ChangeFrequency, FateQuery, HeldLease, LatestQuery, LogCounts, ProgressPoint, UrlSearch } from './log-reads.ts';

export type { ArchiveCounts, ArchivedUrl, Capture, CaptureCursor, CaptureQuery, ChangeFrequency, FateQuery, HeldLease, LatestKind, LatestQuery, LogCounts, ProgressPoint, UrlSearch } from './log-reads.ts';

export type ChangeState = 'new' | 'changed' | 'unchanged' | 'error';

export type DocumentState = 'queued' | 'fetched' | 'failed' | 'skipped';

export interface DocumentRow {
  /** Normalised URL: the key of the seen test. */
  url: string;
  host: string;
  depth: number;
  state: DocumentState;
  firstSeen: number; // epoch ms
  lastFetched?: number;
  nextFetch?: number;
  /** Re-crawl strategy name and its per-URL state (JSON-serialisable). */
  strategy?: string;
  strategyState?: unknown;
  etag?: string;
  lastModified?: string;
  checksum?: string;
  graphHash?: string;
  /** Monitored by the re-crawl scheduler (added with `add`), not only crawled once. */
  monitored: boolean;
}

export interface CrawlLogEntry {
  id?: number;
  url: string;
  /** The URL the body came from after redirects; read back, absent when it is `url` (`finalUrl ?? url`). */
  finalUrl?: string;
  time: number; // epoch ms, start of the fetch
  status: number; // 0 when no HTTP response
  /**
   * The response's headers as written; read back, only those a log row keeps (Location, Content-Location:
   * src/store/schema.ts logValues), or all of them in a row written before. Every header is in the WARC record.
   */
  headers?: [string, string][];
  durationMs: number;
  bytes: number;
  mediaType?: string;
  /** sha1 of the payload, base32, as WARC-Payload-Digest */
  checksum?: string;
  graphHash?: string;
  change: ChangeState;
  error?: string;
  /** Why the URL met this fate, in the crawl's reason vocabulary (src/vocabulary/reasons.ts); absent in rows older than the column. */
  reason?: Reason;
  triples: number;
  truncated?: boolean;
  diagnostics?: string[];
  /** Where the bytes are: WARC file (relative to the data dir), record offset and length. */
  warcFile?: string;
  warcOffset?: number;
  warcLength?: number;
  /** Canonical N-Quads of this version: a WARC conversion record in the same file (offset, length). */
  rdfOffset?: number;
  rdfLength?: number;
  cycleId?: number;
}

export type DueSelection = { url: string } | { host: string } | { all: true };

export interface HostRow {
  host: string;
  robotsTxt?: string;
  robotsStatus?: number;
  robotsFetchedAt?: number;
  crawlDelayMs?: number;
  meanDownloadMs?: number;
  fetches: number;
  errors: number;
}

export interface CycleRow {
  id: number;
  startedAt: number;
  endedAt?: number;
  urls: number;
  estimateMs?: number;
  actualMs?: number;
  status: 'running' | 'done' | 'failed' | 'skipped';
  note?: string;
}

/**
 * The seams of the metadata store (docs/store.md). Each consumer depends on the interface(s) it uses,
 * so a reader of the dashboard's aggregates cannot reach the frontier, and a backend author sees the
 * store as a few small contracts (test/store/contract/) instead of one of forty methods.
 */

/**
 * Makes every write so far durable (writes may be batched into transactions until then). Part of every
 * interface that writes, because a caller that wrote through one of them must be able to commit it.
 */
export interface Flushable {
  flush(): Promise<void>;
}

/** The documents: the frontier's durable state and each URL's re-crawl schedule. */
export interface DocumentStore extends Flushable {
  /** Inserts documents that are not yet known; returns how many were new. */
  addDocuments(docs: Pick<DocumentRow, 'url' | 'host' | 'depth'>[], opts?: { monitored?: boolean; strategy?: string; nextFetch?: number }): Promise<number>;
  getDocument(url: string): Promise<DocumentRow | undefined>;
  /** The rows of those of `urls` that are known, in no particular order (one query per many URLs: sitemaps list up to 50,000). */
  getDocuments(urls: readonly string[]): Promise<DocumentRow[]>;
  updateDocument(url: string, patch: Partial<DocumentRow>): Promise<void>;
  /** Documents still waiting to be fetched by a one-off crawl (for resume). */
  queuedDocuments(limit?: number): Promise<DocumentRow[]>;
  /** Monitored documents whose nextFetch <= now, soonest first. */
  dueDocuments(now: number, limit: number): Promise<DocumentRow[]>;
  countDocuments(state?: DocumentState): Promise<number>;
  /**
   * Makes monitored documents due at `now` (`datamonitor due`): one URL, every URL of a host, or all.
   * Returns how many were made due. Testing a strategy should not mean waiting a week.
   */
  makeDue(select: DueSelection, now: number): Promise<number>;
  /**
   * Every known URL, a page of at most `pageSize` at a time in URL order (to warm the seen test when a
   * crawl resumes): the store of a large archive holds millions, more than one array should.
   */
  documentUrlPages(pageSize?: number): AsyncIterable<string[]>;
}

/** The crawl log: one row per fate, appended; read whole or per URL (export, catch-up, Memento). */
export interface CrawlLog extends Flushable {
  appendLog(entry: CrawlLogEntry): Promise<number>;
  /**
   * What every fetch writes: its log entry, and the patch of its document (`entry.url`), in one
   * statement where the backend can (PostgreSQL: one round trip and one commit instead of two).
   */
  logFetch(entry: CrawlLogEntry, patch: Partial<DocumentRow>): Promise<number>;
  /**
   * Captures of one URL, oldest first: log entries with a WARC record whose request URL or final
   * URL (after redirects; the record's target) is this URL.
   */
  versions(url: string): Promise<CrawlLogEntry[]>;
  /**
   * Log entries, oldest first, optionally since an id, of one URL or with records in one WARC file; read
   * whole logs a page at a time (`limit`): an archive's log is larger than memory. `converted`: only entries
   * with a conversion record (`rdfOffset`), which, with `warcFile`, an index finds (the WARC export's read);
   * the other entries of one file are a scan of the log.
   */
  log(opts?: { sinceId?: number; limit?: number; url?: string; warcFile?: string; converted?: boolean }): Promise<CrawlLogEntry[]>;
  /** Each URL's latest entry of a kind (export, replay), a page in log order, resumable after an id. */
  latestEntries(q: LatestQuery): Promise<CrawlLogEntry[]>;
  /**
   * For each of these WARC files, the largest end offset (offset + length) of any record the log points to,
   * 0 for a file no row names: one pass over the log, for crash recovery (recoverOpenFiles cuts each file
   * left open to where its committed rows end), which is rare enough not to keep an index of every row's file.
   */
  warcEnds(files: readonly string[]): Promise<Map<string, number>>;
}

/**
 * The server's, the dashboard's and `stats`/`log`'s reads (src/store/log-reads.ts): aggregates and
 * limited lists, never the whole log. Read-only: a read-only open serves all of it.
 */
export interface ReadModel {
  /** Log entries counted by HTTP status and by change, groups in order of first appearance. */
  logCounts(): Promise<LogCounts>;
  /** Documents by how many changes they showed (the change-frequency histogram). */
  changeFrequencies(): Promise<ChangeFrequency[]>;
  /** Fetches and errors over time: per entry up to `maxPoints` entries, per time bucket beyond. */
  logProgress(maxPoints: number): Promise<ProgressPoint[]>;
  /** The `limit` newest log entries, newest first. */
  latestLog(limit: number): Promise<CrawlLogEntry[]>;
  /** Captures of exact URLs or URL prefixes (index range scans), in CDX order, resumable after a cursor. */
  captures(q: CaptureQuery): Promise<Capture[]>;
  /** Distinct `scheme://authority` of the logged URLs (a scan of the url index: for CDX domain matches). */
  logOrigins(): Promise<string[]>;
  /** Documents by state, hosts, monitored and due URLs, the log's time span: what `stats` prints. */
  archiveCounts(now: number): Promise<ArchiveCounts>;
  /** Log entries by reason and URL, newest first (`datamonitor log`). */
  fates(q: FateQuery): Promise<CrawlLogEntry[]>;
  /** Archived URLs by prefix or substring, a page in URL order (the server's URL search). */
  searchUrls(q: UrlSearch): Promise<ArchivedUrl[]>;
  /** Host leases held by workers, lapsed ones included, by worker then host (the dashboard's worker panel). */
  heldLeases(limit: number): Promise<HeldLease[]>;
}

/** What the crawler learnt of each host: robots.txt, crawl delay, download times, errors. */
export interface HostStore extends Flushable {
  getHost(host: string): Promise<HostRow | undefined>;
  /** Inserts or replaces the host's row (every field: one left out is cleared). */
  putHost(row: HostRow): Promise<void>;
}

/** Re-crawl cycles: when each ran, how many URLs, how long, how it ended. */
export interface CycleStore {
  /** Records a cycle and returns its id, greater than every earlier one's. */
  startCycle(row: Omit<CycleRow, 'id'>): Promise<number>;
  finishCycle(id: number, patch: Partial<CycleRow>): Promise<void>;
  /** Every cycle, oldest (lowest id) first. */
  cycles(): Promise<CycleRow[]>;
}

/** Opening and closing: what the owner of a store (a command, the server, a crawl) calls, not its users. */
export interface StoreLifecycle {
  /** Creates tables / runs migrations; idempotent. */
  init(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole store: what a backend implements (SQLite and PostgreSQL do; WorkerStore adds LeaseStore)
 * and what a composition root (a crawl, the server, a command) opens. Everything else takes the narrow
 * interface it uses.
 */
export interface MetadataStore extends StoreLifecycle, DocumentStore, CrawlLog, ReadModel, HostStore, CycleStore {}
