import type { Quad, Term } from '@rdfjs/types';
import type { OrderingPolicy } from '../../frontier/order/policy.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { IriResolver, parseSparql, sparqlGenerator, type SparqlNode } from '../../query/sparql-ast.ts';

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

/** The patterns whose triples a traversal follows: those that must or may match (not FILTER EXISTS, not VALUES). */
const GROUPS = new Set(['group', 'optional', 'union', 'minus', 'graph', 'service']);

/** Collects a query's triple patterns from traqula's AST (src/query/sparql-ast.ts), its prologue applied. */
class PatternCollector {
  readonly out: TriplePattern[] = [];
  constructor(private readonly iris: IriResolver) {}

  query(q: SparqlNode): void {
    for (const def of q.context ?? []) this.iris.define(def);
    this.pattern(q.where);
  }

  private pattern(node: SparqlNode): void {
    if (node?.type === 'query') return this.query(node); // a subquery: its patterns count like ours
    if (node?.type !== 'pattern') return;
    if (node.subType === 'bgp') for (const t of node.triples) this.triple(t);
    else if (GROUPS.has(node.subType)) for (const p of node.patterns ?? []) this.pattern(p);
  }

  private triple(t: SparqlNode): void {
    const p = t.predicate;
    const pred: TriplePattern['p'] = p.type === 'term' && p.subType === 'variable' ? { variable: p.value }
      : p.type === 'term' ? { iris: this.constants(p, []), path: false }
      : { iris: this.constants(p, []), path: true };
    // A path's subject and object meet the path's ends, not each step: only its predicates are kept.
    const isPath = 'path' in pred && pred.path;
    this.out.push({ s: isPath ? { any: true } : this.slot(t.subject), p: pred, o: isPath ? { any: true } : this.slot(t.object) });
    // `[ :p ?x ]` and `( … )` hold triples of their own.
    for (const end of [t.subject, t.object]) if (end?.type === 'tripleCollection') for (const inner of end.triples) this.triple(inner);
  }

  private slot(t: SparqlNode): Slot {
    if (t?.type !== 'term') return { any: true };
    if (t.subType === 'namedNode') {
      const iri = this.iris.iri(t);
      return iri === undefined ? { any: true } : { iri };
    }
    if (t.subType === 'variable') return { variable: t.value };
    if (t.subType === 'literal') return { literal: t.value };
    return { any: true };
  }

  /** The IRIs of a predicate or path (every step's, a negated set's members too). */
  private constants(p: SparqlNode, out: string[]): string[] {
    if (p?.type === 'term') {
      const iri = this.iris.iri(p);
      if (iri !== undefined) out.push(iri);
      return out;
    }
    for (const item of p?.items ?? []) this.constants(item, out);
    return out;
  }
}

/** The triple patterns of a query (the text as analyseQuery prepared it, common prefixes declared). */
export async function triplePatterns(text: string): Promise<TriplePattern[]> {
  const ast = await parseSparql(text);
  if (ast.type !== 'query') return [];
  const c = new PatternCollector(new IriResolver(ast.context ?? []));
  c.query(ast);
  return c.out;
}

/**
 * The query with every variable projected, and no grouping, order or slice: its solutions are the
 * bindings that the answer's rows are made of, so each row's documents can be found through them.
 * Undefined for a query that is not a plain SELECT (aggregates: a row stands for many solutions).
 */
