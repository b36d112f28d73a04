import { iriTerm, stringLiteralTerm } from '../../rdf/terms.ts';
import { IriResolver, parseForPlan, type SparqlNode } from '../sparql-ast.ts';

/**
 * What a query can read from the archive: the rows each of its triple patterns may match, by the
 * constants at their positions (N-Triples terms; undefined = any term). Evaluating the query over only
 * the rows that match some pattern gives the same answers as over the whole snapshot, because every
 * triple pattern, property path step and EXISTS sees exactly the triples it would have seen there.
 * That holds only where the answer depends on the matched triples alone: a few SPARQL forms also read
 * the set of all nodes or of all graphs (below), and then `whole` says why and the snapshot is needed.
 */
export interface RowPattern {
  s?: string;
  p?: string;
  o?: string;
  /** GRAPH <g>: a document or a named graph inside one. */
  graph?: string;
}

export type QueryReads = { patterns: RowPattern[] } | { whole: string };

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

type Node = SparqlNode;

/**
 * The patterns of a query text (with its PREFIX declarations: sparql-text.ts adds the common ones).
 * Undefined when the parser does not take the text; the engine then decides (it may know an extension,
 * or give the user its own error message).
 */
export async function queryReads(text: string): Promise<QueryReads | undefined> {
  const ast: Node | undefined = await parseForPlan(text);
  if (ast === undefined) return undefined;
  if (ast.type !== 'query') return { whole: 'not a query' };
  const walker = new Walker(ast.context ?? []);
  try {
    walker.query(ast);
  } catch (e) {
    if (e instanceof NeedsWhole) return { whole: e.message };
    throw e;
  }
  return { patterns: walker.patterns };
}

class NeedsWhole extends Error {}

class Walker {
  readonly patterns: RowPattern[] = [];
  private readonly iris: IriResolver;

  constructor(context: Node[]) {
    this.iris = new IriResolver(context);
  }

  query(q: Node): void {
    for (const def of q.context ?? []) this.iris.define(def);
    // DESCRIBE's description (all triples about a resource, and past its blank nodes) is not a pattern.
    if (q.subType === 'describe') throw new NeedsWhole('DESCRIBE');
    // The projection may hold EXISTS; the CONSTRUCT template and the dataset clauses match nothing.
    this.walk(q.variables, undefined);
    this.walk(q.where, undefined);
    this.walk(q.solutionModifiers, undefined);
    this.walk(q.values, undefined);
  }

  /** Finds every triple pattern under `node`; `graph` is the enclosing GRAPH's name (an N-Triples IRI, or '?' for a variable). */
  private walk(node: Node, graph: string | undefined): void {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const n of node) this.walk(n, graph);
      return;
    }
    if (node.type === 'query') {
      // A subquery: its own prologue cannot differ (SPARQL has none), its patterns count like ours.
      this.query(node);
      return;
    }
    if (node.type === 'triple') {
      this.triple(node, graph);
      this.walk(node.subject, graph);
      this.walk(node.object, graph);
      return;
    }
    if (node.type === 'pattern') {
      if (node.subType === 'service') throw new NeedsWhole('SERVICE');
      if (node.subType === 'graph') {
        const name = this.constant(node.name);
        // GRAPH ?g over a group that can hold without a triple of g (empty, only OPTIONAL, BIND, …)
        // answers once per graph of the dataset: that needs every graph.
        if (name === undefined && !requiresTriple(node.patterns)) throw new NeedsWhole('GRAPH ?g without a triple pattern');
        this.walk(node.patterns, name ?? '?');
        return;
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc') continue;
      this.walk(value, graph);
    }
  }

  private triple(t: Node, graph: string | undefined): void {
    const s = this.position(t.subject);
    const o = this.position(t.object);
    const g = graph === '?' ? undefined : graph;
    const pred = t.predicate;
    if (pred?.type === 'term') {
      this.patterns.push(clean({ s, p: this.position(pred), o, graph: g }));
      return;
    }
    // A property path: the triples it may walk are those of its predicates, wherever its ends are.
    const path = pathPredicates(pred, (term) => this.constant(term));
    if (path.zeroLength && (graph === '?' || (s === undefined && o === undefined))) {
      // A zero-length match between two variables binds every node of the graph (inside GRAPH ?g, of
      // every graph).
      throw new NeedsWhole('a property path that may have length zero between two variables');
    }
    if (path.zeroLength) {
      // The engine matches a constant to itself only if it is a node (a subject or object) of the graph:
      // its rows come along, so that it is one here exactly when it is one in the snapshot.
      for (const end of [s, o]) if (end !== undefined) this.patterns.push(clean({ s: end, graph: g }), clean({ o: end, graph: g }));
    }
    if (path.predicates === undefined) {
      // A negated property set: any predicate. Its ends still narrow it when the path is that one step.
      this.patterns.push(clean(path.single ? { s: path.inverse ? o : s, o: path.inverse ? s : o, graph: g } : { graph: g }));
      // `!(^p)` walks triples backwards: their subject is the path's object.
      if (path.single && path.negatedInverse) this.patterns.push(clean({ s: o, o: s, graph: g }));
      return;
    }
    for (const p of path.predicates) this.patterns.push(clean(path.single ? { s: path.inverse ? o : s, p, o: path.inverse ? s : o, graph: g } : { p, graph: g }));
  }

  /** The constant of a subject/predicate/object position that narrows the rows, else undefined. */
  private position(term: Node): string | undefined {
    if (term?.type !== 'term') return undefined; // a collection or [ … ]: a blank node, a variable here
    return this.constant(term);
  }

  /** See constantOf. */
  private constant(term: Node): string | undefined {
    return constantOf(term, this.iris);
  }
}

