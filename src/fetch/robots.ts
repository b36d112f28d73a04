/** robots.txt (RFC 9309): fetched through the Fetcher, matched with robots-parser, cached per origin. */
import { createRequire } from 'node:module';
import { ROBOTS_ACCEPT, userAgentToken } from './accept.ts';
import { hostOf } from '../frontier/normalize.ts';
import type { FetchOutcome, Fetcher } from './types.ts';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS whose typings NodeNext misreads as a namespace: load the function directly.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robot;

/**
 * What robots.txt says of a URL. `deferUntil`: its robots.txt could not be had (5xx, 429, timeout)
 * and is tried again then; `unavailable`: it still could not be had after `retries` tries, so the
 * origin's URLs are given up (`robots-unavailable`) until the error TTL ends.
 */
export type RobotsVerdict =
  | { allowed: boolean; crawlDelayMs?: number }
  | { deferUntil: Date; reason: string }
  | { unavailable: true; reason: string };

export const ROBOTS_DEFAULTS = {
  /**
   * Tries after the first failure before the origin's robots.txt counts as unavailable. Nutch defers
   * 5 min and gives up after 3 tries; Heritrix retries a prerequisite a bounded number of times too.
   * Ours waits 30 s, 60 s, 120 s: a server that is merely restarting gets 3.5 minutes, and an origin
   * that is gone holds none of the crawl's other origins and its own URLs for no longer than that.
   */
  retries: 3,
  retryDelayMs: 30_000,
  /** Longest wait between tries, whatever Retry-After asks (the crawl passes its maxWaitMs, 1 h by default too). */
  maxWaitMs: 60 * 60_000,
} as const;

export interface RobotsOptions {
  /** Our User-Agent; its product token (`datamonitor`) selects the robots.txt group. */
  userAgent: string;
  /** Crawl-delay above this is cut to it (default 30 s). */
  maxCrawlDelayMs?: number;
  /** How long a fetched robots.txt (or a 4xx answer: allow-all) is trusted (default 24 h). */
  successTtlMs?: number;
  /**
   * How long an unusable answer (redirect trouble, undecodable body) counts as allow-all, and how long
   * an origin whose robots.txt stayed unavailable after its retries keeps that verdict (default 1 h).
   */
  errorTtlMs?: number;
  /** Tries after a 5xx, 429, timeout or network error before the verdict is `unavailable` (default 3). */
  retries?: number;
  /** Wait before the first of those tries, doubling for each next one (default 30 s). */
  retryDelayMs?: number;
  /** Longest wait between tries; a longer Retry-After is cut to it (default 1 h). */
  maxWaitMs?: number;
  /** robots.txt bytes parsed at most (RFC 9309 asks for at least 500 KiB; default 500 KiB). */
  maxBytes?: number;
  /** Called after each robots.txt fetch, e.g. to store it with the host (status 0: no HTTP answer). */
  onFetched?: (host: string, status: number, text: string) => void;
  /**
   * At most `maxOrigins` origins' answers in memory, the least recently asked leaving for `store` (and read back from
   * there when asked again): a crawl of many hosts keeps what it knows of each without holding it all (default: all in memory).
   */
  memory?: { maxOrigins: number; store: RobotsStore };
  /** Clock, for tests of the expiry. */
  now?: () => number;
}

/** Where robots.txt answers out of memory wait (a bounded frontier's spill): a RobotsRecord's JSON by origin. */
export interface RobotsStore {
  robots(origin: string): string | undefined;
  setRobots(origin: string, record: string): void;
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
  /** Set while the origin is deferred (its robots.txt is tried again then). */
  deferUntil?: Date;
  /** Set when robots.txt could not be had after its retries: the origin's URLs are given up until `expiresAt`. */
  unavailable?: boolean;
  reason?: string;
}

interface Entry {
  record: RobotsRecord;
  robot?: Robot;
}

const HOUR = 3_600_000;

/**
 * Whether a robots.txt answer of this status says nothing of the policy yet: the server is overloaded or
 * failing (RFC 9309 §2.3.1.4: 5xx, and 429 as Google reads it), so the origin is deferred and asked again.
 * Any other status is a policy (a 4xx: allow all, §2.3.1.3).
 */
