import type { Quad } from '@rdfjs/types';
import type { FetchOutcome, FetchResponse } from '../fetch/types.ts';
import type { FoundLink, Diagnostic } from '../extract/types.ts';
import type { ChangeState, CrawlLog, DocumentRow } from '../store/types.ts';
import type { ArchiveWriter } from '../archive/warc-writer.ts';
import { sha1Digest } from '../archive/warc-record.ts';
import { alternateLine } from '../archive/alternates.ts';
import type { CanonicalMethod } from '../rdf/canonical.ts';
import type { ExtractInput } from '../extract/types.ts';
import type { Reason } from '../vocabulary/reasons.ts';
import { analyse } from './analyse/analyse.ts';
import { AnalysePool, DEFAULT_BUDGET, type AnalysisBudget, type PoolResult } from './analyse/pool.ts';
import { mimeAccepted } from '../frontier/filters.ts';
import type { Sitemap } from '../extract/sitemap.ts';
import { reasonOfFetchError } from '../fetch/reasons.ts';
import { reasonOfCapture } from './stages/fates.ts';
import { cssRequisites } from '../extract/css.ts';
import { decodeText } from '../extract/charset.ts';
import { SCAN_LIMITS } from '../extract/html/scanner.ts';
import { headerValue } from '../util/headers.ts';
import type { Vetting } from '../trust/vet.ts';

/**
 * One URL through the pipeline after its fetch: extract, decide whether it changed, archive, and
 * log. Shared by one-off crawls and by the re-crawl downloader, so both archive the same way.
 */

export interface CapturedDocument {
  url: string;
  finalUrl?: string;
  status: number;
  mediaType?: string;
  change: ChangeState;
  /** Triples of this version (empty when unchanged bytes were not parsed again, or noindex). */
  quads: Quad[];
  links: FoundLink[];
  diagnostics: Diagnostic[];
  bytes: number;
  error?: string;
  graphHash?: string;
  canonical?: CanonicalMethod;
  seeOther?: { resource: string; document: string };
  robots?: { noindex: boolean; nofollow: boolean };
  title?: string;
  text?: string;
  time: number;
  durationMs: number;
  truncated?: boolean;
  /** The server asked us to come back later (429/503 Retry-After). */
  retryAfter?: number;
  /** A sitemap's URLs and when each last changed (for the crawl's own sitemaps and `--sitemap`). */
  sitemap?: Sitemap;
  /** Why the document has no graph though its bytes were archived (`over-budget`, `internal-error`). */
  reason?: Reason;
  /** What the page loads to be shown (images, style sheets, scripts...): fetched with `--page-requisites`. */
  requisites?: string[];
  /** HTML: where the page's own HTML-as-triples (docs/vocabulary.md) start in `quads`; the author's data comes before. */
  pageQuadsFrom?: number;
  /** The vetting of its graph (`crawl --trust`): the line the crawl log got, and whether its graph was dropped. */
  vetting?: Vetting;
  /** Where its response (or revisit) record was archived: what a record derived from it refers to (a stream member's). */
  record?: { file: string; id: string };
}

/**
 * How a URL came to be captured. A page requisite (`--page-requisites`) is archived as bytes, never
 * parsed for RDF nor read for links; level 1 (found in a page) style sheets are read for what they
 * load (url(), @import), level 2 (found in such a style sheet) is the end of that chain.
 */
export interface CaptureAs {
  requisite?: 1 | 2;
  /** The document this URL is an advertised alternate of (`crawl --variants`): its row says so (src/archive/alternates.ts). */
  alternateOf?: string;
  /**
   * A page of a Linked Data Event Stream (`crawl --ldes`): read for what it says of other documents, as a
   * sitemap is, not the publisher's data. Archived and parsed, compared by its graph, but given no version:
   * its members become versions of their own documents, and a query of the archive sees those, not the pages.
   */
  feed?: boolean;
}

/** The crawl-log line of a requisite whose fetch did not give it (its reason says how it failed). */
export const REQUISITE_DIAGNOSTIC = 'info: page requisite (--page-requisites), not a document of the crawl';

