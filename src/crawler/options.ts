import type { Logger } from '../util/log.ts';
import type { AnalysisBudget } from './analyse/pool.ts';
import type { CrawlLog, DocumentStore, HostStore, ReadModel, StoreLifecycle } from '../store/types.ts';
import type { Quad } from '@rdfjs/types';
import type { SeenSet } from '../frontier/seen/index.ts';
import { TIMING_DEFAULTS } from '../frontier/politeness.ts';
import { ROBOTS_DEFAULTS } from '../fetch/robots.ts';
import type { TrustList } from '../trust/multikey.ts';

/**
 * What a crawl uses of the metadata store: its documents, log and hosts, and one read (`fates`: the
 * refused addresses a resume retries). Not cycles or leases: those are its callers' (runCycle, worker).
 */
export type CrawlStore = StoreLifecycle & DocumentStore & CrawlLog & HostStore & Pick<ReadModel, 'fates'>;

/** Everything a crawl can be told; the CLI flags map one to one onto these. */
export interface CrawlOptions {
  seeds: string[];
  /** Data directory: metadata store, WARC files. */
  dataDir: string;
  /** Use this store instead of `<dataDir>/meta.sqlite` (e.g. PostgreSQL). */
  store?: CrawlStore;

  // Filtering conditions (seed 003)
  depth?: number;
  include?: string[];
  exclude?: string[];
  domains?: string[];
  mime?: string[];
  /** Fetch the vocabularies used by the data whatever the depth (default true). */
  vocabularies?: boolean;
  /**
   * Read the seeds' sitemaps (those robots.txt names, else /sitemap.xml) and crawl the URLs they
   * list, as seeds. Sitemaps are archived like any document.
   */
  sitemaps?: boolean;
  /** Sitemaps to read whatever `sitemaps` says (`--sitemap URL`). */
  sitemapUrls?: string[];
  /**
   * Linked Data Event Streams to read (`--ldes URL`, src/crawler/ldes/): their pages are fetched like documents
   * (robots.txt, delays, retries, archived), their tree:relation links followed whatever the depth, and each
   * member archived as a version of the document it is a version of, dated with the member's time.
   */
  ldes?: string[];
  /** Read only the members at or after this time (epoch ms), and skip the nodes whose relations say they hold none (`--ldes-since`). */
  ldesSince?: number;
  /** Told the documents that got members from a stream, once they are archived (a re-crawl cycle defers their schedule to it). */
  onStreamDocuments?: (documents: string[]) => Promise<void> | void;
  /**
   * Also archive what each archived page loads to be shown (`--page-requisites`): images, style sheets
   * (and what they load, one level), scripts, icons, media. Fetched politely like any URL (robots.txt,
   * delays, --exclude) but outside --domain/--include/--depth, once per crawl, never parsed nor followed;
   * each counts as a document for --max-docs.
   */
  pageRequisites?: boolean;
  /**
   * Check each document's W3C Data Integrity proofs against these keys (`--trust keys.txt`,
   * src/trust/): the verdict goes into the document's crawl-log row.
   */
  trust?: TrustList;
  /** Keep and follow only documents verified by a key of `trust` (`--trusted-only`). */
  trustedOnly?: boolean;
  /**
   * Every representation a server offers of each RDF document (`--variants`, src/crawler/variants/): the
   * alternates it advertises (Link: rel="alternate", HTML <link rel="alternate">) and, after `Vary: Accept`,
   * its URL asked for each media type an extractor reads; each fetched politely once, archived, parsed
   * and its graph compared with the document's (a disagreement is a `variant-mismatch` row).
   */
  variants?: boolean;

  // Traffic limits
  maxDocs?: number;
  maxBytes?: number;
  maxTriples?: number;
  maxTimeMs?: number;

