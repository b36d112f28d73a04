import type { ReleaseOutcome } from './politeness.ts';

export interface FrontierEntry {
  url: string;
  host: string;
  depth: number;
  /** Lower is fetched first among equals (discovery order). */
  key: number;
  /** Reached through a vocabulary link: fetched whatever the depth. */
  vocabulary?: boolean;
  /** Times this URL was put back after a Retry-After or a deferred robots.txt. */
  retries?: number;
  /** Redirects that led here from a URL found otherwise (0 or absent: none), to bound redirect chains. */
  hops?: number;
}

/** What the crawler needs of a frontier: URLs in, the best URL of a host that may be fetched now out. */
export interface Frontier {
  readonly size: number;
  readonly hostCount: number;
  push(entry: FrontierEntry): void;
  /** The next entry whose host may be fetched at `now`, marking the host busy. */
  pop(now: number): FrontierEntry | undefined;
  /** When a host becomes ready next (0: now; undefined: nothing queued or all hosts busy). */
  nextReadyAt(): number | undefined;
  release(host: string, now: number, outcome: ReleaseOutcome): void;
  setDelay(host: string, delayMs: number): void;
  failures(host: string): number;
  /** Removes and returns every queued entry of a host. */
  drain(host: string): FrontierEntry[];
  /** Tells an importance ordering what a crawled page links to. */
  onPageCrawled?(page: { url: string; links: { url: string; anchorText?: string; context?: string }[]; text?: string }): void;
}
