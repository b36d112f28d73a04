import type { Fetcher, FetchOutcome, FetchResponse } from '../fetch/types.ts';
import type { RobotsVerdict } from '../fetch/robots.ts';
import type { ArchiveWriter } from '../archive/warc-writer.ts';
import type { CrawlLog } from '../store/types.ts';
import { archiveSideFetch, type Politeness } from './prerequisites.ts';
import { normalizeUrl, originOf } from '../frontier/normalize.ts';
import { type HeaderPair, redirectTarget } from '../util/headers.ts';

/**
 * Remote JSON-LD contexts, fetched the way documents are: robots.txt obeyed, each fetch in its origin's
 * politeness turn, bounded per origin (one host's fan-out of contexts cannot starve the others, and no
 * crawl-wide cap silently empties documents of other hosts), size-capped, transient failures retried
 * with back-off and forgotten after it, and every response archived (WARC response record and a crawl-log
 * row) so that an import of the crawl's WARC files can expand the same documents offline.
 *
 * Loops and fan-out inside one document are bounded by the JSON-LD parser's own checks
 * (jsonld-context-parser: RECURSIVE_CONTEXT_INCLUSION, CONTEXT_OVERFLOW) and by src/extract/jsonld.ts
 * (distinct contexts and loads per document); this loader bounds what a crawl spends on them.
 */

/** What a document's parse calls for a context URL (src/extract/types.ts `loadDocument`). */
export type LoadDocument = (url: string) => Promise<unknown>;

/** One request at a time per origin, each `delayMs` (or the robots.txt Crawl-delay) after the previous one ended. */
export class OriginSpacing implements Politeness {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly readyAt = new Map<string, number>();

  constructor(private readonly delayMs: number) {}

  turn(origin: string, minDelayMs = 0): Promise<(sentAt?: number) => void> {
    const before = this.tails.get(origin) ?? Promise.resolve();
    let done!: () => void;
    const ended = new Promise<void>((resolve) => (done = resolve));
    const tail = before.then(() => ended);
    this.tails.set(origin, tail);
    return before.then(async () => {
      const wait = (this.readyAt.get(origin) ?? 0) - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.readyAt.set(origin, Date.now() + Math.max(this.delayMs, minDelayMs));
        if (this.tails.get(origin) === tail) this.tails.delete(origin);
        done();
      };
    });
  }
}

export const CONTEXT_LIMITS = {
  /** Distinct contexts fetched per origin in one crawl: past it, documents needing more get a diagnostic. */
  maxPerOrigin: 50,
  /** A context larger than this is refused (too-large); real ones are kilobytes, schema.org's is ~150 KB. */
  maxBytes: 2 * 1024 * 1024,
  /** Tries of one load before it fails (transient failures only: 5xx, 429, network, timeouts). */
  attempts: 3,
  /** Back-off before the second try; doubled for each further one. */
  retryBaseMs: 1_000,
  /** How long a failed context is not asked again (documents meanwhile fail fast); doubled per failed round. */
  failureTtlMs: 60_000,
  /**
   * The longest wait before a retry inside one load: the document's parse holds a crawl slot meanwhile.
   * A longer one (Retry-After, a robots.txt deferral) fails the load now and is remembered until then.
   */
  maxInlineWaitMs: 10_000,
  /** The longest any failure is remembered (Retry-After included). */
  maxWaitMs: 3_600_000,
};

export interface ContextLoaderOptions {
  fetcher: Fetcher;
  robots?: { check(url: string): Promise<RobotsVerdict> };
  /** Default: `OriginSpacing(delayMs)`. */
  politeness?: Politeness;
  delayMs?: number;
  /** Where each response is archived (both, or neither for a loader that archives nothing). */
  warc?: ArchiveWriter;
  store?: CrawlLog;
  cycleId?: number;
  limits?: Partial<typeof CONTEXT_LIMITS>;
  signal?: AbortSignal;
}

export const CONTEXT_DIAGNOSTIC = 'info: JSON-LD context, fetched for a document (not a document of the crawl)';