  // Politeness and fetching
  delayMs?: number;
  perHost?: number;
  concurrency?: number;
  userAgent?: string;
  contact?: string;
  robots?: boolean;
  allowPrivate?: boolean;
  /** Addresses or CIDR ranges allowed although private (a site of one's own on the LAN), the rest still refused. */
  allowAddresses?: string[];
  proxy?: string;
  /** `host → ip` pairs, like curl's --resolve. */
  resolve?: Record<string, string>;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** Longest wait a server may ask for (Retry-After, robots.txt) before the URL is given up for this crawl (`wait-too-long`). */
  maxWaitMs?: number;
  /** First back-off of an origin after an error, doubling with each further one (never below the delay). */
  backoffBaseMs?: number;
  /** Tries of a robots.txt that times out, 5xx or 429 after the first, before its origin's URLs are given up (`robots-unavailable`). */
  robotsRetries?: number;
  /** Wait before the first robots.txt retry, doubling for each next one. */
  robotsRetryDelayMs?: number;

  /** Frontier ordering (seed 001): bfs (default), backlink, pagerank, location, similarity, random. */
  order?: string;
  /** The driving query of the similarity ordering. */
  query?: string;

  /**
   * Query-driven crawling (src/crawler/follow/): a SPARQL SELECT run over what the crawl has learnt;
   * its IRI bindings are the only URLs followed (depth and filters still apply).
   */
  follow?: string;
  /** The follow/until queries also see the whole archive (its latest versions), not only this crawl's documents. */
  followArchive?: boolean;
  /** A SPARQL ASK: the crawl stops once it is true (`stoppedBy: 'answered'`). */
  until?: string;
  /**
   * Link-traversal querying: a SPARQL SELECT whose IRIs are seeds and whose matching triples' IRIs are
   * the links followed, best first; the summary carries the answer with its documents.
   */
  answer?: string;
  /** When the follow/until queries run: 'auto' (as the knowledge grows by a tenth; default), 'every' document, or every N documents. */
  followBatch?: string | number;
  /** Bindings (--follow) or candidate links (--answer) followed from one document at most (default 1,000; FOLLOW_LIMITS in src/crawler/follow/). */
  followMaxPerDocument?: number;
  /** Bindings or candidate links followed in one crawl at most (default 100,000). */
  followMaxBindings?: number;
  /** Time the follow/until queries may take in one crawl, in all, ms (default 10 min); once spent they run no more. */
  followMaxQueryTimeMs?: number;

  /** Cache policy of the seen-URL set: clock (default), lru, random, static. */
  seenCache?: 'clock' | 'lru' | 'random' | 'static';
  /** Entries in the seen-URL cache (default 262,144). */
  seenCacheSize?: number;
  /**
   * Queued URLs the breadth-first frontier holds in memory (default 500,000); past it an origin's later URLs
   * wait in a spill file under the data directory. `Infinity`: no bound. Importance orderings keep all in memory.
   */
  frontierMemory?: number;
  /** Write every URL the seen test receives to this file (seed 002 traces). */
  traceOut?: string;
  /**
   * Called with each version whose graph changed (an empty quad list: the document is gone). The crawl
   * itself does not index versions: `query`, `diff` and `serve` catch `<dataDir>/versions.sqlite` up
   * from the archive (src/versions/catch-up.ts).
   */
  /** Time and memory budget of one document's analysis on its thread (src/crawler/analyse/pool.ts). */
  analysisBudget?: Partial<AnalysisBudget>;
  onVersion?: (graph: string, time: number, quads: Quad[], canonicalNQuads?: string) => Promise<void> | void;
  /** WARC writing on a thread of its own (default: yes, unless a small fixed batch). */
  threads?: boolean;
  /** Stop the crawl from outside. */
  signal?: AbortSignal;
  /** One line per URL (info; warn when it failed). Default: the process default (src/util/log.ts), silent unless configured. */
  log?: Logger;
  /** Stop taking new URLs when this aborts; fetches in flight finish and are archived (unlike `signal`). */
  drain?: AbortSignal;
  /** Fetch URLs again even when the store says they were fetched (re-crawl cycles). */
  refetch?: boolean;
  /** Follow no links: fetch exactly the seeds (the re-crawl downloader). */
  noFollow?: boolean;
  /** Re-crawl cycle that these fetches belong to. */
  cycleId?: number;
  /** Stop cleanly (URLs left queued) when the data directory's file system has less free space than this. */
  minFreeBytes?: number;
}

