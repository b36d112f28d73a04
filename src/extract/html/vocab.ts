/** Namespaces of the HTML-as-triples mapping (documented in docs/vocabulary.md). */
export const DM = 'https://w3id.org/datamonitor/ns#';
export const DCTERMS = 'http://purl.org/dc/terms/';
export const XHV = 'http://www.w3.org/1999/xhtml/vocab#';
export const IANA_REL = 'http://www.iana.org/assignments/relation/';
export const RDF_NS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

/** Link relations defined by the XHTML vocabulary (lower case). */
export const XHV_RELS = new Set([
  'alternate', 'appendix', 'bookmark', 'chapter', 'cite', 'contents', 'copyright', 'first', 'glossary', 'help',
  'icon', 'index', 'last', 'license', 'meta', 'next', 'p3pv1', 'prev', 'previous', 'role', 'section', 'start',
  'stylesheet', 'subsection', 'top', 'up',
]);

/** Media types of RDF serialisations: a <link rel="alternate"> or Link: header with one of these leads to data. */
export const RDF_MEDIA_TYPES = new Set([
  'text/turtle', 'application/turtle', 'application/x-turtle', 'text/n3', 'text/rdf+n3', 'application/n-triples',
  'application/n-quads', 'application/trig', 'application/rdf+xml', 'text/rdf', 'application/ld+json',
  'application/json+ld',
]);

/**
 * The predicate IRI for one rel/rev token: an absolute IRI as it is, a registered XHTML relation in the
 * XHTML vocabulary, any other plain token in the IANA link-relation registry namespace.
 * CURIEs (prefix:name without //) are RDFa's business and give undefined here.
 */
export function relPredicate(token: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token) || /^urn:/i.test(token)) return token;
  const lower = token.toLowerCase();
  if (XHV_RELS.has(lower)) return XHV + lower;
  if (/^[a-z][a-z0-9.-]*$/.test(lower)) return IANA_REL + lower;
  return undefined;
}
