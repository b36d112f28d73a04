import { createHash } from 'node:crypto';
import type { Literal, Quad, Term } from '@rdfjs/types';
import canonize from 'rdf-canonize';

/**
 * A version's graph in canonical N-Quads, and its hash: two serialisations of one graph give one
 * hash, so a re-serialised document is not a change. Graphs without blank nodes only need their
 * lines sorted; graphs with blank nodes get RDFC-1.0's labels. Where every blank node's first-degree
 * hash is unique (the common case: a few blank nodes with distinct neighbourhoods) those labels
 * follow from the hashes alone and are issued here (`firstDegreeLabels`); only where blank nodes
 * share a hash does the general algorithm (rdf-canonize) run, bounded, because a hostile document
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

const { NQuads } = canonize;
/** RDFC-1.0's stand-ins in a first-degree hash: the blank node being hashed, and every other one. */
const REFERENCE = { termType: 'BlankNode', value: 'a' } as const;
const OTHER = { termType: 'BlankNode', value: 'z' } as const;

/**
 * RDFC-1.0 (https://www.w3.org/TR/rdf-canon/) when its first-degree hashes decide everything: each
 * blank node's hash is SHA-256 of the sorted N-Quads of the quads that mention it (itself written
 * `_:a`, other blank nodes `_:z`), and where each hash belongs to one blank node, step 4.4.3 (5)
 * issues `c14n0`, `c14n1`, … in the hashes' order and nothing else runs. That is what rdf-canonize
 * does too, through the same serialiser, so the output is byte-identical (a test compares them);
 * what this saves is the library's general machinery (async steps, identifier issuers, digests per
 * node), with which canonicalisation cost more than Turtle parsing on documents with one blank node
 * (10 % of the crawler's busy CPU, 5.7 % now: bench/CRAWL.md). Undefined when two blank nodes share
 * a hash (isomorphic neighbourhoods): then only the N-degree algorithm can order them.
 */
export function firstDegreeLabels(quads: Quad[]): string | undefined {
  const labelled = byFirstDegree(quads);
  // A graph is a set, and RDFC-1.0 hashes each quad once. Repeats are rare (a parser passes on what
  // the document repeats), so the set is made only when the labelled lines show one, not for every
  // document: with labels issued, two lines are equal exactly when their quads are.
  return labelled === REPEATED ? (byFirstDegree(distinct(quads)) as string | undefined) : labelled;
}

const REPEATED = Symbol('repeated quads');

function byFirstDegree(quads: Quad[]): string | undefined | typeof REPEATED {
  const mentions = new Map<string, Quad[]>();
  const mention = (t: Term, q: Quad): void => {
    if (t.termType !== 'BlankNode') return;
    const list = mentions.get(t.value);
    if (!list) mentions.set(t.value, [q]);
    else if (list.at(-1) !== q) list.push(q); // a quad that names the node twice counts once, as in RDFC-1.0
  };
  for (const q of quads) {
    mention(q.subject, q);
    mention(q.object, q);
    mention(q.graph, q);
  }
  const nodeOfHash = new Map<string, string>();
  for (const [id, list] of mentions) {
    const stand = (t: Term) => (t.termType !== 'BlankNode' ? t : t.value === id ? REFERENCE : OTHER);
    const lines = list.map((q) => NQuads.serializeQuadComponents(stand(q.subject), q.predicate, stand(q.object), stand(q.graph)));
    lines.sort();
    const h = createHash('sha256');
    for (const l of lines) h.update(l);
    const hash = h.digest('hex');
    if (nodeOfHash.has(hash)) return undefined;
    nodeOfHash.set(hash, id);
  }
  const labels = new Map<string, string>();
  for (const hash of [...nodeOfHash.keys()].sort()) labels.set(nodeOfHash.get(hash)!, `_:c14n${labels.size}`);
  return sortedBySubject(quads, labels);
}

