import type { ArchiveWriter } from '../../archive/warc-writer.ts';
import { sha1Digest } from '../../archive/warc-record.ts';
import { chooseExtractor } from '../../extract/registry.ts';
import type { FetchResponse } from '../../fetch/types.ts';
import { reasonOfFetchError } from '../../fetch/reasons.ts';
import { mimeAccepted } from '../../frontier/filters.ts';
import { hostOf, originOf } from '../../frontier/normalize.ts';
import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import type { CrawlLog, CrawlLogEntry } from '../../store/types.ts';
import { essenceOf } from '../../util/content-type.ts';
import { analyseDocument, headerMap, type CaptureContext, type CapturedDocument } from '../capture.ts';
import type { ScopeStage } from '../stages/scope.ts';
import type { Job, Next, Stage } from '../stages/types.ts';
import { comparedGraph, difference, type ComparedGraph } from './compare.ts';
import { advertisedAlternates, contentLocation, FRUITLESS_LIMIT, NEGOTIATED_TYPES, parseable, variesOnAccept } from './discover.ts';

/** What `crawl --variants` did, for the summary. */
export interface VariantsSummary {
  /** Documents whose other representations were looked for (they advertised some, or said `Vary: Accept`). */
  documents: number;
  /** Requests for other representations: each waited its origin's turn and counts against --max-docs. */
  requests: number;
  /** Distinct other representations archived (each its own WARC response record). */
  archived: number;
  /** Answers not archived: the same bytes, Content-Location or media type as a representation already had, or no 2xx. */
  duplicates: number;
  /** Representations whose graph is the document's; and those whose graph differs (`variant-mismatch`). */
  agree: number;
  mismatch: number;
  /** Representations not compared: an HTML page without RDF of its own, or nothing to compare it with. */
  notCompared: number;
}

export const zeroVariants = (): VariantsSummary => ({ documents: 0, requests: 0, archived: 0, duplicates: 0, agree: 0, mismatch: 0, notCompared: 0 });

/** The representations of one document: what has been had, what is still to ask. */
interface VariantSet {
  id: number;
  /** The document's URL as the frontier had it (asked again with other Accept headers), and as fetched (the base, the graph's name). */
  entryUrl: string;
  docUrl: string;
  depth: number;
  /** The graph the others are compared with: the document's, or, when it carries no RDF (a plain HTML page), the first that does. */
  reference?: { graph: ComparedGraph; what: string };
  urls: Set<string>;
  digests: Set<string>;
  types: Set<string>;
  alternatesLeft: number;
  negotiate: string[];
  fruitless: number;
}

export interface VariantsDeps {
  scope: Pick<ScopeStage, 'offerVariant'>;
  frontier: Frontier;
  warc: ArchiveWriter;
  /** The store that gives each log row its reason and counts it (Fates.store). */
  store: CrawlLog;
  ctx: CaptureContext;
  counts: { bytes: number; variants: VariantsSummary };
  refetch: boolean;
  cycleId?: number;
}

/** The crawl-log line that names the document a representation belongs to (export reads it: `variant of <U>`). */
export const variantOfLine = (docUrl: string) => `variant of <${docUrl}>`;

/**
 * `crawl --variants` (issue #17 part 4): every representation a server offers of an RDF document. After a
 * document is captured, its advertised alternates (Link: rel="alternate" headers, HTML <link rel="alternate">)
 * are queued as documents of their own, first of their origin's queue, and once they are done, if the
 * document said `Vary: Accept`, its URL is asked again for each media type an extractor reads, one at a
 * time. Every request goes through the frontier, so it waits its origin's turn, honours robots.txt and
 * counts against the limits. A representation is archived once (a duplicate by bytes, Content-Location or
 * media type is not), parsed by the extractor of its type, and its graph compared with the document's
 * (src/crawler/variants/compare.ts); a disagreement is a `variant-mismatch` row. Representations are
 * looked for from documents only: never from a representation (no variant of a variant), and the seen test
 * and the bounded list of types end every chain.
 */
