import * as crypto from 'node:crypto';
import type { Quad, Term } from '@rdfjs/types';

/**
 * Node's one-shot digest (20.12 on): no Hash object a call, about 60 % of createHash's time for a term's
 * few dozen bytes (a first catch-up hashes every new term). The same digest of the same UTF-8 bytes.
 */
const oneShot = (crypto as unknown as { hash?: (algorithm: string, data: string, encoding: 'buffer' | 'hex') => Buffer | string }).hash;
const sha1 = (data: string): Buffer => (oneShot ? (oneShot('sha1', data, 'buffer') as Buffer) : crypto.createHash('sha1').update(data).digest());
const sha1Hex = (data: string): string => (oneShot ? (oneShot('sha1', data, 'hex') as string) : crypto.createHash('sha1').update(data).digest('hex'));

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const RDF_DIR_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#dirLangString';

/** Escapes what N-Triples forbids raw in a literal (quotes, backslash, line breaks, other controls). */
const LITERAL_SPECIALS = /["\\\u0000-\u001f\u007f]/;
const IRI_SPECIALS = /[\u0000-\u0020<>"{}|^`\\]/;

function escapeLiteral(value: string): string {
  if (!LITERAL_SPECIALS.test(value)) return value;
  return value.replace(/["\\\u0000-\u001f\u007f]/g, (c) => {
    switch (c) {
      case '"': return '\\"';
      case '\\': return '\\\\';
      case '\n': return '\\n';
      case '\r': return '\\r';
      case '\t': return '\\t';
      default: return '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0');
    }
  });
}

/** Parsers may let through characters an IRIREF cannot hold; \u-escaping keeps the line parseable. */
function escapeIri(value: string): string {
  if (!IRI_SPECIALS.test(value)) return value;
  return value.replace(/[\u0000-\u0020<>"{}|^`\\]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The N-Triples form of a term: the key of the term dictionary and the text every output is built from. */
export function ntTerm(term: Term): string {
  switch (term.termType) {
    case 'NamedNode': return `<${escapeIri(term.value)}>`;
    case 'BlankNode': return `_:${term.value}`;
    case 'Literal': {
      const quoted = `"${escapeLiteral(term.value)}"`;
      const direction = (term as { direction?: string }).direction;
      if (term.language) return `${quoted}@${term.language}${direction ? `--${direction}` : ''}`;
      const datatype = term.datatype?.value ?? XSD_STRING;
      if (datatype === XSD_STRING || datatype === RDF_LANG_STRING || datatype === RDF_DIR_LANG_STRING) return quoted;
      return `${quoted}^^<${escapeIri(datatype)}>`;
    }
    case 'Quad': return `<< ${ntTerm(term.subject)} ${ntTerm(term.predicate)} ${ntTerm(term.object)} >>`;
    case 'DefaultGraph': return '';
    case 'Variable': throw new Error(`a variable (?${term.value}) cannot be stored in the archive`);
  }
}

export function iriTerm(iri: string): string {
  return `<${escapeIri(iri)}>`;
}

/** A simple literal (xsd:string) in N-Triples: ntTerm of such a literal, without building the term. */
export function stringLiteralTerm(value: string): string {
  return `"${escapeLiteral(value)}"`;
}

/** A triple as three N-Triples terms. */
export type NtTriple = [s: string, p: string, o: string];
/**
 * A triple and the graph it was in inside its document: '' for the document's default graph, else the
 * N-Triples term of the quad's own graph name (an IRI, or a blank node labelled like the others).
 */
export type NtQuad = [s: string, p: string, o: string, g: string];

/**
 * Turns the quads of one document version into N-Triples quads with stable blank-node labels.
 *
 * A version's blank nodes are local to it, and a parser names them afresh on every fetch. Labelling each
 * one by a hash of the document IRI and its neighbourhood (the triples around it, other blank nodes
 * masked, as in the first step of RDF canonicalisation) keeps an unchanged blank node under the same label
 * across versions, so re-fetching an isomorphic document yields no spurious delta, while the document IRI
 * in the hash keeps two documents' blank nodes apart in the union of all graphs.
 *
 * A quad's own graph (TriG, N-Quads) is kept beside it: the document is the unit of versioning, its named
 * graphs are a dataset inside the version. A quad named by the document's own IRI is in its default graph.
 */
export function skolemise(graph: string, quads: Iterable<Quad>): NtQuad[] {
  const raw: Quad[] = [];
  let hasBlank = false;
  for (const q of quads) {
    raw.push(q);
    if (q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' || q.graph.termType === 'BlankNode') hasBlank = true;
  }
  const labels = hasBlank ? blankNodeLabels(graph, raw) : undefined;
  const own = iriTerm(graph);
  // Duplicates are dropped by the store (by triple hash), cheaper than a string set here.
  return raw.map((q) => {
    const g = q.graph.termType === 'DefaultGraph' ? '' : termWith(q.graph, labels);
    return [termWith(q.subject, labels), ntTerm(q.predicate), termWith(q.object, labels), g === own ? '' : g];
  });
}

function termWith(term: Term, labels: Map<string, string> | undefined): string {
  if (term.termType === 'BlankNode' && labels) return `_:${labels.get(term.value)}`;
  return ntTerm(term);
}

/**
 * The archive's label of each blank node of one document version (skolemise's): what the versioned store,
 * SPARQL results and `diff` show, and `export` writes, so that an export joins with query results and two
 * exports of one archive are the same bytes whatever labels the parser gave.
 */
export function blankNodeLabels(graph: string, quads: Quad[]): Map<string, string> {
  const around = new Map<string, Quad[]>();
  for (const t of quads) {
    for (const term of [t.subject, t.object, t.graph]) {
      if (term.termType !== 'BlankNode') continue;
      let list = around.get(term.value);
      if (!list) around.set(term.value, (list = []));
      if (list[list.length - 1] !== t) list.push(t);
    }
  }
  // Round 0 masks every other blank node; later rounds name tied nodes' neighbours by their current hash.
  let hashes = new Map<string, string>();
  for (const [node, list] of around) hashes.set(node, neighbourhoodHash(graph, node, list, undefined));
  for (let round = 0; round < 3; round++) {
    const ties = tiedNodes(hashes);
    if (ties.size === 0) break;
    const next = new Map(hashes);
    for (const node of ties) next.set(node, neighbourhoodHash(graph, node, around.get(node)!, hashes));
    hashes = next;
  }
  // Nodes still alike are interchangeable within this version: number them in a fixed order.
  const labels = new Map<string, string>();
  const used = new Map<string, number>();
  for (const node of [...hashes.keys()].sort((a, b) => (hashes.get(a)! < hashes.get(b)! ? -1 : 1))) {
    const h = hashes.get(node)!;
    const n = used.get(h) ?? 0;
    used.set(h, n + 1);
    labels.set(node, n === 0 ? `b${h}` : `b${h}x${n}`);
  }
  return labels;
}

function tiedNodes(hashes: Map<string, string>): Set<string> {
  const byHash = new Map<string, string[]>();
  for (const [node, h] of hashes) {
    const list = byHash.get(h);
    if (list) list.push(node);
    else byHash.set(h, [node]);
  }
  const ties = new Set<string>();
  for (const list of byHash.values()) if (list.length > 1) for (const n of list) ties.add(n);
  return ties;
}

function neighbourhoodHash(graph: string, node: string, quads: Quad[], named: Map<string, string> | undefined): string {
  const name = (t: Term): string => {
    if (t.termType !== 'BlankNode') return ntTerm(t);
    if (t.value === node) return '_:a';
    return named ? `_:${named.get(t.value)}` : '_:z';
  };
  const lines = quads.map((q) => `${name(q.subject)} ${ntTerm(q.predicate)} ${name(q.object)}${q.graph.termType === 'DefaultGraph' ? '' : ` ${name(q.graph)}`}`).sort();
  return sha1Hex(`${graph}\n${lines.join('\n')}`).slice(0, 24);
}

/** 48 bits of sha1: a dictionary key small enough for a JS number, collisions resolved by comparing text. */
export function termHash(nt: string): number {
  return sha1(nt).readUIntBE(0, 6);
}

/** termHash's first 32 bits, signed: 4 bytes in a SQLite record where 48 take 6 (versions/sqlite-terms.ts). */
export function termHash32(nt: string): number {
  return sha1(nt).readInt32BE(0);
}
