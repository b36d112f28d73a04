import type { Quad } from '@rdfjs/types';
import type { HeaderPair } from '../../util/headers.ts';
import { parseLinkHeader } from '../../util/link-format.ts';
import { essenceOf } from '../../util/content-type.ts';
import { extractorFor } from '../../extract/registry.ts';
import { DCTERMS, XHV } from '../../extract/html/vocab.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';

/**
 * The media types asked of a document that says `Vary: Accept`, most often offered first: a server that
 * does not have the one asked for answers with its default, and the asking stops after a few such
 * answers (see FRUITLESS_LIMIT), so the rare ones are asked only of servers that keep offering more.
 * Each has an extractor (src/extract/registry.ts); HTML stands for HTML+RDFa and embedded JSON-LD.
 */
export const NEGOTIATED_TYPES = [
  'text/turtle', 'application/ld+json', 'application/rdf+xml', 'application/n-triples', 'text/html',
  'application/n-quads', 'application/trig', 'text/n3',
] as const;

/** Answers in a row that brought no new representation (the same bytes, a type already had, 406) before the asking stops. */
export const FRUITLESS_LIMIT = 3;

/** A representation a document advertises at a URL of its own. */
export interface Alternate {
  url: string;
  /** Its media type, as advertised (essence, lower-case). */
  type: string;
}

/** Every value of a header that may repeat (Link, Vary), joined as RFC 9110 §5.3 allows. */
function allValues(headers: readonly HeaderPair[], lowerName: string): string | undefined {
  const values = headers.filter(([n]) => n.toLowerCase() === lowerName).map(([, v]) => v);
  return values.length ? values.join(', ') : undefined;
}

/** The response says its content depends on the Accept header (`Vary: Accept`, or `Vary: *`). */
export function variesOnAccept(headers: readonly HeaderPair[]): boolean {
  return (allValues(headers, 'vary') ?? '').split(',').some((t) => ['accept', '*'].includes(t.trim().toLowerCase()));
}

/** The response's Content-Location, absolute and normalised (undefined when absent or not an http(s) URL). */
export function contentLocation(headers: readonly HeaderPair[], requestUrl: string): string | undefined {
  const value = allValues(headers, 'content-location')?.split(',')[0]?.trim();
  return value ? normalizeUrl(value, requestUrl) : undefined;
}

/** Whether a media type is one the crawl can parse for RDF (an extractor is registered for it). */
export function parseable(type: string): boolean {
  return extractorFor(type) !== undefined;
}

/**
 * The representations a document advertises at other URLs: `Link: <u>; rel="alternate"; type="T"`
 * headers, and for HTML the `<link rel="alternate" type="T" href="u">` elements, which the HTML
 * extractor states as `<doc> xhv:alternate <u>` and `<u> dcterms:format "T"` (docs/vocabulary.md).
 * Only types an extractor reads; each URL once, in the order met; never the document's own URL.
 */
export function advertisedAlternates(docUrl: string, headers: readonly HeaderPair[], quads: readonly Quad[]): Alternate[] {
  const out = new Map<string, string>();
  const add = (raw: string, type: string | undefined) => {
    if (!type || !parseable(type)) return;
    const url = normalizeUrl(raw, docUrl);
    if (url && url !== normalizeUrl(docUrl) && !out.has(url)) out.set(url, essenceOf(type));
  };
  for (const link of parseLinkHeader(allValues(headers, 'link'))) {
    if (link.rels.includes('alternate')) add(link.target, link.type);
  }
  const alternates: string[] = [];
  const formats = new Map<string, string>();
  for (const q of quads) {
    if (q.predicate.value === `${XHV}alternate` && q.subject.value === docUrl && q.object.termType === 'NamedNode') alternates.push(q.object.value);
    else if (q.predicate.value === `${DCTERMS}format` && q.subject.termType === 'NamedNode' && q.object.termType === 'Literal') formats.set(q.subject.value, q.object.value);
  }
  for (const url of alternates) add(url, formats.get(url));
  return [...out].map(([url, type]) => ({ url, type }));
}
