/**
 * The metadata store (seed 000's "meta data store"): documents with their schedule, the crawl log,
 * hosts, and cycles. SQLite (embedded default) and PostgreSQL implement this one interface; every
 * method is async so that both fit.
 */

import type { Reason } from '../crawler/reasons.ts';
import type { ArchiveCounts, ArchivedUrl, Capture, CaptureQuery, ChangeFrequency, FateQuery, HeldLease, LogCounts, ProgressPoint, UrlSearch } from './log-reads.ts';

export type { ArchiveCounts, ArchivedUrl, Capture, CaptureCursor, CaptureQuery, ChangeFrequency, FateQuery, HeldLease, LogCounts, ProgressPoint, UrlSearch } from './log-reads.ts';

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
  /** The URL the body came from after redirects. */
  finalUrl?: string;
  time: number; // epoch ms, start of the fetch
  status: number; // 0 when no HTTP response
  headers?: [string, string][];
  durationMs: number;
  bytes: number;
  mediaType?: string;
  /** sha1 of the payload, base32, as WARC-Payload-Digest */
  checksum?: string;
  graphHash?: string;
  change: ChangeState;
  error?: string;
  /** Why the URL met this fate, in the crawl's reason vocabulary (src/crawler/reasons.ts); absent in rows older than the column. */
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

export interface MetadataStore {
  /** Creates tables / runs migrations. */
  init(): Promise<void>;
  close(): Promise<void>;

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
  /** Every known URL (to warm the seen test when a crawl resumes). */
  allDocumentUrls(): Promise<string[]>;

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
  /** Every log entry, oldest first, optionally since an id (for export and the dashboard). */
  log(opts?: { sinceId?: number; limit?: number; url?: string }): Promise<CrawlLogEntry[]>;

  // The server's reads of the log (src/store/log-reads.ts): aggregates and limited lists, never the whole log.
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

  getHost(host: string): Promise<HostRow | undefined>;
  putHost(row: HostRow): Promise<void>;

  startCycle(row: Omit<CycleRow, 'id'>): Promise<number>;
  finishCycle(id: number, patch: Partial<CycleRow>): Promise<void>;
  cycles(): Promise<CycleRow[]>;

  /** Makes every write so far durable (writes may be batched into transactions until then). */
  flush(): Promise<void>;
  /** Largest end offset (offset + length) of any record the log points to in a WARC file. */
  warcEnd(file: string): Promise<number>;
}
