/** robots.txt (RFC 9309): fetched through the Fetcher, matched with robots-parser, cached per origin. */
import { createRequire } from 'node:module';
import { userAgentToken } from './accept.ts';
import type { FetchOutcome, Fetcher } from './types.ts';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS whose typings NodeNext misreads as a namespace: load the function directly.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robot;

export type RobotsVerdict = { allowed: boolean; crawlDelayMs?: number } | { deferUntil: Date; reason: string };

export interface RobotsOptions {
  /** Our User-Agent; its product token (`datamonitor`) selects the robots.txt group. */
  userAgent: string;
  /** Crawl-delay above this is cut to it (default 30 s). */
  maxCrawlDelayMs?: number;
  /** How long a fetched robots.txt (or a 4xx answer: allow-all) is trusted (default 24 h). */
  successTtlMs?: number;
  /** How long an unusable answer (redirect trouble, undecodable body) counts as allow-all (default 1 h). */
  errorTtlMs?: number;
  /** How long a host is deferred after a 5xx, 429, timeout or network error (default 5 min). */
  deferMs?: number;
  /** robots.txt bytes parsed at most (RFC 9309 asks for at least 500 KiB; default 500 KiB). */
  maxBytes?: number;
  /** Called after each robots.txt fetch, e.g. to store it with the host (status 0: no HTTP answer). */
  onFetched?: (host: string, status: number, text: string) => void;
  /** Clock, for tests of the expiry. */
  now?: () => number;
}

/** What is known about one origin's robots.txt. */
export interface RobotsRecord {
  origin: string;
  /** HTTP status of the robots.txt answer, 0 when there was none. */
  status: number;
  /** The robots.txt text as parsed (cut at maxBytes), '' when none. */
  text: string;
  fetchedAt: Date;
  expiresAt: Date;
  crawlDelayMs?: number;
  /** Set while the host is deferred. */
  deferUntil?: Date;
  reason?: string;
}

interface Entry {
  record: RobotsRecord;
  robot?: Robot;
}

const HOUR = 3_600_000;

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();
  private readonly token: string;
  private readonly maxCrawlDelayMs: number;
  private readonly successTtlMs: number;
  private readonly errorTtlMs: number;
  private readonly deferMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(private readonly fetcher: Fetcher, private readonly options: RobotsOptions) {
    this.token = userAgentToken(options.userAgent);
    this.maxCrawlDelayMs = options.maxCrawlDelayMs ?? 30_000;
    this.successTtlMs = options.successTtlMs ?? 24 * HOUR;
    this.errorTtlMs = options.errorTtlMs ?? HOUR;
    this.deferMs = options.deferMs ?? 5 * 60_000;
    this.maxBytes = options.maxBytes ?? 500 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** May `url` be fetched? A deferral means: ask again after `deferUntil` (robots.txt unavailable). */
  async check(url: string): Promise<RobotsVerdict> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { allowed: true }; // the fetcher reports the bad URL itself
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { allowed: true };
    if (parsed.pathname === '/robots.txt') return { allowed: true };
    const entry = await this.entryFor(parsed.origin);
    const { record, robot } = entry;
    if (record.deferUntil) return { deferUntil: record.deferUntil, reason: record.reason ?? 'robots.txt unavailable' };
    const allowed = robot ? robot.isAllowed(parsed.href, this.token) !== false : true;
    return record.crawlDelayMs !== undefined ? { allowed, crawlDelayMs: record.crawlDelayMs } : { allowed };
  }

  /** The sitemaps the robots.txt of `url`'s origin names (`Sitemap:` lines); fetches it if needed. */
  async sitemaps(url: string): Promise<string[]> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return [];
    }
    return (await this.entryFor(origin)).robot?.getSitemaps() ?? [];
  }

  /** The cached robots.txt state of the origin of `url` (scheme://host:port), if any. */
  get(url: string): RobotsRecord | undefined {
    try {
      return this.entries.get(new URL(url).origin)?.record;
    } catch {
      return undefined;
    }
  }

  private entryFor(origin: string): Promise<Entry> {
    const cached = this.entries.get(origin);
    if (cached && cached.record.expiresAt.getTime() > this.now()) return Promise.resolve(cached);
    let pending = this.pending.get(origin);
    if (!pending) {
      // One robots.txt fetch per origin at a time: concurrent checks share it.
      pending = this.load(origin).finally(() => this.pending.delete(origin));
      this.pending.set(origin, pending);
    }
    return pending;
  }

  private async load(origin: string): Promise<Entry> {
    const robotsUrl = `${origin}/robots.txt`;
    const outcome = await this.fetcher.fetch(robotsUrl);
    const entry = this.interpret(origin, robotsUrl, outcome);
    // A blocked or invalid target is not cached: the page fetch reports the reason itself.
    if (entry.record.expiresAt.getTime() > entry.record.fetchedAt.getTime()) this.entries.set(origin, entry);
    this.options.onFetched?.(new URL(origin).host, entry.record.status, entry.record.text);
    return entry;
  }

  private interpret(origin: string, robotsUrl: string, outcome: FetchOutcome): Entry {
    const now = this.now();
    const base = { origin, fetchedAt: new Date(now) };
    const expiring = (ttl: number) => new Date(now + ttl);
    const defer = (status: number, reason: string, retryAfter?: Date): Entry => {
      const until = new Date(Math.min(Math.max(now + this.deferMs, retryAfter?.getTime() ?? 0), now + this.successTtlMs));
      return { record: { ...base, status, text: '', expiresAt: until, deferUntil: until, reason } };
    };
    const allowAll = (status: number, ttl: number): Entry => ({ record: { ...base, status, text: '', expiresAt: expiring(ttl) } });

    const { response, error } = outcome;
    if (!response) {
      switch (error?.code) {
        case 'too-many-redirects':
        case 'redirect-loop':
          return allowAll(0, this.errorTtlMs); // RFC 9309 2.3.1.2: may be treated as unavailable
        case 'blocked-address':
        case 'bad-url':
        case 'aborted':
        // A name that does not resolve or a port that refuses: no page can be fetched either, so
        // let the page fetch fail at once with that reason instead of deferring the host for minutes.
        case 'dns':
        case 'connect':
          return allowAll(0, 0);
        default:
          return defer(0, `robots.txt of ${origin} not reachable: ${error?.message ?? 'unknown error'}`);
      }
    }
    const status = response.status;
    if (status === 429 || status >= 500) {
      return defer(status, `robots.txt of ${origin} answered ${status}`, outcome.retryAfter);
    }
    if (status >= 400) return allowAll(status, this.successTtlMs); // RFC 9309 2.3.1.3: unavailable, allow all
    if (status < 200 || status >= 300 || error) return allowAll(status, this.errorTtlMs);

    const text = response.body.subarray(0, this.maxBytes).toString('utf8');
    const robot = robotsParser(robotsUrl, text);
    const delaySeconds = robot.getCrawlDelay(this.token);
    const crawlDelayMs =
      typeof delaySeconds === 'number' && Number.isFinite(delaySeconds) && delaySeconds > 0
        ? Math.min(delaySeconds * 1000, this.maxCrawlDelayMs)
        : undefined;
    return {
      robot,
      record: { ...base, status, text, expiresAt: expiring(this.successTtlMs), ...(crawlDelayMs !== undefined ? { crawlDelayMs } : {}) },
    };
  }
}
