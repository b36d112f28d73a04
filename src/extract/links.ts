import type { Quad, Term } from '@rdfjs/types';
import type { FoundLink } from './types.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** Only http(s) IRIs can be fetched, so only they become frontier candidates. */
function isHttpIri(iri: string): boolean {
  return iri.startsWith('http://') || iri.startsWith('https://');
}

/**
 * The namespace of a term IRI: up to and including its last '#' or '/'.
 * Undefined when that cut would fall inside the scheme ("http://") rather than after the host.
 */
export function namespaceOf(iri: string): string | undefined {
  const cut = Math.max(iri.lastIndexOf('#'), iri.lastIndexOf('/'));
  const hostStart = iri.indexOf('//') + 2;
  if (cut < hostStart) return undefined;
  return iri.slice(0, cut + 1);
}

/**
 * Links for the frontier from parsed quads: every http(s) IRI in subject or object position
 * (kind 'iri') and the namespace of every predicate and rdf:type class (kind 'vocabulary').
 * Each URL appears once per kind. Runs per document in the crawler's hot path: one pass,
 * one Set lookup per term, namespaces computed once per distinct predicate or class.
 */
export function linksFromQuads(quads: Iterable<Quad>): FoundLink[] {
  const links: FoundLink[] = [];
  const iris = new Set<string>();
  const vocabularies = new Set<string>();
  const termsSeenForVocabulary = new Set<string>();

  const addIri = (term: Term): void => {
    if (term.termType !== 'NamedNode') return;
    const iri = term.value;
    if (iris.has(iri)) return;
    iris.add(iri);
    if (isHttpIri(iri)) links.push({ url: iri, kind: 'iri' });
  };
  const addVocabularyOf = (iri: string): void => {
    if (termsSeenForVocabulary.has(iri)) return;
    termsSeenForVocabulary.add(iri);
    if (!isHttpIri(iri)) return;
    const namespace = namespaceOf(iri);
    if (namespace === undefined || vocabularies.has(namespace)) return;
    vocabularies.add(namespace);
    links.push({ url: namespace, kind: 'vocabulary' });
  };

  for (const quad of quads) {
    addIri(quad.subject);
    addIri(quad.object);
    const predicate = quad.predicate.value;
    addVocabularyOf(predicate);
    if (predicate === RDF_TYPE && quad.object.termType === 'NamedNode') addVocabularyOf(quad.object.value);
  }
  return links;
}