export class Variants {
  private readonly sets = new Map<number, VariantSet>();
  private nextSet = 1;
  /** Frontier keys below every link's: a document's representations are fetched before its origin's other URLs, so a set lives briefly. */
  private nextKey = Number.MIN_SAFE_INTEGER;
  private readonly refetched = new Set<string>();
  /** Requests for the document's own URL with other Accept headers: the crawl counts them against --max-docs (alternates are documents already). */
  negotiatedRequests = 0;
  /** The stage after capture: opens a document's set, or records a representation's answer. */
  readonly stage: Stage;
  /** First in the chain: its `finish` runs for every job, however it ended, and moves the set on. */
  readonly head: Stage;

  constructor(private readonly d: VariantsDeps) {
    this.stage = { name: 'variants', process: (job) => this.process(job) };
    this.head = { name: 'variants-head', process: async () => 'continue', finish: async (job) => {
      if (!job.requeued) this.settled(job.entry);
    } };
  }

  /** A variant entry that left the frontier without its chain (robots.txt known to refuse it, a failing origin). */
  settled(entry: FrontierEntry): void {
    const v = entry.variant;
    const set = v && this.sets.get(v.set);
    if (!set) return;
    if (!v.negotiated) set.alternatesLeft--;
    if (set.alternatesLeft <= 0) this.askNext(set);
  }

  private async process(job: Job): Promise<Next> {
    const v = job.entry.variant;
    if (!v) {
      if (job.doc && !job.entry.requisite) await this.open(job);
      return 'continue';
    }
    const set = this.sets.get(v.set);
    if (!set) return 'continue';
    if (v.negotiated) {
      await this.negotiated(job, set, v.accept);
      return 'done';
    }
    if (job.doc) await this.alternate(job, set, job.doc);
    return 'continue';
  }

  /** A captured document: its graph, and the representations it offers. */
  private async open(job: Job): Promise<void> {
    const doc = job.doc!;
    const r = job.outcome?.response;
    if (!r || r.status < 200 || r.status >= 300 || doc.sitemap || doc.robots?.noindex || doc.vetting?.drop) return;
    const choice = chooseExtractor({ mediaType: r.mediaType, body: r.body });
    if (!choice) return;
    const docUrl = doc.finalUrl ?? job.entry.url;
    const graph = await this.graphOf(doc, r, choice.mediaType, docUrl, docUrl);
    if (!graph) return;
    const mime = this.d.ctx.mime;
    const own = contentLocation(r.headers, r.finalUrl);
    const alternates = advertisedAlternates(docUrl, r.headers, doc.quads).filter((a) => a.url !== own && mimeAccepted(a.type, mime));
    // A page that carries no RDF of its own is not asked for more: Vary: Accept there is most often about HTML.
    const negotiate = graph.carriesRdf && variesOnAccept(r.headers) ? NEGOTIATED_TYPES.filter((t) => mimeAccepted(t, mime)) : [];
    if (alternates.length === 0 && negotiate.length === 0) return;
    const set: VariantSet = {
      id: this.nextSet++, entryUrl: job.entry.url, docUrl, depth: job.entry.depth,
      reference: graph.carriesRdf ? { graph, what: `the document (${essenceOf(r.mediaType) || 'no type'})` } : undefined,
      urls: new Set([job.entry.url, docUrl, ...(own ? [own] : [])]),
      digests: new Set([sha1Digest(r.rawBody)]),
      types: new Set([essenceOf(r.mediaType), choice.mediaType]),
      alternatesLeft: 0, negotiate: [...negotiate], fruitless: 0,
    };
    this.sets.set(set.id, set);
    this.d.counts.variants.documents++;
    for (const a of alternates) {
      const force = this.d.refetch && !this.refetched.has(a.url);
      if (force) this.refetched.add(a.url);
      // Admitted all at once, so that the document's links (next stage) find them known and do not queue them again.
      const admitted = this.d.scope.offerVariant(a.url, set.depth, { set: set.id, accept: `${a.type}, */*;q=0.1`, negotiated: false, of: set.docUrl }, this.nextKey++, force);
      if (admitted === 'queued') set.alternatesLeft++;
    }
    if (set.alternatesLeft === 0) this.askNext(set);
  }