class ContextError extends Error {
  readonly retryAfterMs?: number;
  constructor(message: string, readonly transient: boolean, retryAfterMs?: number) {
    super(message);
    // A server's wait is data: an unreadable or negative one is no wait at all.
    if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0) this.retryAfterMs = retryAfterMs;
  }
}

interface Failure {
  error: Error;
  until: number;
  rounds: number;
}

export class ContextLoader {
  private readonly limits: typeof CONTEXT_LIMITS;
  private readonly politeness: Politeness;
  private readonly loaded = new Map<string, Promise<unknown>>();
  private readonly failed = new Map<string, Failure>();
  private readonly perOrigin = new Map<string, Set<string>>();

  constructor(private readonly o: ContextLoaderOptions) {
    this.limits = { ...CONTEXT_LIMITS, ...o.limits };
    this.politeness = o.politeness ?? new OriginSpacing(o.delayMs ?? 0);
  }

  /** The `loadDocument` a document's parse is given. */
  readonly load: LoadDocument = (raw: string): Promise<unknown> => {
    const url = normalizeUrl(raw);
    if (!url) return Promise.reject(new Error(`context ${raw}: not an http(s) URL`));
    const failure = this.failed.get(url);
    if (failure && Date.now() < failure.until) {
      return Promise.reject(new Error(`${failure.error.message} (not asked again before ${new Date(failure.until).toISOString()})`));
    }
    const cached = this.loaded.get(url);
    if (cached) return cached;
    const origin = originOf(url);
    let urls = this.perOrigin.get(origin);
    if (!urls) this.perOrigin.set(origin, (urls = new Set()));
    if (!urls.has(url) && urls.size >= this.limits.maxPerOrigin) {
      return Promise.reject(new Error(`context ${url}: more than ${this.limits.maxPerOrigin} distinct JSON-LD contexts from ${origin} in this crawl: not loaded`));
    }
    urls.add(url);
    const p = this.fetchWithRetries(url, origin, failure?.rounds ?? 0);
    this.loaded.set(url, p);
    // A failure is remembered for a while, not for the crawl: the next document after it tries again.
    p.catch(() => {
      if (this.loaded.get(url) === p) this.loaded.delete(url);
    });
    return p;
  };

  private async fetchWithRetries(url: string, origin: string, rounds: number): Promise<unknown> {
    let last: ContextError | undefined;
    for (let attempt = 1; attempt <= this.limits.attempts; attempt++) {
      if (this.o.signal?.aborted) break;
      try {
        const document = await this.fetchOnce(url, origin);
        this.failed.delete(url);
        return document;
      } catch (e) {
        last = e instanceof ContextError ? e : new ContextError(`context ${url}: ${(e as Error).message}`, false);
        if (!last.transient || attempt === this.limits.attempts) break;
        const backOff = Math.max(this.limits.retryBaseMs * 2 ** (attempt - 1), last.retryAfterMs ?? 0);
        if (backOff > this.limits.maxInlineWaitMs) break;
        await new Promise((r) => setTimeout(r, backOff));
      }
    }
    const error = last ?? new ContextError(`context ${url}: the crawl stopped`, true);
    const ttl = Math.min(this.limits.maxWaitMs, Math.max(this.limits.failureTtlMs * 2 ** rounds, error.retryAfterMs ?? 0));
    this.failed.set(url, { error, until: Date.now() + ttl, rounds: rounds + 1 });
    throw error;
  }

