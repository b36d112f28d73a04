import { createHash } from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';
import canonize from 'rdf-canonize';

/**
 * A version's graph in canonical N-Quads, and its hash: two serialisations of one graph give one
 * hash, so a re-serialised document is not a change. Graphs without blank nodes only need their
 * lines sorted; graphs with blank nodes go through RDFC-1.0, bounded, because a hostile document
 * can make canonicalisation take minutes. Past the bound the graph is still archived as it is
 * (blank nodes relabelled `_:b0`, `_:b1`, … in document order, so distinct nodes stay distinct),
 * and only the hash is approximate: the same lines with every label blanked, which may call two
 * different graphs equal (said in `method` and by the hash's `approx:` prefix, so `verify` can
 * recompute it from the archived lines). A graph is a set: duplicate quads never reach the output
 * or the hash.
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

function escapeNQuads(s: string): string {
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
      const lit = `"${escapeNQuads(t.value)}"`;
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

const APPROX = 'approx:';

/** A line with its blank-node labels blanked; a literal's text (between its first and last quote) is data and kept. */
function blindLine(line: string): string {
  const open = line.indexOf('"');
  if (open < 0) return line.replace(/_:\S+/g, '_:b');
  const close = line.lastIndexOf('"');
  return line.slice(0, open).replace(/_:\S+/g, '_:b') + line.slice(open, close + 1) + line.slice(close + 1).replace(/_:\S+/g, '_:b');
}

/**
 * The label-blind hash of archived N-Quads (sorted, distinct lines): a function of the faithful
 * lines, so it is recomputed from the archive. Blanked lines are sorted, not de-duplicated: two
 * distinct blank nodes with the same description count twice.
 */
function approximateHash(nquads: string): string {
  const lines = nquads.split('\n');
  lines.pop(); // after the last line's newline
  return APPROX + sha256(lines.map(blindLine).sort().join('\n'));
}

/** The hash of a version's archived N-Quads, made the way the recorded hash says it was made. */
export function graphHashOf(nquads: string, recordedHash?: string): string {
  return recordedHash?.startsWith(APPROX) ? approximateHash(nquads) : sha256(nquads);
}

function hasBlank(q: Quad): boolean {
  return q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' || q.graph.termType === 'BlankNode';
}

/** The document's quads with document-local labels `b0`, `b1`, … in order of first use: deterministic, and distinct nodes stay distinct. */
function relabelledLines(quads: Quad[]): string[] {
  const labels = new Map<string, string>();
  const label = (t: Term): string => {
    if (t.termType !== 'BlankNode') return termToNQuads(t);
    let l = labels.get(t.value);
    if (l === undefined) labels.set(t.value, l = `_:b${labels.size}`);
    return l;
  };
  return quads.map((q) => {
    const g = q.graph.termType === 'DefaultGraph' ? '' : ` ${label(q.graph)}`;
    return `${label(q.subject)} ${termToNQuads(q.predicate)} ${label(q.object)}${g} .\n`;
  });
}

/** The quads without repeats (RDFC-1.0 hashes each blank node's quads, so a repeated quad would change the labels). */
function distinct(quads: Quad[]): Quad[] {
  const seen = new Set<string>();
  const out: Quad[] = [];
  for (const q of quads) {
    const key = quadToNQuads(q);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(q);
    }
  }
  return out;
}

export async function canonicalize(quads: Quad[], opts: CanonicalOptions = {}): Promise<CanonicalGraph> {
  const blanks = new Set<string>();
  for (const q of quads) {
    if (!hasBlank(q)) continue;
    if (q.subject.termType === 'BlankNode') blanks.add(q.subject.value);
    if (q.object.termType === 'BlankNode') blanks.add(q.object.value);
    if (q.graph.termType === 'BlankNode') blanks.add(q.graph.value);
  }
  if (blanks.size === 0) {
    const nquads = sortedLines(quads.map(quadToNQuads));
    return { nquads, hash: sha256(nquads), method: 'sorted', quads: quads.length };
  }
  if (blanks.size <= (opts.maxBlankNodes ?? 20_000)) {
    try {
      const nquads: string = await canonize.canonize(distinct(quads), {
        algorithm: 'RDFC-1.0',
        maxWorkFactor: opts.maxWorkFactor ?? 1,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5_000),
      });
      return { nquads, hash: sha256(nquads), method: 'rdfc-1.0', quads: quads.length };
    } catch {
      // over the work bound or the time limit: fall through to the approximate hash
    }
  }
  const nquads = sortedLines(relabelledLines(quads));
  return { nquads, hash: approximateHash(nquads), method: 'approximate', quads: quads.length };
}