/**
 * A crawl as a worker's round runs it (src/worker/): over the part of a shared store this worker
 * leases. Not the crawl's users' to set, so kept out of CrawlOptions and the package's types.
 */
export interface RoundOptions extends CrawlOptions {
  /**
   * Cooperating workers: whether a discovered URL of this host is fetched by this crawl. URLs of
   * other hosts are only written to the (shared) store, for the worker that leases their host.
   */
  queueHost?: (host: string) => boolean;
  /**
   * A worker's round over part of a shared store: start from these queued URLs (its hosts') and use
   * this seen set, both the worker's, instead of reading every URL the store knows, which grows with
   * the store, not with the round. The crawl neither warms nor closes the seen set.
   */
  round?: { queued: Array<{ url: string; host: string; depth: number }>; seen: SeenSet };
}

export const DEFAULTS = {
  depth: 3,
  /** Heritrix pauses a crawl on low disk too; stopping before the disk is full keeps the machine usable. */
  minFreeBytes: 100 * 1024 * 1024,
  delayMs: 1000,
  perHost: 1,
  concurrency: 16,
  timeoutMs: 30_000,
  maxBodyBytes: 10 * 1024 * 1024,
  /**
   * Tries after the first for a 5xx, a Retry-After or a transient network failure (reset, refused,
   * timed out), each after the origin's back-off: Nutch retries 3 times (db.fetch.retry.max), Crawlee
   * 3, Heritrix 30 (15 min apart, a crawl of days).
   */
  maxRetries: 3,
  /**
   * A network failure is not tried again when the origin's back-off before the retry would exceed
   * this: with the default delay the back-offs are 1, 2, 4 s (a URL that always fails costs 7 s of
   * waiting); with a 30 s Crawl-delay 30, 60, 120 s, as long as robots.txt's retries (3.5 min); a
   * longer --delay gets fewer retries rather than a crawl held for many minutes.
   */
  maxRetryBackoffMs: 2 * 60_000,
  /** Consecutive errors after which a host's queue is dropped (Nutch does the same). */
  maxHostFailures: 5,
  /** Crawl-delay cap (Nutch, StormCrawler). */
  maxCrawlDelayMs: 30_000,
  /**
   * Longest wait a server may ask for (Retry-After, a robots.txt deferral). Past it the URL is given up
   * for this crawl (`wait-too-long`) and left queued for a resume or the next cycle: a crawl someone
   * watches should not sit idle for hours, and a 10-year Retry-After must not hold it at all.
   */
  maxWaitMs: TIMING_DEFAULTS.maxWaitMs,
  /** Back-off after an error: max(delay, 1 s), doubling, up to 5 min (Nutch: 5 s doubling), so `--delay 0` still backs off. */
  backoffBaseMs: TIMING_DEFAULTS.backoffBaseMs,
  maxBackoffMs: TIMING_DEFAULTS.maxBackoffMs,
  /**
   * A robots.txt that times out, answers 5xx or 429 is tried 3 more times, 30 s, 60 s and 120 s later
   * (Retry-After honoured up to maxWaitMs), then its origin's URLs fail with `robots-unavailable` for
   * an hour. Nutch defers 5 min with 3 tries and Heritrix retries prerequisites a bounded number of
   * times; ours gives a restarting server 3.5 min without letting one dead origin hold a crawl.
   */
  robotsRetries: ROBOTS_DEFAULTS.retries,
  robotsRetryDelayMs: ROBOTS_DEFAULTS.retryDelayMs,
  /**
   * About 70 MB of live heap (141 bytes a queued URL, bench/RESULTS.md#frontier-memory): a crawl of a few
   * hundred thousand documents never touches the spill; a breadth-first crawl of millions, which queues
   * about 45 % of its URLs at its peak, keeps its heap flat.
   */
  frontierMemory: 500_000,
} as const;