export interface CaptureContext {
  store: CrawlLog;
  warc: ArchiveWriter;
  mime: string[];
  maxQuads: number;
  cycleId?: number;
  loadDocument?: (url: string) => Promise<unknown>;
  /** Find each page's requisites (`CapturedDocument.requisites`) for --page-requisites. */
  requisites?: boolean;
  /** Time and memory a document's analysis may take on its thread (defaults: DEFAULT_BUDGET). */
  analysisBudget?: Partial<AnalysisBudget>;
  onVersion?: (graph: string, time: number, quads: Quad[], canonicalNQuads?: string) => Promise<void> | void;
  /** Vets each parsed graph before it is archived (`crawl --trust`), knowing the response's headers and start. */
  vet?: (url: string, quads: Quad[], response: { headers: FetchResponse['headers']; endedAt: number }) => Promise<Vetting>;
}

/** Response headers as the extractors take them: lower-cased names, repeated ones joined. */
export function headerMap(r: FetchResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of r.headers) {
    const key = k.toLowerCase();
    out[key] = out[key] === undefined ? v : `${out[key]}, ${v}`;
  }
  return out;
}

/**
 * Below this size a document is analysed inline: the thread hop (copying the body, cloning the
 * quads back and making them objects again) costs more than parsing a small page, and the typical
 * page (the crawl bench's are 5 KB) is far below it. Every page on the pool instead took 1.7× the
 * crawler's CPU and ran at 0.6× the pages a second (bench/RESULTS.md, "every page on the analysis pool").
 */
export const INLINE_BELOW_BYTES = 256 * 1024;

/** One pool per budget for the process; idle threads do not keep it alive. */
const pools = new Map<string, AnalysePool>();

/** A document's analysis: inline when it is small, else on a pool thread with the crawl's budget. */
export function analyseDocument(input: ExtractInput, ctx: CaptureContext): Promise<PoolResult> {
  const o = { maxQuads: ctx.maxQuads, loadDocument: ctx.loadDocument, requisites: ctx.requisites };
  if (input.body.length < INLINE_BELOW_BYTES) return analyse(input, o).then((analysis) => ({ analysis }));
  const budget = { ...DEFAULT_BUDGET, ...ctx.analysisBudget };
  const key = JSON.stringify(budget);
  let pool = pools.get(key);
  if (!pool) pools.set(key, pool = new AnalysePool(budget));
  return pool.run(input, o);
}

/**
 * A document row's graph hash once a 404 or 410 deleted the document. Its bytes and graph are then
 * nothing to compare with: the same bytes served again bring the document back, a change and a new
 * version, not an unchanged capture of a document the archive says is gone.
 */
const GONE = 'gone';

/** Did the URL's last captures hold a document: bytes (a checksum) or one deleted since? */
function hadContent(prev: DocumentRow | undefined): boolean {
  return prev?.checksum !== undefined || prev?.graphHash === GONE;
}

