import type { Quad, Term } from '@rdfjs/types';
import sparqljs from 'sparqljs';
import type { Pattern, PropertyPath, Triple } from 'sparqljs';
import type { OrderingPolicy } from '../../frontier/order/policy.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';

/**
 * Link-traversal querying (Hartig's "traversal-based query execution", as Comunica's link-traversal
 * engine does it): a query's IRIs are where to start, and a fetched document's triples that match one
 * of the query's triple patterns name the documents worth fetching next (Hartig's cMatch reachability),
 * scored by how much they can add to the answer.
 */

/** One position of a triple pattern: a constant IRI or literal, a variable, or anything (a blank node, a path's inner step). */
type Slot = { iri: string } | { literal: string } | { variable: string } | { any: true };

export interface TriplePattern {
  s: Slot;
  /** The predicate IRIs the position may take: one for a plain IRI, several for a property path; undefined for a variable. */
  p: { iris: string[]; path: boolean } | { variable: string };
  o: Slot;
}

function slot(t: Triple['subject'] | Triple['object']): Slot {
  if (t.termType === 'NamedNode') return { iri: t.value };
  if (t.termType === 'Variable') return { variable: t.value };
  if (t.termType === 'Literal') return { literal: t.value };
  return { any: true };
}

function pathIris(p: PropertyPath | Triple['predicate'], out: string[]): string[] {
  if ('termType' in p) {
    if (p.termType === 'NamedNode') out.push(p.value);
    return out;
  }
  for (const item of p.items) pathIris(item as PropertyPath, out);
  return out;
}

function collect(patterns: readonly Pattern[] | undefined, out: TriplePattern[]): void {
  for (const pat of patterns ?? []) {
    switch (pat.type) {
      case 'bgp':
        for (const t of pat.triples) {
          const p = t.predicate;
          const pred: TriplePattern['p'] = 'termType' in p && p.termType === 'Variable' ? { variable: p.value }
            : 'termType' in p ? { iris: [p.value], path: false }
            : { iris: pathIris(p, []), path: true };
          // A path's subject and object meet the path's ends, not each step: only its predicates are kept.
          const isPath = 'path' in pred && pred.path;
          out.push({ s: isPath ? { any: true } : slot(t.subject), p: pred, o: isPath ? { any: true } : slot(t.object) });
        }
        break;
      case 'query':
        collect(pat.where, out);
        break;
      case 'group': case 'optional': case 'union': case 'minus': case 'graph': case 'service':
        collect((pat as { patterns: Pattern[] }).patterns, out);
        break;
      default:
        break;
    }
  }
}

/** The triple patterns of a query (the text as analyseQuery prepared it, common prefixes declared). */
export function triplePatterns(text: string): TriplePattern[] {
  const parsed = new sparqljs.Parser().parse(text);
  const out: TriplePattern[] = [];
  if (parsed.type === 'query') collect(parsed.where, out);
  return out;
}

/**
 * The IRIs a traversal starts from: the query's constant subjects and objects. Predicates and the
 * classes of `a` name vocabularies, which say nothing about the answer's resources (Comunica's default
 * seeds are the same subjects and objects).
 */
export function queryIris(patterns: readonly TriplePattern[]): string[] {
  const out = new Set<string>();
  for (const t of patterns) {
    if ('iri' in t.s) out.add(t.s.iri);
    const typePattern = 'iris' in t.p && !t.p.path && t.p.iris[0] === RDF_TYPE;
    if ('iri' in t.o && !typePattern) out.add(t.o.iri);
  }
  return [...out];
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

const matches = (s: Slot, term: Term): boolean =>
  'iri' in s ? term.termType === 'NamedNode' && term.value === s.iri
  : 'literal' in s ? term.termType === 'Literal' && term.value === s.literal
  : true;

/**
 * How much a link can add, from the patterns its triple matched: a match of a more selective pattern
 * (more constants) counts more, and an IRI in a variable's place counts once more for each other
 * pattern that variable joins, since dereferencing it is where those patterns' triples are published.
 */
export function candidateLinks(quads: readonly Quad[], patterns: readonly TriplePattern[]): Map<string, number> {
  const uses = new Map<string, number>();
  for (const t of patterns) {
    for (const v of [t.s, t.p, t.o]) if ('variable' in v) uses.set(v.variable, (uses.get(v.variable) ?? 0) + 1);
  }
  const out = new Map<string, number>();
  for (const q of quads) {
    for (const t of patterns) {
      if ('iris' in t.p && !t.p.iris.includes(q.predicate.value)) continue;
      if (!matches(t.s, q.subject) || !matches(t.o, q.object)) continue;
      const constants = ('iri' in t.s || 'literal' in t.s ? 1 : 0) + ('iris' in t.p ? 1 : 0) + ('iri' in t.o || 'literal' in t.o ? 1 : 0);
      for (const [pos, term] of [[t.s, q.subject], [t.o, q.object]] as const) {
        if (term.termType !== 'NamedNode') continue;
        // The class of an `a` pattern names a vocabulary, not data about the answer.
        if (pos === t.o && 'iris' in t.p && t.p.iris.length === 1 && t.p.iris[0] === RDF_TYPE) continue;
        const joins = 'variable' in pos ? (uses.get(pos.variable) ?? 1) - 1 : 0;
        out.set(term.value, (out.get(term.value) ?? 0) + 1 + constants + joins);
      }
    }
  }
  return out;
}

/**
 * The frontier ordering of a traversal: each URL's score is what its candidate links added up to. A URL
 * the traversal never scored came by a redirect from a scored IRI (a 303 from a resource to its
 * document, the Linked Data pattern) or is a seed: it goes first, as the step that was already chosen.
 */
export class TraversalPolicy implements OrderingPolicy {
  readonly name = 'query';
  private readonly scores = new Map<string, number>();
  private changed = new Set<string>();

  onPageCrawled(): void {}

  /** Adds to a URL's score (a document URL: an IRI's fragment is dropped). Returns the URL, or undefined when it is not http(s). */
  credit(iri: string, score: number): string | undefined {
    const url = normalizeUrl(iri);
    if (!url) return undefined;
    this.scores.set(url, (this.scores.get(url) ?? 0) + score);
    this.changed.add(url);
    return url;
  }

  priority(url: string): number {
    return this.scores.get(url) ?? Number.MAX_SAFE_INTEGER;
  }

  takeChanged(): readonly string[] {
    const out = [...this.changed];
    this.changed = new Set();
    return out;
  }
}
