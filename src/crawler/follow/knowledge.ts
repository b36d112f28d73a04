import * as ox from '../../query/oxigraph.ts';
import type { Quad } from '@rdfjs/types';
import { ntTerm } from '../../rdf/terms.ts';
import type { SparqlJsonTerm } from '../../versions/types.ts';
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

  /** Whether a document was learnt this crawl. */
  has(documentUrl: string): boolean {
    return this.graphs.has(documentUrl);
  }

  get quads(): number {
    return this.store.size;
  }

  /**
   * Puts a document's triples in its graph (whatever graph a TriG document named: the document is the
   * unit the crawl fetches). Blank nodes get fresh store labels per document, so two documents'
   * `_:b0` stay apart as they are in RDF.
   */
  add(documentUrl: string, quads: readonly Quad[]): void {
    if (this.graphs.has(documentUrl) || this.store.match(null, null, null, ox.namedNode(documentUrl)).length > 0) {
      this.store.update(`DROP SILENT GRAPH ${ntTerm(ox.namedNode(documentUrl))}`);
    } else this.documents++;
    this.graphs.add(documentUrl);
    // As N-Quads text, one load per document: ~10× faster than adding quad by quad across the
    // WebAssembly boundary (measured: 1.3 ms against 12 ms a 35-triple document), and `load` gives the
    // document's blank nodes labels of their own.
    const g = ntTerm(ox.namedNode(documentUrl));
    const lines: string[] = [];
    for (const q of quads) {
      // Quoted triples (RDF 1.2) are left out: no crawl query needs them, and they cannot hold a link.
      if (q.subject.termType === 'Quad' || q.object.termType === 'Quad') continue;
      lines.push(`${ntTerm(q.subject)} ${ntTerm(q.predicate)} ${ntTerm(q.object)} ${g} .\n`);
    }
    if (lines.length) this.store.load(lines.join(''), { format: 'application/n-quads', lenient: true });
  }

  /**
   * The IRIs a SELECT binds, any variable. Read from the engine's TSV results: building a JS object per
   * solution costs ~10× more (measured on 20,000 solutions: 70 ms against 780 ms).
   */
  boundIris(shape: QueryShape, others?: { literals: number; blankNodes: number }, solutions?: Map<string, number>): Set<string> {
    const tsv = evaluateShape(this.store, shape, 'text/tab-separated-values') as string;
    const out = new Set<string>();
    // Counted only: a literal or blank node cannot be fetched.
    const literals = new Set<string>();
    const blanks = new Set<string>();
    let first = true;
    for (const line of tsv.split('\n')) {
      if (first) {
        first = false;
        continue;
      }
      for (const cell of line.split('\t')) {
        if (cell.startsWith('<') && cell.endsWith('>')) {
          const iri = unescapeIri(cell.slice(1, -1));
          out.add(iri);
          if (solutions) solutions.set(iri, (solutions.get(iri) ?? 0) + 1);
        }
        else if (others && cell !== '') (cell.startsWith('_:') ? blanks : literals).add(cell);
      }
    }
    if (others) Object.assign(others, { literals: literals.size, blankNodes: blanks.size });
    return out;
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

/** An IRI as N-Triples and TSV write it, its \\u escapes undone. */
function unescapeIri(s: string): string {
  return s.includes('\\') ? s.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_m, a: string, b: string) => String.fromCodePoint(Number.parseInt(a ?? b, 16))) : s;
}