export async function allVariablesQuery(text: string): Promise<string | undefined> {
  const ast = await parseSparql(text);
  const mods = ast.solutionModifiers ?? {};
  if (ast.type !== 'query' || ast.subType !== 'select' || mods.group || mods.having) return undefined;
  if (ast.variables.some((v: SparqlNode) => v.type !== 'wildcard' && !(v.type === 'term' && v.subType === 'variable'))) return undefined;
  // The generator writes the whole tree afresh (not from the source text) when the root's location says so.
  const auto = { sourceLocationType: 'autoGenerate' };
  const wide = { ...ast, variables: [{ type: 'wildcard', loc: auto }], distinct: false, reduced: false, solutionModifiers: {}, loc: auto };
  return (await sparqlGenerator()).generate(wide);
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

/** What a match of a pattern by a triple adds: each IRI found in one of its variable (or constant) places, with its score. */
export interface PatternMatch {
  links: Map<string, number>;
  /** The pattern's variables that the triple binds, with their values (N-Triples-ish keys: the term's value). */
  bindings: Array<[variable: string, value: string]>;
  /** The pattern has a constant subject or object: its matches are about the query's own resources. */
  anchored: boolean;
  /** Which of the query's patterns it matched (its index). */
  pattern: number;
}

/**
 * The matches of a document's triples against the query's patterns (Hartig's cMatch). A link's score
 * says how much it can add: a match of a more selective pattern (more constants) counts more, and an IRI
 * in a variable's place counts once more for each other pattern that variable joins, since dereferencing
 * it is where those patterns' triples are published.
 */
export function patternMatches(quads: readonly Quad[], patterns: readonly TriplePattern[]): PatternMatch[] {
  const uses = new Map<string, number>();
  for (const t of patterns) {
    for (const v of [t.s, t.p, t.o]) if ('variable' in v) uses.set(v.variable, (uses.get(v.variable) ?? 0) + 1);
  }
  const out: PatternMatch[] = [];
  for (const q of quads) {
    for (const [index, t] of patterns.entries()) {
      if ('iris' in t.p && !t.p.iris.includes(q.predicate.value)) continue;
      if (!matches(t.s, q.subject) || !matches(t.o, q.object)) continue;
      const constS = 'iri' in t.s || 'literal' in t.s;
      const constO = 'iri' in t.o || 'literal' in t.o;
      const constants = (constS ? 1 : 0) + ('iris' in t.p ? 1 : 0) + (constO ? 1 : 0);
      const m: PatternMatch = { links: new Map(), bindings: [], anchored: constS || (constO && !isTypePattern(t)), pattern: index };
      for (const [pos, term] of [[t.s, q.subject], [t.p, q.predicate], [t.o, q.object]] as const) {
        if ('variable' in pos && (uses.get(pos.variable) ?? 0) > 1) m.bindings.push([pos.variable, term.value]);
        if (pos === t.p || term.termType !== 'NamedNode') continue;
        // The class of an `a` pattern names a vocabulary, not data about the answer.
        if (pos === t.o && isTypePattern(t)) continue;
        const joins = 'variable' in pos ? (uses.get(pos.variable) ?? 1) - 1 : 0;
        m.links.set(term.value, (m.links.get(term.value) ?? 0) + 1 + constants + joins);
      }
      out.push(m);
    }
  }
  return out;
}

const isTypePattern = (t: TriplePattern) => 'iris' in t.p && t.p.iris.length === 1 && t.p.iris[0] === RDF_TYPE;

/** The candidate links of a document and their scores, all matches counted alike (see Traversal for the ranking a crawl uses). */
export function candidateLinks(quads: readonly Quad[], patterns: readonly TriplePattern[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of patternMatches(quads, patterns)) for (const [iri, score] of m.links) out.set(iri, (out.get(iri) ?? 0) + score);
  return out;
}

/**
 * Which matches are on the way to an answer. A match is *connected* when its pattern names one of the
 * query's own resources (anchored), or when one of the join variables it binds has that value in a
 * connected match of another pattern already (a semi-join, as the query's evaluation would make). Links of connected matches
 * keep their full score; the others go to the back of the frontier (a thousandth of it) and are raised
 * when a later match connects them. Nothing is dropped, so the traversal reaches what cMatch reaches
 * (its answer is complete in Hartig's sense); only the order changes, so the answer comes sooner.
 */
export class Traversal {
  /** For each `variable\tvalue` of connected matches: the patterns whose matches gave it. */
  private readonly connected = new Map<string, Set<number>>();
  /** Matches waiting for one of their bindings to become connected, by `variable\tvalue`. */
  private readonly waiting = new Map<string, PatternMatch[]>();

  constructor(readonly patterns: readonly TriplePattern[], private readonly credit: (iri: string, score: number) => void) {}

  /** Scores the links of a document's triples: the credit callback gets each (IRI, score) once per match. */
  learn(quads: readonly Quad[]): void {
    for (const m of patternMatches(quads, this.patterns)) {
      if (m.anchored || m.bindings.some(([v, val]) => this.joins(`${v}\t${val}`, m.pattern))) this.connect(m);
      else {
        for (const [iri, score] of m.links) this.credit(iri, score / 1000);
        for (const [v, val] of m.bindings) {
          const k = `${v}\t${val}`;
          const list = this.waiting.get(k);
          if (list) list.push(m);
          else this.waiting.set(k, [m]);
        }
      }
    }
  }

  /** Whether a connected match of a pattern other than `pattern` gave this binding. */
  private joins(binding: string, pattern: number): boolean {
    const from = this.connected.get(binding);
    if (!from) return false;
    for (const p of from) if (p !== pattern) return true;
    return false;
  }

  private connect(first: PatternMatch): void {
    for (const stack = [first]; stack.length;) {
      const m = stack.pop()!;
      for (const [iri, score] of m.links) this.credit(iri, score);
      for (const [v, val] of m.bindings) {
        const k = `${v}\t${val}`;
        let from = this.connected.get(k);
        if (!from) this.connected.set(k, (from = new Set()));
        if (from.has(m.pattern)) continue;
        from.add(m.pattern);
        const list = this.waiting.get(k);
        if (!list) continue;
        // Raised once (its low score stays, the full one is added); matches of the same pattern wait on.
        const still = list.filter((w) => w.anchored || w.pattern === m.pattern);
        for (const w of list) if (!w.anchored && w.pattern !== m.pattern) (w.anchored = true, stack.push(w));
        if (still.length) this.waiting.set(k, still.filter((w) => !w.anchored));
        else this.waiting.delete(k);
      }
    }
  }
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

  /** Sets a URL's score (`--order query` of --follow: the solutions the IRI appeared in). */
  set(iri: string, score: number): void {
    const url = normalizeUrl(iri);
    if (!url || this.scores.get(url) === score) return;
    this.scores.set(url, score);
    this.changed.add(url);
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
