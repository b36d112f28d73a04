import * as ox from 'oxigraph';
import type { Quad, Term } from '@rdfjs/types';
import type { SparqlJsonTerm } from '../../query/types.ts';
import { evaluateShape } from '../../query/sparql.ts';
import type { QueryShape } from '../../query/sparql-text.ts';

/**
 * What a crawl has learnt so far: one Oxigraph store for the whole crawl, each document's triples in
 * the named graph of its URL (the default graph of a query is their union). Documents are added as
 * they come rather than the store being rebuilt for each query: a rebuild is what makes the
 * archive's `materialise` cost ~1 s at 100k quads, and a crawl asks many times.
 */
export class Knowledge {
  /** Documents added (each once; one added again replaces its graph). */
  documents = 0;
  private readonly graphs = new Set<string>();

  /** `store`: start from this store (the archive's snapshot, `--follow-archive`); owned from now on. */
  constructor(readonly store: ox.Store = new ox.Store()) {}

  get quads(): number {
    return this.store.size;
  }

  /**
   * Puts a document's triples in its graph (whatever graph a TriG document named: the document is the
   * unit the crawl fetches). Blank nodes get fresh store labels per document, so two documents'
   * `_:b0` stay apart as they are in RDF.
   */
  add(documentUrl: string, quads: readonly Quad[]): void {
    const graph = ox.namedNode(documentUrl);
    if (this.graphs.has(documentUrl) || this.store.match(null, null, null, graph).length > 0) {
      this.store.update(`DROP SILENT GRAPH <${documentUrl}>`);
    } else this.documents++;
    this.graphs.add(documentUrl);
    const blanks = new Map<string, ox.BlankNode>();
    const term = (t: Term): ox.Term => {
      if (t.termType !== 'BlankNode') return t as unknown as ox.Term;
      let b = blanks.get(t.value);
      if (!b) blanks.set(t.value, (b = ox.blankNode()));
      return b;
    };
    for (const q of quads) {
      // Quoted triples (RDF 1.2) are left out: no crawl query needs them, and they cannot hold a link.
      if (q.subject.termType === 'Quad' || q.object.termType === 'Quad') continue;
      this.store.add(ox.quad(term(q.subject) as ox.NamedNode, q.predicate as unknown as ox.NamedNode, term(q.object) as ox.NamedNode, graph));
    }
  }

  /** The solutions of a SELECT (the union default graph unless the query names its dataset). */
  select(shape: QueryShape): Map<string, ox.Term>[] {
    return evaluateShape(this.store, shape) as Map<string, ox.Term>[];
  }

  ask(shape: QueryShape): boolean {
    return evaluateShape(this.store, shape) as boolean;
  }

  /** The documents (graphs) that hold a triple; terms as the store gave them in a solution. */
  graphsOf(s: ox.Term, p: ox.Term, o: ox.Term): string[] {
    return [...new Set(this.store.match(s, p, o, null).filter((q) => q.graph.termType === 'NamedNode').map((q) => q.graph.value))];
  }

  /** Frees the store's WebAssembly memory now (see freeStore in src/query/sparql.ts). */
  close(): void {
    (this.store as unknown as { free?: () => void }).free?.();
  }
}

/** A store term as SPARQL JSON results write it. */
export function jsonTerm(t: ox.Term): SparqlJsonTerm {
  if (t.termType === 'NamedNode') return { type: 'uri', value: t.value };
  if (t.termType === 'BlankNode') return { type: 'bnode', value: t.value };
  if (t.termType === 'Literal') {
    const lit = t as ox.Literal;
    if (lit.language) return { type: 'literal', value: lit.value, 'xml:lang': lit.language };
    const dt = lit.datatype.value;
    return dt === 'http://www.w3.org/2001/XMLSchema#string' ? { type: 'literal', value: lit.value } : { type: 'literal', value: lit.value, datatype: dt };
  }
  return { type: 'literal', value: t.value };
}
