import type { DeferredOrigin, ReleaseOutcome } from './politeness.ts';

export interface FrontierEntry {
  url: string;
  /** The store's host column (hostname plus a non-default port). */
  host: string;
  /** scheme://host[:port] (`originOf`): the unit of queues, robots.txt, back-off and failure counts. */
  origin: string;
  depth: number;
  /** Lower is fetched first among equals (discovery order). */
  key: number;
  /** Reached through a vocabulary link: fetched whatever the depth. */
  vocabulary?: boolean;
  /** Times this URL was put back after a Retry-After, a server error or a transient network failure. */
  retries?: number;
  /**
   * A page requisite (--page-requisites): 1 found in a page, 2 in a style sheet that was one. Archived
   * as bytes, not parsed, not followed; only a level-1 style sheet is read for what it loads.
   */
  requisite?: 1 | 2;
  /**
   * The URLs whose redirects led here from a URL found otherwise, oldest first (absent: none): bounds redirect
   * chains and names a loop. Carried by the entry, so it lives as long as the entry is queued: a crawl-long map of
   * redirect targets held one entry per 303 (a million at a million documents).
   */
  via?: readonly string[];
  /** Fetched although the store says it was fetched: a re-crawl's seed, a stale document --answer meets again. */
  refetch?: boolean;
  /**
   * Another representation of a document the crawl fetched (`crawl --variants`, src/crawler/variants/):
   * the set of representations it belongs to, the Accept header to send, and whether it is the
   * document's own URL asked for another media type (negotiated) or an advertised alternate URL, and
   * for an alternate the document's URL (`of`: its capture row names it, src/archive/alternates.ts).
   */
  variant?: { set: number; accept: string; negotiated: boolean; of?: string };
  /**
   * A request the crawl makes for its policy before the URLs of an origin, not a document (Heritrix's
   * prerequisites): the origin's robots.txt, handed out ahead of the URL that needs it, through the same
   * politeness, fetch and archiving. Never stored as a document, never queued in the store.
   */
  prerequisite?: 'robots';
}

/**
 * What the crawler needs of a frontier: URLs in, the best URL of an origin that may be fetched now
 * out. Queues are per origin; the spacing between request starts is per hostname (politeness.ts).
 */
export interface Frontier {
  readonly size: number;
  /** Origins the frontier has seen. */
  readonly hostCount: number;
  push(entry: FrontierEntry): void;
  /**
   * The next entry whose origin may be fetched at `now`, marking the origin busy. Entries for which
   * `reject` returns true (e.g. robots.txt disallows them, known without a request) are removed
   * without using the origin's turn; the caller keeps them to record their fate.
   */
  pop(now: number, reject?: (entry: FrontierEntry) => boolean): FrontierEntry | undefined;
  /** When an origin becomes ready next (0: now; undefined: nothing queued or all origins busy). */
  nextReadyAt(): number | undefined;
  /**
   * Ends a request to `origin`. Returns false when `outcome.notBefore` is refused (not a finite time,
   * or further than the frontier's maxWaitMs): the caller gives the URL up for this crawl (`wait-too-long`).
   */
  release(origin: string, now: number, outcome: ReleaseOutcome): boolean;
  /** Whether the frontier would take a wait until `notBefore` (see release). */
  acceptsWait(notBefore: number, now: number): boolean;
  /** When a request to `origin` really went out: the hostname's next request is spaced from then. */
  noteRequest(origin: string, time: number): void;
  setDelay(origin: string, delayMs: number): void;
  failures(origin: string): number;
  /** The back-off `origin` would get if the request it has in flight failed (politeness.ts): what a retry would wait. */
  backoffAfterFailure(origin: string): number;
  /** Removes and returns every queued entry of an origin. */
  drain(origin: string): FrontierEntry[];
  /** The origins with queued URLs that wait on a back-off or a deferral at `now` (until when, why), soonest first. */
  deferred(now: number): DeferredOrigin[];
  /** Tells an importance ordering what a crawled page links to. */
  onPageCrawled?(page: { url: string; links: { url: string; anchorText?: string; context?: string }[]; text?: string }): void;
}

/**
 * The frontier's clocks as a request beside its entries sees them (a JSON-LD context, a proof, the robots.txt
 * of their origin: src/crawler/prerequisites.ts FrontierClock).
 */
export interface SideClock {
  /**
   * Takes the hostname's next request start for a request that needs no slot of the origin (HostTiming.claim):
   * 0 when taken at `now`, else the time promised to it, when to ask again.
   */
  claim(origin: string, now: number, minDelayMs?: number): number;
  /** When the request really went out: the hostname's next request is spaced from then. */
  noteRequest(origin: string, time: number): void;
}
