import type { Quad } from '@rdfjs/types';

/** A link found in a document: a candidate for the frontier. */
export interface FoundLink {
  url: string;
  /** How it was found: an IRI in the data, an HTML anchor, a <link>/Link: header to RDF, a vocabulary. */
  kind: 'iri' | 'anchor' | 'alternate' | 'vocabulary' | 'header';
  rel?: string;
  anchorText?: string;
  /** Words around the link (for similarity ordering). */
  context?: string;
  /** rel="nofollow" (or META robots nofollow): recorded, never followed. */
  nofollow?: boolean;
}

export interface Diagnostic {
  level: 'error' | 'warning';
  message: string;
  line?: number;
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
  /** From META robots: noindex = keep bytes, store no triples; nofollow = follow no links. */
  robots?: { noindex: boolean; nofollow: boolean };
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
  signal?: AbortSignal;
}

export interface Extractor {
  readonly name: string;
  readonly mediaTypes: readonly string[];
  extract(input: ExtractInput, ctx: ExtractContext): Promise<ExtractResult>;
}
