import type { Quad } from '@rdfjs/types';
import type { Reason } from '../vocabulary/reasons.ts';

/** A link found in a document: a candidate for the frontier. */
export interface FoundLink {
  url: string;
  /** How it was found: an IRI in the data, an HTML anchor, a <link>/Link: header to RDF, a vocabulary. */
  kind: 'iri' | 'anchor' | 'alternate' | 'vocabulary' | 'header';
  rel?: string;
  anchorText?: string;
  /** Words around the link (for similarity ordering). */
  context?: string;
  /**
   * The page asked crawlers not to follow it (rel="nofollow", META robots or X-Robots-Tag nofollow):
   * recorded, never queued. The crawl logs such a URL with the reason `nofollow`.
   */
  nofollow?: boolean;
}

export interface Diagnostic {
  level: 'error' | 'warning';
  message: string;
  line?: number;
  /** What the diagnostic means for the document's fate, in the crawl log's vocabulary (e.g. `parse-error`). */
  reason?: Reason;
}

export interface ExtractInput {
  /** Base IRI: the final URL after redirects. */
  url: string;
  mediaType: string;
  charset?: string;
  body: Buffer;
  /** Response headers (lower-cased names), e.g. for Link: headers. */
  headers: Record<string, string>;
}

export interface ExtractResult {
  quads: Quad[];
  /** Links that are not visible as IRIs in `quads` (anchors, alternates); IRIs in quads are added by the crawler. */
  links: FoundLink[];
  diagnostics: Diagnostic[];
  /** From META robots or X-Robots-Tag: noindex = keep bytes, store no triples; nofollow = follow no links. */
  robots?: { noindex: boolean; nofollow: boolean };
  /**
   * Where the page's own HTML-as-triples (docs/vocabulary.md) start in `quads`: they come after the
   * data. Their predicates are our mapping's, not the author's, so they lead to no vocabulary.
   */
  pageQuadsFrom?: number;
  /** Targets the page links only with rel="nofollow": their link triples are kept, not followed. */
  nofollowTargets?: string[];
  /**
   * What the page loads to be shown (images, style sheets, scripts, icons, media), absolute http(s)
   * URLs: fetched as page requisites with `--page-requisites`, never followed as links.
   */
  requisites?: string[];
  /** A document title, if the format has one. */
  title?: string;
  /** Plain text of the document (HTML), for similarity ordering. */
  text?: string;
}

export interface ExtractContext {
  /** Loads a JSON-LD remote context through the crawler's polite fetcher (cached, bounded). */
  loadDocument?: (url: string) => Promise<unknown>;
  /** Abort runaway work (huge or hostile input). */
  maxQuads: number;
  /** Work out the page requisites (`ExtractResult.requisites`): only a crawl with --page-requisites wants them. */
  requisites?: boolean;
  signal?: AbortSignal;
}

export interface Extractor {
  readonly name: string;
  readonly mediaTypes: readonly string[];
  extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult>;
}