export async function capture(url: string, outcome: FetchOutcome, ctx: CaptureContext, prev?: DocumentRow, as: CaptureAs = {}): Promise<CapturedDocument> {
  const time = outcome.response?.startedAt.getTime() ?? Date.now();
  const r = outcome.response;
  if (!r) {
    const error = `${outcome.error?.code ?? 'error'}: ${outcome.error?.message ?? 'no response'}`;
    // A fetch cut short by stopping the crawl is not the URL's failure: it stays queued for a resume.
    const failed = outcome.error?.code !== 'aborted' ? { state: 'failed' as const, lastFetched: time } : {};
    await ctx.store.logFetch({ url, time, status: 0, durationMs: 0, bytes: 0, change: 'error', error, reason: outcome.error ? reasonOfFetchError(outcome.error) : 'internal-error', triples: 0, cycleId: ctx.cycleId }, failed);
    return { url, status: 0, change: 'error', quads: [], links: [], diagnostics: [], bytes: 0, error, time, durationMs: 0 };
  }

  // The capture a revisit refers to: the first (a full response) with the same payload.
  const lastVersion = prev?.checksum ? (await ctx.store.versions(url)).find((v) => v.checksum === prev.checksum) : undefined;
  const payloadDigest = r.notModified && prev?.checksum ? prev.checksum : sha1Digest(r.rawBody);
  const bytesSame = r.notModified || (prev?.checksum !== undefined && prev.checksum === payloadDigest);
  const ok = r.status >= 200 && r.status < 300;
  const doc: CapturedDocument = {
    url, finalUrl: r.finalUrl, status: r.status, mediaType: r.mediaType, change: 'new', quads: [], links: [], diagnostics: [],
    bytes: r.rawBody.length, time, durationMs: r.durationMs, truncated: r.truncated, seeOther: r.seeOther,
    retryAfter: outcome.retryAfter?.getTime(),
  };

  let nquads: string | undefined;
  let graphHash = prev?.graphHash;
  let gone = false;
  if (!ok && !r.notModified) {
    doc.change = 'error';
    doc.error = `HTTP ${r.status}`;
    if (r.status === 304) {
      // RFC 9110 §15.4.5: a 304 answers a conditional request only. To one without validators it says
      // nothing about the document, least of all that it is unchanged.
      doc.reason = 'protocol-error';
      doc.error = 'HTTP 304 Not Modified to a request that sent no validator (If-None-Match, If-Modified-Since): nothing to be unchanged from';
    }
    if (r.status === 404 || r.status === 410) {
      // The document is gone: its graph is empty from now on, and what it was is nothing to compare with.
      if (prev?.graphHash && prev.graphHash !== GONE) await ctx.onVersion?.(r.finalUrl, time, []);
      gone = hadContent(prev);
      graphHash = gone ? GONE : undefined;
    }
  } else if (bytesSame) {
    doc.change = 'unchanged';
  } else if (as.requisite) {
    // Archived for replay, not data: no parse (an SVG image's RDFa is not the crawl's), no links.
    doc.change = hadContent(prev) ? 'changed' : 'new';
    if (as.requisite === 1 && r.mediaType === 'text/css') {
      doc.requisites = cssRequisites(decodeText(r.body, r.charset), r.finalUrl, SCAN_LIMITS.maxRequisites);
    }
  } else if (!mimeAccepted(r.mediaType, ctx.mime)) {
    doc.change = hadContent(prev) ? 'changed' : 'new';
    doc.diagnostics.push({ level: 'warning', message: `media type ${r.mediaType || '(none)'} not accepted by --mime: archived, not parsed` });
  } else {
    const input = { url: r.finalUrl, mediaType: r.mediaType, charset: r.charset, body: r.body, headers: headerMap(r) };
    const done = await analyseDocument(input, ctx);
    if (r.truncated) doc.diagnostics.push({ level: 'warning', message: 'body truncated at the size limit: triples may be missing' });
    if (!('analysis' in done)) {
      // Archived as bytes, with no graph: the last version's graph hash stays the one to compare with.
      doc.change = hadContent(prev) ? 'changed' : 'new';
      doc.reason = 'overBudget' in done ? 'over-budget' : 'internal-error';
      doc.diagnostics.push({ level: 'error', message: 'overBudget' in done ? `over-budget: ${done.overBudget}: archived, not parsed` : `analysis failed: ${done.failed}` });
    } else {
      const a = done.analysis;
      doc.diagnostics = [...a.diagnostics, ...doc.diagnostics];
      doc.robots = a.robots;
      doc.title = a.title;
      // Folded only if read. The analysis's own getter, not one that keeps the analysis (and its
      // canonical N-Quads) alive as long as the document.
      const text = Object.getOwnPropertyDescriptor(a, 'text');
      Object.defineProperty(doc, 'text', { enumerable: true, get: text?.get ?? (() => text?.value) });
      doc.quads = a.quads;
      if (a.pageQuadsFrom !== undefined) doc.pageQuadsFrom = a.pageQuadsFrom;
      doc.links = a.links;
      if (a.requisites) doc.requisites = a.requisites;
      if (ctx.vet) doc.vetting = await ctx.vet(r.finalUrl, a.quads, { headers: r.headers, endedAt: time + r.durationMs });
      if (doc.vetting?.drop) {
        // Not kept: no graph to archive, compare or follow; the last kept version stays the one to compare with.
        doc.change = hadContent(prev) ? 'changed' : 'new';
        doc.quads = [];
        doc.pageQuadsFrom = undefined;
        doc.links = [];
      } else {
        const canon = a.canonical;
        doc.graphHash = canon.hash;
        doc.canonical = canon.method;
        if (canon.method === 'approximate') {
          doc.diagnostics.push({ level: 'warning', message: 'graph too costly to canonicalise within the bound: archived as it is, compared by a blank-node-blind hash (isomorphic changes may be missed)' });
        }
        if (prev?.graphHash === canon.hash) {
          doc.change = 'unchanged'; // new bytes, same graph: a re-serialisation is not a change
        } else {
          doc.change = prev?.graphHash !== undefined || hadContent(prev) ? 'changed' : 'new';
          if (!as.feed) nquads = canon.nquads;
          graphHash = canon.hash;
        }
      }
    }
  }
  if (r.seeOther) doc.links.push({ url: r.seeOther.document, kind: 'iri' });

  // Only a version listener reads the canonical N-Quads after the write. Not kept through it otherwise:
  // it waits for the writer thread, and a page's data alive at two scavenges is copied twice and promoted.
  const versionNQuads = ctx.onVersion ? nquads : undefined;
  const archived = await ctx.warc.writeExchange({
    response: r,
    payloadDigest,
    revisitOf: bytesSame && lastVersion ? { uri: lastVersion.finalUrl ?? url, date: new Date(lastVersion.time) } : undefined,
    nquads,
  });
  doc.record = { file: archived.file, id: archived.recordId };
  // The graph is named by the document that was actually fetched (after redirects), not the IRI asked for.
  if (versionNQuads !== undefined) await ctx.onVersion?.(r.finalUrl, time, doc.quads, versionNQuads);

  const diagnostics = doc.diagnostics.map((d) => `${d.level}: ${d.message}`);
  // A requisite's row says so by its reason when it was had, else by a line beside the failure's reason.
  const requisiteHad = as.requisite !== undefined && (ok || r.notModified === true) && !r.truncated && outcome.error?.code !== 'decode';
  if (as.requisite !== undefined && !requisiteHad) diagnostics.push(REQUISITE_DIAGNOSTIC);
  if (doc.vetting) diagnostics.push(doc.vetting.line);
  if (as.alternateOf) diagnostics.push(alternateLine(as.alternateOf));
  await ctx.store.logFetch({
    url, finalUrl: r.finalUrl, time, status: r.status, headers: r.headers, durationMs: r.durationMs, bytes: doc.bytes,
    // A body that would not decode: the row says what went wrong, not only that the bytes would not parse.
    mediaType: r.mediaType, checksum: payloadDigest, graphHash: doc.graphHash ?? (graphHash === GONE ? undefined : graphHash), change: doc.change, error: doc.error ?? (outcome.error?.code === 'decode' ? outcome.error.message : undefined),
    // Every capture row says why, also outside a crawl (import): what capture alone knows, else what status and change show.
    reason: doc.reason ?? (requisiteHad ? 'requisite' : undefined) ?? (outcome.error?.code === 'decode' ? 'decode-error' : ok && r.truncated ? 'too-large'
      : reasonOfCapture({ status: r.status, change: doc.change, parseFailed: doc.diagnostics.some((d) => d.level === 'error' && d.reason === 'parse-error') })),
    triples: doc.quads.length, truncated: r.truncated, diagnostics: diagnostics.length ? diagnostics : undefined,
    warcFile: archived.file, warcOffset: archived.offset, warcLength: archived.length, rdfOffset: archived.rdfOffset, rdfLength: archived.rdfLength,
    cycleId: ctx.cycleId,
  }, {
    state: 'fetched', lastFetched: time, checksum: ok || r.notModified ? payloadDigest : gone ? undefined : prev?.checksum, graphHash,
    // Validators of a deleted document would ask the server whether it is still what it was before it went.
    etag: gone ? undefined : headerValue(r.headers, 'etag') ?? prev?.etag,
    lastModified: gone ? undefined : headerValue(r.headers, 'last-modified') ?? prev?.lastModified,
  });
  return doc;
}