/**
 * A term as the archive's N-Triples text, only when an exact match of that text is what the engine
 * matches too. IRIs are; plain strings are. Typed literals are not (the engine compares some datatypes
 * by value: "01"^^xsd:integer is 1), nor language tags (compared case-insensitively): those positions
 * stay open, which reads more rows, never fewer.
 */
export function constantOf(term: Node, iris: IriResolver): string | undefined {
  if (term?.type !== 'term') return undefined;
  if (term.subType === 'namedNode') {
    const iri = iris.iri(term);
    return iri === undefined ? undefined : iriTerm(iri);
  }
  if (term.subType === 'literal') {
    const tag = term.langOrIri;
    if (tag === undefined) return stringLiteralTerm(term.value);
    if (typeof tag === 'object' && iris.iri(tag) === XSD_STRING) return stringLiteralTerm(term.value);
  }
  return undefined;
}

function clean(p: RowPattern): RowPattern {
  const out: RowPattern = {};
  if (p.s !== undefined) out.s = p.s;
  if (p.p !== undefined) out.p = p.p;
  if (p.o !== undefined) out.o = p.o;
  if (p.graph !== undefined) out.graph = p.graph;
  return out;
}

interface PathInfo {
  /** The path's IRIs; undefined when a negated set lets any predicate through. */
  predicates: string[] | undefined;
  /** Whether the whole path may match with length zero. */
  zeroLength: boolean;
  /** One step (possibly inverse): its ends are those of a triple. */
  single: boolean;
  inverse: boolean;
  /** A negated set with an inverse member (`!(^p)`). */
  negatedInverse: boolean;
}

function pathPredicates(path: Node, constant: (term: Node) => string | undefined): PathInfo {
  const predicates: string[] = [];
  let any = false;
  const visit = (p: Node): void => {
    if (p?.type === 'term') {
      const c = constant(p);
      if (c === undefined) any = true; // an IRI not resolved here: read every predicate
      else predicates.push(c);
      return;
    }
    if (p?.subType === '!') {
      any = true;
      return;
    }
    for (const item of p?.items ?? []) visit(item);
  };
  visit(path);
  // `^p` and `!(…)` alone are one step; sequences, alternatives and repetitions are not.
  const single = path?.subType === '^' && path.items?.length === 1 && path.items[0]?.type === 'term';
  const negatedAlone = path?.subType === '!';
  return {
    predicates: any ? undefined : predicates,
    // Only a path that may be empty as a whole binds a node without a triple (a `*` step after another
    // step starts from a node that step found).
    zeroLength: pathMayBeEmpty(path),
    single: single || negatedAlone,
    inverse: single,
    negatedInverse: negatedAlone && JSON.stringify(path.items ?? []).includes('"subType":"^"'),
  };
}

/**
 * Whether every solution of a group needs a triple of the graph it is evaluated on: a plain triple
 * pattern at its top level (or in a nested group, or in every branch of a UNION). A path that may have
 * length zero does not count.
 */
function requiresTriple(patterns: Node[]): boolean {
  for (const p of patterns ?? []) {
    if (p?.type !== 'pattern') continue;
    if (p.subType === 'bgp' && (p.triples ?? []).some((t: Node) => t.type === 'triple' && (t.predicate?.type === 'term' || !pathMayBeEmpty(t.predicate)))) return true;
    if (p.subType === 'group' && requiresTriple(p.patterns)) return true;
    if (p.subType === 'union' && (p.patterns ?? []).length > 0 && p.patterns.every((b: Node) => requiresTriple(b?.subType === 'group' ? b.patterns : [b]))) return true;
  }
  return false;
}

function pathMayBeEmpty(path: Node): boolean {
  if (path?.type === 'term') return false;
  if (path?.subType === '*' || path?.subType === '?') return true;
  if (path?.subType === '|') return (path.items ?? []).some(pathMayBeEmpty);
  if (path?.subType === '/') return (path.items ?? []).every(pathMayBeEmpty);
  return (path?.items ?? []).some(pathMayBeEmpty);
}