/** What rdf-canonize's serialiser escapes in an IRI and in a string literal (NQuads.js), as \uXXXX or ECHAR. */
const IRI_ESCAPE = /[\u0000-\u0020<>"{}|^`\\]/;
const IRI_ESCAPES = /[\u0000-\u0020<>"{}|^`\\]/g;
const STRING_ESCAPE = /[\u0000-\u001F\u007F"\\]/;
const STRING_ESCAPES = /[\u0000-\u001F\u007F"\\]/g;
const ECHAR: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };
const uchar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

function rdfcIri(iri: string): string {
  return IRI_ESCAPE.test(iri) ? `<${iri.replace(IRI_ESCAPES, uchar)}>` : `<${iri}>`;
}

function rdfcString(s: string): string {
  return STRING_ESCAPE.test(s) ? s.replace(STRING_ESCAPES, (c) => ECHAR[c] ?? uchar(c)) : s;
}

/**
 * A quad's N-Quads line after its subject, as NQuads.serializeQuadComponents writes it (the first-degree
 * hashes above use that function itself, and a test compares the outputs). A literal's parts are read
 * once each: an N3.js literal works each out again from its id on every read.
 */
function lineAfterSubject(q: Quad, labels: Map<string, string>): string {
  const p = q.predicate.termType === 'NamedNode' ? rdfcIri(q.predicate.value) : `_:${q.predicate.value}`;
  const o = q.object;
  let object: string;
  if (o.termType === 'NamedNode') object = rdfcIri(o.value);
  else if (o.termType === 'BlankNode') object = labels.get(o.value)!;
  else {
    const datatype = (o as Literal).datatype.value;
    object = `"${rdfcString(o.value)}"`;
    if (datatype === RDF_LANG_STRING) {
      const language = (o as Literal).language;
      if (language) object += `@${language}`;
    } else if (datatype !== XSD_STRING) object += `^^${rdfcIri(datatype)}`;
  }
  const g = q.graph;
  const graph = g.termType === 'NamedNode' ? ` ${rdfcIri(g.value)}` : g.termType === 'BlankNode' ? ` ${labels.get(g.value)!}` : '';
  return ` ${p} ${object}${graph} .\n`;
}

/**
 * The labelled graph's sorted N-Quads. Sorting whole lines compares each pair across the subject they
 * mostly share (35 lines of a typical page cost as much to sort as to write); sorting subjects, then
 * each subject's rest, gives the same order, because a written subject is never a proper prefix of
 * another one unless it is a blank-node label (`_:c14n1`, `_:c14n10`), whose line goes on with a space,
 * below every character a label can go on with. REPEATED when two lines are the same.
 */
function sortedBySubject(quads: Quad[], labels: Map<string, string>): string | typeof REPEATED {
  const bySubject = new Map<string, string[]>();
  let last: Term | undefined;
  let rests: string[] = [];
  for (const q of quads) {
    // A parser hands the same subject term to a subject's consecutive quads: written once for them.
    if (q.subject !== last) {
      last = q.subject;
      const s = q.subject.termType === 'NamedNode' ? rdfcIri(q.subject.value) : q.subject.termType === 'BlankNode' ? labels.get(q.subject.value)! : `_:${q.subject.value}`;
      let list = bySubject.get(s);
      if (!list) bySubject.set(s, list = []);
      rests = list;
    }
    rests.push(lineAfterSubject(q, labels));
  }
  const out: string[] = [];
  for (const s of [...bySubject.keys()].sort()) {
    const list = bySubject.get(s)!.sort();
    for (let i = 0; i < list.length; i++) {
      if (i > 0 && list[i] === list[i - 1]) return REPEATED;
      out.push(s, list[i]!);
    }
  }
  return out.join('');
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
    const fast = firstDegreeLabels(quads);
    if (fast !== undefined) return { nquads: fast, hash: sha256(fast), method: 'rdfc-1.0', quads: quads.length };
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