  /**
   * A captured document's graph as compared. One with the same bytes as its last version was not parsed
   * again by capture: it is here, since its other representations may have changed meanwhile.
   */
  private async graphOf(doc: CapturedDocument, r: FetchResponse, type: string, ownUrl: string, docUrl: string): Promise<ComparedGraph | undefined> {
    if (doc.graphHash !== undefined) return comparedGraph(doc.quads, type, doc.pageQuadsFrom, ownUrl, docUrl);
    if (doc.change !== 'unchanged' || r.notModified) return undefined;
    const parsed = await this.parse(r);
    return parsed && comparedGraph(parsed.quads, parsed.mediaType, parsed.pageQuadsFrom, ownUrl, docUrl);
  }

  private async parse(r: FetchResponse): Promise<{ quads: CapturedDocument['quads']; pageQuadsFrom?: number; mediaType: string; diagnostics: string[] } | undefined> {
    const input = { url: r.finalUrl, mediaType: r.mediaType, charset: r.charset, body: r.body, headers: headerMap(r) };
    const done = await analyseDocument(input, { ...this.d.ctx, requisites: false });
    if (!('analysis' in done)) return undefined;
    const a = done.analysis;
    const mediaType = chooseExtractor({ mediaType: r.mediaType, body: r.body })?.mediaType ?? essenceOf(r.mediaType);
    return { quads: a.quads, pageQuadsFrom: a.pageQuadsFrom, mediaType, diagnostics: a.diagnostics.map((x) => `${x.level}: ${x.message}`) };
  }

  /** Queues the next media type to ask the document's URL for, or closes the set. */
  private askNext(set: VariantSet): void {
    while (set.negotiate.length > 0 && set.fruitless < FRUITLESS_LIMIT) {
      const type = set.negotiate.shift()!;
      if (set.types.has(type)) continue;
      const url = set.entryUrl;
      this.d.frontier.push({ url, host: hostOf(url), origin: originOf(url), depth: set.depth, key: this.nextKey++, variant: { set: set.id, accept: type, negotiated: true } });
      return;
    }
    this.sets.delete(set.id);
  }

  /** An alternate URL, captured as a document of its own: its graph compared with the document's. */
  private async alternate(job: Job, set: VariantSet, doc: CapturedDocument): Promise<void> {
    const r = job.outcome?.response;
    this.d.counts.variants.requests++;
    const type = r && (chooseExtractor({ mediaType: r.mediaType, body: r.body })?.mediaType ?? essenceOf(r.mediaType));
    const graph = r && r.status >= 200 && r.status < 300 ? await this.graphOf(doc, r, type!, doc.finalUrl ?? job.entry.url, set.docUrl) : undefined;
    if (!r || !graph) {
      // No graph to compare (an error, a 304, a document over its budget): its own row says why.
      this.d.counts.variants.duplicates++;
      return;
    }
    const digest = sha1Digest(r.rawBody);
    this.had(set, r, digest, type!);
    this.d.counts.variants.archived++;
    const verdict = this.compare(set, graph, job.entry.url, type!);
    await this.d.store.logFetch({
      url: job.entry.url, finalUrl: r.finalUrl, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: r.durationMs,
      bytes: r.rawBody.length, mediaType: r.mediaType, checksum: digest, graphHash: graph.hash, change: 'unchanged',
      reason: verdict.reason, triples: graph.triples, diagnostics: verdict.lines.length ? verdict.lines : undefined, cycleId: this.d.cycleId,
    }, {});
  }