  private async fetchOnce(url: string, origin: string): Promise<unknown> {
    let crawlDelayMs: number | undefined;
    if (this.o.robots) {
      const verdict = await this.o.robots.check(url);
      if ('deferUntil' in verdict) {
        throw new ContextError(`context ${url}: robots.txt of ${origin} unavailable (${verdict.reason})`, true, verdict.deferUntil.getTime() - Date.now());
      }
      if ('unavailable' in verdict) throw new ContextError(`context ${url}: robots.txt of ${origin} unavailable (${verdict.reason})`, false);
      if (!verdict.allowed) throw new ContextError(`context ${url}: robots.txt disallows it`, false);
      crawlDelayMs = verdict.crawlDelayMs;
    }
    const release = await this.politeness.turn(origin, crawlDelayMs);
    let outcome: FetchOutcome | undefined;
    try {
      outcome = await this.o.fetcher.fetch(url, undefined, this.o.signal);
    } finally {
      release(outcome?.sentAt);
    }
    const r = outcome.response;
    if (!r) {
      const code = outcome.error?.code ?? 'error';
      const permanent = ['blocked-address', 'bad-url', 'redirect-loop', 'too-many-redirects', 'robots'].includes(code);
      throw new ContextError(`context ${url}: ${code}: ${outcome.error?.message ?? 'no response'}`, !permanent);
    }
    const problem = this.problemOf(r);
    await this.archive(url, r, problem);
    if (problem) {
      const retryAfterMs = outcome.retryAfter ? outcome.retryAfter.getTime() - Date.now() : undefined;
      throw new ContextError(`context ${url}: ${problem}`, r.status >= 500 || r.status === 429, retryAfterMs);
    }
    try {
      return JSON.parse(r.body.toString('utf8'));
    } catch (e) {
      throw new ContextError(`context ${url}: not JSON (${(e as Error).message})`, false);
    }
  }

  private problemOf(r: FetchResponse): string | undefined {
    if (r.status !== 200) return `HTTP ${r.status}`;
    if (r.truncated || r.body.length > this.limits.maxBytes) return `too-large: the context is larger than ${this.limits.maxBytes} bytes: refused`;
    return undefined;
  }

  /** A context's exchange is part of the crawl's record: a WARC response record and a crawl-log row. */
  private async archive(url: string, r: FetchResponse, problem: string | undefined): Promise<void> {
    if (this.o.warc && this.o.store) await archiveSideFetch({ warc: this.o.warc, store: this.o.store, cycleId: this.o.cycleId }, url, r, problem, CONTEXT_DIAGNOSTIC, 'context');
  }
}

/**
 * The contexts an import found in its WARC files, by URL: documents are expanded offline with them, as
 * the crawl that wrote the files expanded them online. A context the files do not hold fails the
 * document's parse with a diagnostic, as before.
 */
export class ArchivedContexts {
  private readonly bodies = new Map<string, Buffer>();
  /** Archived redirect hops (url → Location): a context asked for at one URL may have been served at another. */
  private readonly redirects = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxTotalBytes = 256 * 1024 * 1024, private readonly maxBytes = CONTEXT_LIMITS.maxBytes) {}

  /** Offers a response record (its target URI, status, media type, decoded body); keeps what could be a context. */
  offer(url: string, status: number, mediaType: string, body: Buffer): void {
    if (status !== 200 || !/json/.test(mediaType) || body.length > this.maxBytes) return;
    if (this.bytes + body.length > this.maxTotalBytes) return;
    const trimmed = body.subarray(0, 64).toString('utf8').trimStart();
    if (!trimmed.startsWith('{')) return;
    const old = this.bodies.get(url);
    this.bytes += body.length - (old?.length ?? 0);
    this.bodies.set(url, body); // the latest capture of a URL wins, as a crawl would fetch it now
  }

  /** Offers a redirect record: its target is looked at when a context is asked for at `url`. */
  offerRedirect(url: string, status: number, headers: readonly HeaderPair[]): void {
    const to = redirectTarget(status, headers, url)?.url;
    const target = to && normalizeUrl(to.href);
    if (target) this.redirects.set(url, target);
  }

  get size(): number {
    return this.bodies.size;
  }

  readonly load: LoadDocument = async (raw: string): Promise<unknown> => {
    let url = normalizeUrl(raw) ?? raw;
    // As many hops as the crawl's fetcher follows; a loop ends here too.
    for (let hops = 0; !this.bodies.has(url) && this.redirects.has(url) && hops < 5; hops++) url = this.redirects.get(url)!;
    const body = this.bodies.get(url);
    if (!body) throw new Error(`remote JSON-LD context ${raw} is not in the imported WARC files (an import fetches nothing)`);
    return JSON.parse(body.toString('utf8'));
  };
}
