import type { Quad, Term } from '@rdfjs/types';
import type { ExtractResult, FoundLink } from './types.ts';
import { DM, IANA_REL, XHV } from './html/vocab.ts';

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/**
 * Namespaces that are never followed as vocabularies: ours (the HTML-as-triples terms), and those an
 * RDFa processor or our mapping writes for plain HTML (rel="license" is xhv:license, vocab="..." gives
 * rdfa:usesVocabulary) — every HTML page has them, no author's data asked for them.
 */
const NOT_VOCABULARIES = new Set([DM, XHV, IANA_REL, 'http://www.w3.org/ns/rdfa#']);

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
 * (kind 'iri'), and the namespace of every predicate and rdf:type class and the class itself
 * (kind 'vocabulary', so that --no-vocabularies drops all of them). Each URL appears once per kind.
 * Quads from `pageQuadsFrom` on are the page's own HTML-as-triples: their predicates are our
 * mapping's, not the author's, so they lead to no vocabulary; nor do NOT_VOCABULARIES, ever.
 * Runs per document in the crawler's hot path: one pass, one Map lookup per term, namespaces
 * computed once per distinct predicate or class.
 */
export function linksFromQuads(quads: Iterable<Quad>, pageQuadsFrom = Infinity): FoundLink[] {
  const links: FoundLink[] = [];
  /** IRI → its link (undefined: not fetchable), so that a class seen after its IRI was a plain node still becomes a vocabulary link. */
  const iris = new Map<string, FoundLink | undefined>();
  const vocabularies = new Set<string>();
  const termsSeenForVocabulary = new Set<string>();

  const addIri = (term: Term): void => {
    if (term.termType !== 'NamedNode' || iris.has(term.value)) return;
    const iri = term.value;
    const link: FoundLink | undefined = isHttpIri(iri) ? { url: iri, kind: 'iri' } : undefined;
    iris.set(iri, link);
    if (link) links.push(link);
  };
  const addVocabulary = (url: string): void => {
    if (vocabularies.has(url)) return;
    vocabularies.add(url);
    links.push({ url, kind: 'vocabulary' });
  };
  const addVocabularyOf = (iri: string): void => {
    if (termsSeenForVocabulary.has(iri)) return;
    termsSeenForVocabulary.add(iri);
    if (!isHttpIri(iri)) return;
    const namespace = namespaceOf(iri);
    if (namespace !== undefined && !NOT_VOCABULARIES.has(namespace)) addVocabulary(namespace);
  };
  const addClass = (term: Term): void => {
    const iri = term.value;
    addVocabularyOf(iri);
    if (!isHttpIri(iri) || NOT_VOCABULARIES.has(namespaceOf(iri) ?? '')) return;
    const link = iris.get(iri);
    if (link?.kind === 'vocabulary') return;
    if (link) {
      // Seen first as a plain node: the same URL is a vocabulary link once it is a class.
      link.kind = 'vocabulary';
      vocabularies.add(iri);
    } else {
      iris.set(iri, undefined);
      addVocabulary(iri);
    }
  };

  let index = 0;
  let subject: Term | undefined;
  for (const quad of quads) {
    // A parser hands one subject term to that subject's consecutive quads: looked up once for them.
    if (quad.subject !== subject) addIri(subject = quad.subject);
    if (index++ >= pageQuadsFrom) {
      addIri(quad.object);
      continue;
    }
    const predicate = quad.predicate.value;
    addVocabularyOf(predicate);
    if (predicate === RDF_TYPE && quad.object.termType === 'NamedNode') addClass(quad.object);
    else addIri(quad.object);
  }
  return links;
}

/** Marks a link as not to be followed (in place: an anchor's lazily worked-out context stays). */
export function markNofollow<T extends FoundLink>(link: T): T {
  link.nofollow = true;
  return link;
}

/**
 * Every link of an extracted document, for the frontier: the IRIs of its data, then the links the
 * extractor found. The one place that decides what may be followed, so that no caller forgets a rule:
 * with META robots or X-Robots-Tag nofollow every link is marked nofollow, and an IRI the page links
 * only with rel="nofollow" is marked too (its link triple is data, not an invitation).
 */
export function documentLinks(result: Pick<ExtractResult, 'quads' | 'links' | 'robots' | 'pageQuadsFrom' | 'nofollowTargets'>): FoundLink[] {
  const links = [...linksFromQuads(result.quads, result.pageQuadsFrom), ...result.links];
  if (result.robots?.nofollow) return links.map(markNofollow);
  if (!result.nofollowTargets?.length) return links;
  const targets = new Set(result.nofollowTargets);
  for (const link of links) if (targets.has(link.url)) markNofollow(link);
  return links;
}
