import type { ArchiveWriter } from '../archive/warc-writer.ts';
import { extract } from '../extract/registry.ts';
import type { RobotsVerdict } from '../fetch/robots.ts';
import type { Fetcher, FetchOutcome } from '../fetch/types.ts';
import { hostnameOf, normalizeUrl, originOf } from '../frontier/normalize.ts';
import type { CrawlLog } from '../store/types.ts';
import type { DetachedProofDocument } from '../trust/proof.ts';
import { archiveSideFetch, type Politeness } from './prerequisites.ts';

/**
 * Detached Data Integrity proofs (`crawl --trust`): a document may keep its proof in a document of
 * its own, linked by `Link: <P>; rel="https://w3id.org/security#proof"` or a `<doc> sec:proof <P>`
 * statement (src/trust/README.md). The proof document is fetched the way a JSON-LD context is
 * (src/crawler/contexts.ts): robots.txt obeyed, in its origin's politeness turn and, on the document's
 * own host, not before the crawl's delay after the document's response; the frontier then spaces its
 * next request to that host from this one. Size-capped, archived (WARC record and a crawl-log row),
 * parsed by the crawler's extractors. One try: a proof that cannot be had is a recorded verdict
 * (`proof-unavailable`) with its reason, never a crawl failure; the next capture of the document asks again.
 */

export const PROOF_DOCUMENT_DIAGNOSTIC = 'info: detached Data Integrity proof, fetched for a document (not a document of the crawl)';

export const PROOF_DOCUMENT_LIMITS = {
  /** A proof is about a kilobyte; a proof document with a handful of them is far below this. */
  maxBytes: 256 * 1024,
  /** Statements parsed from one proof document. */
  maxQuads: 10_000,
};

export interface ProofLoaderOptions {
  fetcher: Fetcher;
  robots?: { check(url: string): Promise<RobotsVerdict> };
  politeness: Politeness;
  /** The crawl's delay between two requests to one host. */
  delayMs: number;
  warc?: ArchiveWriter;
  store?: CrawlLog;
  cycleId?: number;
  /** Remote JSON-LD contexts of a JSON-LD proof document (the crawl's ContextLoader). */
  loadDocument?: (url: string) => Promise<unknown>;
  signal?: AbortSignal;
  limits?: Partial<typeof PROOF_DOCUMENT_LIMITS>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class ProofDocumentLoader {
  private readonly limits: typeof PROOF_DOCUMENT_LIMITS;

  constructor(private readonly o: ProofLoaderOptions) {
    this.limits = { ...PROOF_DOCUMENT_LIMITS, ...o.limits };
  }

  /**
   * The detached proof at `url` of the document fetched from `documentUrl`, whose response ended at
   * `documentEndedAt` (epoch ms): on the document's host the proof waits the delay after that end (the
   * frontier spaces request starts; a server sees a start later than we do, but never before our end).
   */
  async load(raw: string, documentUrl: string, documentEndedAt: number): Promise<DetachedProofDocument> {
    const url = normalizeUrl(raw);
    if (!url) return { error: 'not an http(s) URL' };
    const origin = originOf(url);
    let crawlDelayMs = 0;
    if (this.o.robots) {
      const verdict = await this.o.robots.check(url);
      if ('deferUntil' in verdict || 'unavailable' in verdict) return { error: `robots.txt of ${origin} unavailable (${verdict.reason})` };
      if (!verdict.allowed) return { error: 'robots.txt disallows it' };
      crawlDelayMs = verdict.crawlDelayMs ?? 0;
    }
    if (this.o.signal?.aborted) return { error: 'the crawl stopped' };
    if (hostnameOf(url) === hostnameOf(documentUrl)) {
      const wait = documentEndedAt + Math.max(this.o.delayMs, crawlDelayMs) - Date.now();
      if (wait > 0) await sleep(wait);
    }
    let release: (sentAt?: number) => void;
    try {
      release = await this.o.politeness.turn(origin, crawlDelayMs);
    } catch (e) {
      return { error: (e as Error).message };
    }
    let outcome: FetchOutcome | undefined;
    try {
      outcome = await this.o.fetcher.fetch(url, undefined, this.o.signal);
    } finally {
      release(outcome?.sentAt);
    }
    const r = outcome.response;
    if (!r) return { error: `${outcome.error?.code ?? 'error'}: ${outcome.error?.message ?? 'no response'}` };
    const problem = r.status !== 200 ? `HTTP ${r.status}`
      : r.truncated || r.body.length > this.limits.maxBytes ? `too-large: larger than ${this.limits.maxBytes} bytes, not read (a proof document is a few kilobytes)` : undefined;
    if (this.o.warc && this.o.store) await archiveSideFetch({ warc: this.o.warc, store: this.o.store, cycleId: this.o.cycleId }, url, r, problem, PROOF_DOCUMENT_DIAGNOSTIC, 'proof');
    if (problem) return { error: problem };
    const result = await extract({ url: r.finalUrl, mediaType: r.mediaType, charset: r.charset, body: r.body, headers: {} }, { maxQuads: this.limits.maxQuads, loadDocument: this.o.loadDocument });
    if (result.quads.length === 0) {
      const error = result.diagnostics.find((d) => d.level === 'error');
      return { error: `no RDF read from it (${r.mediaType || 'no media type'}${error ? `: ${error.message.slice(0, 200)}` : ''})` };
    }
    return { quads: result.quads };
  }
}
