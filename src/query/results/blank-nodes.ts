import * as ox from '../oxigraph.ts';
import type { SparqlJsonResults, SparqlJsonTerm } from '../../versions/types.ts';

/**
 * Blank-node labels in results. A snapshot keeps the archive's own labels (`b` + 24 hex digits, `x<n>` for
 * interchangeable nodes, see skolemise in ../terms.ts): they are stable, and the same as `diff` and
 * `export` print. Nodes the query itself makes (CONSTRUCT template `[]`, BNODE()) get random labels from
 * the engine; those are renamed n0, n1, … in order of first appearance, so that the same query over the
 * same archive gives the same bytes. The two label shapes cannot collide.
 */
const ARCHIVE_LABEL = /^b[0-9a-f]{24}(?:x\d+)?$/;

export function isArchiveLabel(label: string): boolean {
  return ARCHIVE_LABEL.test(label);
}

/** Renames fresh blank nodes consistently within one result. */
export class Relabeller {
  private readonly names = new Map<string, string>();

  label(value: string): string {
    if (isArchiveLabel(value)) return value;
    let name = this.names.get(value);
    if (name === undefined) this.names.set(value, (name = `n${this.names.size}`));
    return name;
  }

  /** Whether some label was renamed (a result without fresh nodes can be passed on as the engine wrote it). */
  get renamed(): boolean {
    return this.names.size > 0;
  }
}

/** Relabels the blank nodes of SPARQL JSON results in place; returns whether any was renamed. */
export function relabelSolutions(results: SparqlJsonResults): boolean {
  const r = new Relabeller();
  const term = (t: SparqlJsonTerm): void => {
    if (t.type === 'bnode' && typeof t.value === 'string') t.value = r.label(t.value);
    else if (t.type === 'triple' && typeof t.value === 'object') {
      term(t.value.subject);
      term(t.value.predicate);
      term(t.value.object);
    }
  };
  for (const binding of results.results?.bindings ?? []) for (const v of Object.values(binding)) term(v);
  return r.renamed;
}

type OxTerm = ox.NamedNode | ox.BlankNode | ox.Literal | ox.DefaultGraph | ox.Quad | ox.Variable;

/** The quads with fresh blank nodes renamed (new objects; the engine's are left alone). */
export function relabelQuads(quads: ox.Quad[]): ox.Quad[] {
  const r = new Relabeller();
  const term = <T extends OxTerm>(t: T): T => {
    if (t.termType === 'BlankNode') {
      const label = r.label(t.value);
      return (label === t.value ? t : ox.blankNode(label)) as T;
    }
    if (t.termType === 'Quad') return quad(t as ox.Quad) as T;
    return t;
  };
  const quad = (q: ox.Quad): ox.Quad => {
    const s = term(q.subject as OxTerm);
    const o = term(q.object as OxTerm);
    const g = term(q.graph as OxTerm);
    if (s === q.subject && o === q.object && g === q.graph) return q;
    return ox.quad(s as ox.Quad['subject'], q.predicate, o as ox.Quad['object'], g as ox.Quad['graph']);
  };
  return quads.map(quad);
}