  /** The document's own URL asked for another media type: archived if it is a representation not had yet, and compared. */
  private async negotiated(job: Job, set: VariantSet, accept: string): Promise<void> {
    const c = this.d.counts;
    c.variants.requests++;
    this.negotiatedRequests++;
    const { outcome } = job;
    const r = outcome?.response;
    const base: Pick<CrawlLogEntry, 'url' | 'cycleId'> = { url: set.entryUrl, cycleId: this.d.cycleId };
    const asked = `${variantOfLine(set.docUrl)} (Accept: ${accept})`;
    if (!r) {
      set.fruitless++;
      c.variants.duplicates++;
      const error = `${outcome?.error?.code ?? 'error'}: ${outcome?.error?.message ?? 'no response'}`;
      await this.d.store.logFetch({ ...base, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error, reason: outcome?.error ? reasonOfFetchError(outcome.error) : 'internal-error', triples: 0, diagnostics: [`info: ${asked}`] }, {});
      return;
    }
    c.bytes += r.rawBody.length;
    const digest = sha1Digest(r.rawBody);
    const own = contentLocation(r.headers, r.finalUrl);
    const type = r.status >= 200 && r.status < 300 ? (chooseExtractor({ mediaType: r.mediaType, body: r.body })?.mediaType ?? essenceOf(r.mediaType)) : '';
    const row: CrawlLogEntry = {
      ...base, finalUrl: r.finalUrl, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: r.durationMs,
      bytes: r.rawBody.length, mediaType: r.mediaType, checksum: digest, change: 'unchanged', reason: 'variant', triples: 0,
    };
    // Not a new representation: the same bytes, the same Content-Location or a type already had (a server
    // that ignores Accept, or answers with its default), or no representation at all (406, a redirect, an error).
    const seenAs = r.status < 200 || r.status >= 300 ? `no representation (HTTP ${r.status})`
      : set.digests.has(digest) ? 'the same bytes as a representation already archived'
      : own !== undefined && set.urls.has(own) && own !== set.entryUrl && own !== set.docUrl ? `the Content-Location ${own} of a representation already archived`
      : !parseable(type) ? `a type no extractor reads (${essenceOf(r.mediaType) || 'none'})`
      // The type it parses as, not the one it claims: an RDF/XML body labelled text/turtle is RDF/XML.
      : set.types.has(type) ? `a media type already had (${type})` : undefined;
    if (seenAs !== undefined) {
      set.fruitless++;
      c.variants.duplicates++;
      await this.d.store.logFetch({ ...row, diagnostics: [`info: ${asked}: ${seenAs}: not archived again`] }, {});
      return;
    }
    set.fruitless = 0;
    this.had(set, r, digest, type);
    const parsed = await this.parse(r);
    const graph = parsed && (await comparedGraph(parsed.quads, parsed.mediaType, parsed.pageQuadsFrom, set.docUrl, set.docUrl));
    const archived = await this.d.warc.writeExchange({ response: r, payloadDigest: digest, fetchedFor: 'variant' });
    c.variants.archived++;
    const verdict = graph ? this.compare(set, graph, set.entryUrl, type) : { reason: 'variant-mismatch' as const, lines: [`warning: ${variantOfLine(set.docUrl)}: ${type} could not be analysed (over its budget)`] };
    if (!graph) c.variants.mismatch++;
    await this.d.store.logFetch({
      ...row, graphHash: graph?.hash, triples: graph?.triples ?? 0, reason: verdict.reason,
      diagnostics: [...(parsed?.diagnostics ?? []), ...verdict.lines, `info: ${asked}`],
      warcFile: archived.file, warcOffset: archived.offset, warcLength: archived.length,
    }, {});
  }

  private had(set: VariantSet, r: FetchResponse, digest: string, type: string): void {
    set.digests.add(digest);
    set.types.add(type);
    set.types.add(essenceOf(r.mediaType));
    set.urls.add(r.finalUrl);
    const own = contentLocation(r.headers, r.finalUrl);
    if (own) set.urls.add(own);
  }

  /** The verdict on one representation's graph, against the document's (or the first that carries RDF). */
  private compare(set: VariantSet, graph: ComparedGraph, url: string, type: string): { reason: 'variant' | 'variant-mismatch'; lines: string[] } {
    const c = this.d.counts.variants;
    const what = `${type} at ${url}`;
    if (!graph.carriesRdf) {
      c.notCompared++;
      return { reason: 'variant', lines: [`info: ${variantOfLine(set.docUrl)}: ${what} is a page without RDF of its own: not compared`] };
    }
    if (!set.reference) {
      set.reference = { graph, what };
      c.notCompared++;
      return { reason: 'variant', lines: [`info: ${variantOfLine(set.docUrl)}: the document carries no RDF; ${what} is what its other representations are compared with`] };
    }
    if (graph.hash === set.reference.graph.hash) {
      c.agree++;
      return { reason: 'variant', lines: [] };
    }
    c.mismatch++;
    const diff = difference(set.reference.graph, graph);
    return {
      reason: 'variant-mismatch',
      lines: [
        `warning: ${variantOfLine(set.docUrl)}: variant-mismatch: the graph of ${what} differs from ${set.reference.what}: ${diff.missing} of its ${set.reference.graph.triples} triples missing, ${diff.extra} extra`,
        ...diff.examples.map((l) => `info: ${l}`),
      ],
    };
  }
}
