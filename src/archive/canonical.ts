import { createHash } from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';
import canonize from 'rdf-canonize';

/**
 * A version's graph in canonical N-Quads, and its hash: two serialisations of one graph give one
 * hash, so a re-serialised document is not a change. Graphs without blank nodes only need their
 * lines sorted; graphs with blank nodes go through RDFC-1.0, bounded, because a hostile document
 * can make canonicalisation take minutes. Past the bound the blank-node labels are replaced by a
 * placeholder before sorting: cheaper and still label-independent, but it can call two different
 * graphs equal (said in `method`).
 */

export type CanonicalMethod = 'sorted' | 'rdfc-1.0' | 'approximate';

export interface CanonicalGraph {
  nquads: string;
  hash: string;
  method: CanonicalMethod;
  quads: number;
}

export interface CanonicalOptions {
  /** rdf-canonize's work bound (times the deep iterations may run, per blank node; 1 = linear). */
  maxWorkFactor?: number;
  /** Hard stop for canonicalisation. */
  timeoutMs?: number;
  /** Above this many blank nodes, skip RDFC-1.0 altogether. */
  maxBlankNodes?: number;
}

function escape(s: string): string {
  // N-Quads string escapes (only what must be escaped, so output stays canonical).
  return /["\\\n\r]/.test(s) ? s.replace(/["\\\n\r]/g, (c) => (c === '"' ? '\\"' : c === '\\' ? '\\\\' : c === '\n' ? '\\n' : '\\r')) : s;
}

function iri(s: string): string {
  return /[\x00-\x20<>"{}|^`\\]/.test(s) ? `<${s.replace(/[\x00-\x20<>"{}|^`\\]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`)}>` : `<${s}>`;
}

export function termToNQuads(t: Term): string {
  switch (t.termType) {
    case 'NamedNode':
      return iri(t.value);
    case 'BlankNode':
      return `_:${t.value}`;
    case 'Literal': {
      const lit = `"${escape(t.value)}"`;
      if (t.language) return `${lit}@${t.language.toLowerCase()}`;
      if (t.datatype && t.datatype.value !== 'http://www.w3.org/2001/XMLSchema#string') return `${lit}^^${iri(t.datatype.value)}`;
      return lit;
    }
    case 'DefaultGraph':
      return '';
    default:
      return `<${t.value}>`;
  }
}

export function quadToNQuads(q: Quad): string {
  const g = q.graph.termType === 'DefaultGraph' ? '' : ` ${termToNQuads(q.graph)}`;
  return `${termToNQuads(q.subject)} ${termToNQuads(q.predicate)} ${termToNQuads(q.object)}${g} .\n`;
}

function hasBlank(q: Quad): boolean {
  return q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' || q.graph.termType === 'BlankNode';
}

function sortedLines(lines: string[]): string {
  lines.sort();
  let out = '';
  let prev = '';
  for (const l of lines) if (l !== prev) out += prev = l; // a graph is a set: drop duplicate quads
  return out;
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export async function canonicalize(quads: Quad[], opts: CanonicalOptions = {}): Promise<CanonicalGraph> {
  const blanks = new Set<string>();
  for (const q of quads) {
    if (!hasBlank(q)) continue;
    if (q.subject.termType === 'BlankNode') blanks.add(q.subject.value);
    if (q.object.termType === 'BlankNode') blanks.add(q.object.value);
  }
  if (blanks.size === 0) {
    const nquads = sortedLines(quads.map(quadToNQuads));
    return { nquads, hash: sha256(nquads), method: 'sorted', quads: quads.length };
  }
  if (blanks.size <= (opts.maxBlankNodes ?? 20_000)) {
    try {
      const nquads: string = await canonize.canonize(quads, {
        algorithm: 'RDFC-1.0',
        maxWorkFactor: opts.maxWorkFactor ?? 1,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5_000),
      });
      return { nquads, hash: sha256(nquads), method: 'rdfc-1.0', quads: quads.length };
    } catch {
      // over the work bound or the time limit: fall through to the approximate form
    }
  }
  const nquads = sortedLines(quads.map((q) => quadToNQuads(q).replace(/_:[^\s]+/g, '_:b')));
  return { nquads, hash: sha256(nquads), method: 'approximate', quads: quads.length };
}