export function robotsDeferred(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * Errors after which no page of the origin can be fetched either (a name that does not resolve, a
 * port that refuses, a TLS handshake that fails, an address we refuse; not a reset): the page fetch is let through
 * to fail at once with its own reason, and the origin's failure count ends it, instead of deferring the
 * origin for minutes. Strings, so a fetcher that knows more codes (e.g. 'tls') plugs in unchanged.
 */
const NO_SERVICE: ReadonlySet<string> = new Set(['blocked-address', 'bad-url', 'aborted', 'dns', 'connect', 'tls']);

/**
 * Whether a robots.txt request failed as no page of its origin could be fetched either (NO_SERVICE; a
 * connection reset is not one: the next request may well be answered). Such an origin has no answer to
 * keep, so its failures must count against it as its pages' do; the other failures the cache defers and
 * retries itself.
 */
export function robotsNoService(outcome: FetchOutcome): boolean {
  const code = outcome.response ? '' : (outcome.error?.code ?? '');
  return NO_SERVICE.has(code) && !(code === 'connect' && outcome.error?.network === 'reset');
}

export class RobotsCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry>>();
  /** robots.txt fetches the crawl's frontier makes (`prerequisite`), settled by `settle`. */
  private readonly awaited = new Map<string, (entry: Entry) => void>();
  /**
   * Origins whose robots.txt answer could not be kept (a refused address, a name that does not resolve):
   * their next check lets the URL through, once, for its fetch to fail with its own reason.
   */
  private readonly letThrough = new Set<string>();
  private readonly token: string;
  private readonly maxCrawlDelayMs: number;
  private readonly successTtlMs: number;
  private readonly errorTtlMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  private readonly maxWaitMs: number;
  /** Consecutive failed robots.txt fetches per origin; cleared by an answer or by the unavailable verdict. */
  private readonly failures = new Map<string, number>();
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(private readonly fetcher: Fetcher, private readonly options: RobotsOptions) {
    this.token = userAgentToken(options.userAgent);
    this.maxCrawlDelayMs = options.maxCrawlDelayMs ?? 30_000;
    this.successTtlMs = options.successTtlMs ?? 24 * HOUR;
    this.errorTtlMs = options.errorTtlMs ?? HOUR;
    this.retries = options.retries ?? ROBOTS_DEFAULTS.retries;
    this.retryDelayMs = options.retryDelayMs ?? ROBOTS_DEFAULTS.retryDelayMs;
    this.maxWaitMs = options.maxWaitMs ?? ROBOTS_DEFAULTS.maxWaitMs;
    this.maxBytes = options.maxBytes ?? 500 * 1024;
    this.now = options.now ?? Date.now;
  }

  /**
   * May `url` be fetched? Fetches the origin's robots.txt when it is not cached. A deferral means:
   * ask again after `deferUntil`; `unavailable`: give the URL up.
   */
  async check(url: string): Promise<RobotsVerdict> {
    const parsed = parseTarget(url);
    if (!parsed) return { allowed: true };
    if (this.letThrough.delete(parsed.origin)) return { allowed: true };
    return verdictOf(await this.entryFor(parsed.origin), parsed.href, this.token);
  }

  /**
   * The robots.txt URL to fetch before `url` when its origin's robots.txt is not known or has expired and
   * no fetch of it is under way (Heritrix's PreconditionEnforcer): the caller fetches it through its own
   * politeness and hands the answer to `settle`; checks of the origin meanwhile wait for that answer.
   */
  prerequisite(url: string): string | undefined {
    const parsed = parseTarget(url);
    if (!parsed) return undefined;
    const origin = parsed.origin;
    if (this.letThrough.has(origin) || this.pending.has(origin)) return undefined;
    const cached = this.entries.get(origin);
    if (cached && cached.record.expiresAt.getTime() > this.now()) return undefined;
    const answered = new Promise<Entry>((resolve) => this.awaited.set(origin, resolve)).finally(() => this.pending.delete(origin));
    this.pending.set(origin, answered);
    return `${origin}/robots.txt`;
  }

  /** The answer to a robots.txt fetch `prerequisite` asked for (an outcome without a response: none came). */
  settle(robotsUrl: string, outcome: FetchOutcome): void {
    const origin = new URL(robotsUrl).origin;
    const resolve = this.awaited.get(origin);
    if (!resolve) return;
    this.awaited.delete(origin);
    const entry = this.keep(origin, robotsUrl, outcome);
    if (this.entries.get(origin) !== entry) this.letThrough.add(origin);
    resolve(entry);
  }

  /**
   * The verdict for `url` if its origin's robots.txt is cached and fresh, else undefined: lets the
   * frontier drop disallowed URLs before they take a politeness slot, without waiting on a fetch.
   */
  peek(url: string): RobotsVerdict | undefined {
    const parsed = parseTarget(url);
    if (!parsed) return { allowed: true };
    const cached = this.cached(parsed.origin);
    if (!cached || cached.record.expiresAt.getTime() <= this.now()) return undefined;
    return verdictOf(cached, parsed.href, this.token);
  }

  /** The sitemaps the cached robots.txt of `url`'s origin names (`Sitemap:` lines); none when it is not cached. */
  sitemaps(url: string): string[] {
    try {
      return this.entries.get(new URL(url).origin)?.robot?.getSitemaps() ?? [];
    } catch {
      return [];
    }
  }

  /** The cached robots.txt state of the origin of `url` (scheme://host:port), if any. */
  get(url: string): RobotsRecord | undefined {
    try {
      return this.cached(new URL(url).origin)?.record;
    } catch {
      return undefined;
    }
  }

  /** The origin's answer, from memory or from the store (then back in memory), fresh or not. */
  private cached(origin: string): Entry | undefined {
    const e = this.entries.get(origin);
    if (e) {
      if (this.options.memory) {
        // The most recently asked last: the first to leave is the one asked longest ago.
        this.entries.delete(origin);
        this.entries.set(origin, e);
      }
      return e;
    }
    const stored = this.options.memory?.store.robots(origin);
    if (stored === undefined) return undefined;
    const record = JSON.parse(stored, (k, v) => (k === 'fetchedAt' || k === 'expiresAt' || k === 'deferUntil' ? new Date(v) : v)) as RobotsRecord;
    // Only a robots.txt that was had has text; an empty one allows all, as no robot does.
    const entry: Entry = record.text ? { record, robot: robotsParser(`${origin}/robots.txt`, record.text) } : { record };
    this.remember(origin, entry);
    return entry;
  }

  private remember(origin: string, entry: Entry): void {
    this.entries.delete(origin); // a fresh answer is the most recently asked too
    this.entries.set(origin, entry);
    const memory = this.options.memory;
    if (!memory) return;
    for (const [o, e] of this.entries) {
      if (this.entries.size <= memory.maxOrigins) break;
      this.entries.delete(o);
      memory.store.setRobots(o, JSON.stringify(e.record));
    }
  }

  private entryFor(origin: string): Promise<Entry> {
    const cached = this.cached(origin);
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
    return this.keep(origin, robotsUrl, await this.fetcher.fetch(robotsUrl, undefined, undefined, { accept: ROBOTS_ACCEPT }));
  }

  private keep(origin: string, robotsUrl: string, outcome: FetchOutcome): Entry {
    const entry = this.interpret(origin, robotsUrl, outcome);
    // A blocked or invalid target is not cached: the page fetch reports the reason itself.
    if (entry.record.expiresAt.getTime() > entry.record.fetchedAt.getTime()) this.remember(origin, entry);
    this.options.onFetched?.(hostOf(origin), entry.record.status, entry.record.text);
    return entry;
  }

  private interpret(origin: string, robotsUrl: string, outcome: FetchOutcome): Entry {
    const now = this.now();
    const base = { origin, fetchedAt: new Date(now) };
    const expiring = (ttl: number) => new Date(now + ttl);
    // Only the origin's own robots.txt trouble counts: each failure waits longer, and after `retries`
    // tries the origin is given up for the error TTL instead of deferring its URLs again and again.
    const defer = (status: number, reason: string, retryAfter?: Date): Entry => {
      const failures = (this.failures.get(origin) ?? 0) + 1;
      if (failures > this.retries) {
        this.failures.delete(origin);
        const why = `${reason} (${failures} tries)`;
        return { record: { ...base, status, text: '', expiresAt: expiring(this.errorTtlMs), unavailable: true, reason: why } };
      }
      this.failures.set(origin, failures);
      const asked = retryAfter?.getTime();
      const backoff = this.retryDelayMs * 2 ** (failures - 1);
      const waitMs = Math.min(this.maxWaitMs, Math.max(backoff, asked !== undefined && Number.isFinite(asked) ? asked - now : 0));
      const until = new Date(now + waitMs);
      return { record: { ...base, status, text: '', expiresAt: until, deferUntil: until, reason } };
    };
    const allowAll = (status: number, ttl: number): Entry => ({ record: { ...base, status, text: '', expiresAt: expiring(ttl) } });

    const { response, error } = outcome;
    if (response && !robotsDeferred(response.status)) this.failures.delete(origin);
    if (!response) {
      const code: string = error?.code ?? '';
      if (code === 'too-many-redirects' || code === 'redirect-loop') {
        this.failures.delete(origin);
        return allowAll(0, this.errorTtlMs); // RFC 9309 2.3.1.2: may be treated as unavailable
      }
      // A connection reset or closed mid-exchange is not a port that refuses: the next request may well
      // be answered, and letting the page through would fetch it without the rules. Deferred like a timeout.
      if (robotsNoService(outcome)) {
        this.failures.delete(origin);
        return allowAll(0, 0);
      }
      return defer(0, `robots.txt of ${origin} not reachable: ${error?.message ?? 'unknown error'}`);
    }
    const status = response.status;
    if (robotsDeferred(status)) {
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

/** The URL as robots.txt sees it, or undefined when robots.txt has no say (not http(s), bad, robots.txt itself). */
function parseTarget(url: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined; // the fetcher reports the bad URL itself
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  if (parsed.pathname === '/robots.txt') return undefined;
  return parsed;
}

function verdictOf({ record, robot }: Entry, href: string, token: string): RobotsVerdict {
  if (record.unavailable) return { unavailable: true, reason: record.reason ?? 'robots.txt unavailable' };
  if (record.deferUntil) return { deferUntil: record.deferUntil, reason: record.reason ?? 'robots.txt unavailable' };
  const allowed = robot ? robot.isAllowed(href, token) !== false : true;
  return record.crawlDelayMs !== undefined ? { allowed, crawlDelayMs: record.crawlDelayMs } : { allowed };
}
