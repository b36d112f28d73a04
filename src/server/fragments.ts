/**
 * Triple Pattern Fragments (the Linked Data Fragments specification,
 * https://linkeddatafragments.org/specification/triple-pattern-fragments/) over the archive at an instant:
 * the triples of the default graph a SPARQL query sees (src/query/sparql.ts) that match one
 * subject/predicate/object pattern, a page at a time, with the count estimate and the Hydra controls a
 * client such as Comunica needs to find every other fragment. Read from the version index through the
 * store's FragmentReads (no snapshot is loaded); written with N3.js.
 */
import { DataFactory, Parser, Writer } from 'n3';
import type { Quad, Quad_Graph, Quad_Object, Quad_Subject } from '@rdfjs/types';
import { UserError } from '../util/errors.ts';
import { ntTerm } from '../rdf/terms.ts';
import type { CountReads, FragmentReads, PlannerReads, RowConstants } from '../versions/backend.ts';
import type { TripleRow } from '../versions/fragment-sql.ts';
import { COMMON_PREFIXES as P } from '../query/prefixes.ts';

const { namedNode, literal, blankNode, quad, defaultGraph } = DataFactory;

/** Triples a page: what the specification's examples and Linked Data Fragments servers use. */
export const PAGE_SIZE = 100;

const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const VOID = P.void;
const RDF = P.rdf;
const XSD = P.xsd;
const FOAF = P.foaf;
const DCTERMS = P.dcterms;
const PREFIXES = { hydra: HYDRA, void: VOID, rdf: RDF, xsd: XSD, foaf: FOAF, dcterms: DCTERMS };

/** The pattern's parameters as the client wrote them (the specification's syntax), unbound ones absent. */
export interface PatternParams {
  subject?: string;
  predicate?: string;
  object?: string;
}

export interface FragmentRequest {
  given: PatternParams;
  /** The pattern's constants as N-Triples terms (the store's form). */
  pattern: RowConstants;
  /** 1 for the first page. */
  page: number;
  /** The cursor hydra:next carries (`after=`): the last row id of the page before. */
  after?: number;
}

const POSITIONS = [['subject', 's'], ['predicate', 'p'], ['object', 'o']] as const;

const SYNTAX = 'give an IRI as it is (http://example.org/a) or in <…>, a literal as "text", "text"@en or "1"^^<datatype IRI>, a blank node as _:label';

/**
 * Where a fragment's blank nodes are written as IRIs (skolem IRIs, RDF 1.1 Concepts §3.5), `<base>/.well-known/genid/<label>`:
 * a client cannot send a blank node of a response back (its parser gives it a label of its own, so Comunica's joins
 * through one found nothing), but it sends an IRI back as it got it, and the fragments read it as the archive's blank node.
 */
export function genidBase(publicUrl: string): string {
  return `${publicUrl}/.well-known/genid/`;
}

/**
 * A fragment request's query parameters read: each position an IRI, a literal (object only) or a blank
 * node (subject, object) in the specification's syntax, or unbound (absent, empty or a ?variable);
 * `page` a whole number from 1. Anything else is a UserError (400) saying what to give.
 */
export function readFragmentRequest(query: Record<string, unknown>, genid: string): FragmentRequest {
  const given: PatternParams = {};
  const pattern: RowConstants = {};
  for (const [name, key] of POSITIONS) {
    const value = single(query, name);
    const nt = value === undefined ? undefined : specTerm(name, value, genid);
    if (nt === undefined) continue;
    given[name] = value;
    pattern[key] = nt;
  }
  const pageText = single(query, 'page');
  const page = pageText === undefined || pageText === '' ? 1 : Number(pageText);
  if (!/^\d{1,9}$/.test(pageText ?? '1') || !Number.isSafeInteger(page) || page < 1) {
    throw new UserError(`page '${pageText}' is not a page number: give a whole number from 1 (hydra:next links to the next page)`);
  }
  const afterText = single(query, 'after');
  if (afterText !== undefined && !/^\d{1,15}$/.test(afterText)) {
    throw new UserError(`after '${afterText}' is not a cursor: follow hydra:next, or leave after= out and give page=`);
  }
  return { given, pattern, page, ...(afterText !== undefined && { after: Number(afterText) }) };
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new UserError(`${name} is given ${v.length} times: give it once`);
  return String(v);
}

/**
 * A term in the specification's syntax (as rdf-string writes it, which is what Comunica sends: a literal's
 * text between its first and last quote, not escaped) as an N-Triples term; undefined for a variable.
 */
export function specTerm(position: 'subject' | 'predicate' | 'object', value: string, genid?: string): string | undefined {
  if (value === '' || /^\?\w*$/.test(value)) return undefined;
  if (value.startsWith('"')) {
    if (position !== 'object') throw new UserError(`${position} '${value}' is a literal: only the object may be one (${SYNTAX})`);
    const m = /^"([\s\S]*)"(?:@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*)|\^\^(?:<([^<>\s]+)>|([^<>\s"]+)))?$/.exec(value);
    if (!m) throw new UserError(`object '${value}' is not a literal: ${SYNTAX}`);
    const [, text, lang, dtBracketed, dtBare] = m;
    const datatype = dtBracketed ?? dtBare;
    if (datatype !== undefined) absoluteIri('object', datatype, `the datatype of ${value}`);
    return ntTerm(lang ? literal(text!, lang.toLowerCase()) : literal(text!, datatype ? namedNode(datatype) : undefined));
  }
  if (value.startsWith('_:')) {
    if (position === 'predicate') throw new UserError(`predicate '${value}' is a blank node: a predicate is an IRI (${SYNTAX})`);
    if (!/^_:[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(value)) throw new UserError(`${position} '${value}' is not a blank node label: ${SYNTAX}`);
    return ntTerm(blankNode(value.slice(2)));
  }
  const iri = value.startsWith('<') && value.endsWith('>') ? value.slice(1, -1) : value;
  if (genid && iri.startsWith(genid) && position !== 'predicate') return specTerm(position, `_:${iri.slice(genid.length)}`);
  absoluteIri(position, iri, `'${value}'`);
  return ntTerm(namedNode(iri));
}

function absoluteIri(position: string, iri: string, shown: string): void {
  if (!/^[a-z][a-z0-9+.-]*:[^\s<>"{}|^`\\]*$/i.test(iri)) throw new UserError(`${position} ${shown} is not an absolute IRI: ${SYNTAX}`);
}

/** A page of a fragment: its triples, whether more follow, and the count estimate of the whole fragment. */
export interface FragmentPage {
  triples: TripleRow[];
  more: boolean;
  /** The cursor of the next page: the last triple's row id (none when the page ends in dm:inDocument statements). */
  next?: number;
  /** The fragment's triples, about (readFragment says how it is counted). */
  estimate: number;
}

/** Below this many rows of any time, a fragment's count is exact at T; above, the count is of those rows. */
export const EXACT_COUNT_ROWS = 10_000;
/** The rows counted at most for a large fragment's estimate: an index-only count, about 5 ms at this cap. */
export const ESTIMATE_ROWS = 100_000;

/**
 * Reads a page of the fragment at `at`: PAGE_SIZE triples and one more to know whether a next page exists,
 * and the count estimate. Counting the rows valid at T reads each row (about 90 ms for 200,000 rows at
 * 100,000 documents, against a page's few ms), so only a small fragment is counted so; a large one is
 * estimated by its rows of any time through the index alone, at most ESTIMATE_ROWS (a lower bound then:
 * clients use the count to order joins, where the magnitude matters). The whole archive is the store's
 * kept total. Never below what the pages hold.
 */
export function readFragment(archive: FragmentReads & CountReads & Pick<PlannerReads, 'countMatching'>, at: number, request: FragmentRequest, hidden: string[],
  counts?: CountCache): FragmentPage {
  const offset = (request.page - 1) * PAGE_SIZE;
  const rows = archive.triplesAt(at, request.pattern, { offset, limit: PAGE_SIZE + 1, hidden, after: request.after });
  const more = rows.length > PAGE_SIZE;
  if (more) rows.length = PAGE_SIZE;
  const next = more ? rows.at(-1)!.id : undefined;
  const key = counts && JSON.stringify([counts.generation, at, request.pattern]);
  let counted = key === undefined ? undefined : counts!.map.get(key);
  if (counted === undefined) {
    counted = countFragment(archive, at, request.pattern);
    if (key !== undefined) counts!.set(key, counted);
  }
  return { triples: rows, more, ...(next !== undefined && { next }), estimate: Math.max(counted, offset + rows.length + (more ? 1 : 0)) };
}

function countFragment(archive: CountReads & Pick<PlannerReads, 'countMatching'>, at: number, pattern: RowConstants): number {
  if (pattern.s === undefined && pattern.p === undefined && pattern.o === undefined) return archive.countAt(at, pattern, { inDocument: true });
  const ever = archive.countMatching(pattern, EXACT_COUNT_ROWS);
  return ever < EXACT_COUNT_ROWS ? archive.countAt(at, pattern, { inDocument: true }) : archive.countMatching(pattern, ESTIMATE_ROWS);
}

/**
 * The counts of the fragments read lately, by store generation, instant and pattern: a client reads a
 * fragment's pages one after the other, and each page states the same count.
 */
export class CountCache {
  readonly map = new Map<string, number>();
  generation = '';
  constructor(private readonly max = 1_000) {}

  set(key: string, count: number): void {
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, count);
  }
}

/** Percent-encoding of a URI Template's form-style query expansion (RFC 6570 §3.2.8): all but unreserved characters. */
export function encodeTemplateValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The URL of a fragment's page under `dataset` (a fragments URL without query), built as the search template expands. */
export function fragmentUrl(dataset: string, given: PatternParams, page = 1, after?: number): string {
  const parts = POSITIONS.flatMap(([name]) => (given[name] === undefined ? [] : [`${name}=${encodeTemplateValue(given[name]!)}`]));
  if (page > 1) parts.push(`page=${page}`);
  if (after !== undefined) parts.push(`after=${after}`);
  return parts.length ? `${dataset}?${parts.join('&')}` : dataset;
}

export type FragmentFormat = 'application/trig' | 'application/n-quads' | 'text/turtle' | 'application/n-triples';
/** TriG first: its metadata graph keeps the controls apart from the data (clients find it by foaf:primaryTopic). */
export const FRAGMENT_FORMATS: FragmentFormat[] = ['application/trig', 'application/n-quads', 'text/turtle', 'application/n-triples'];

export interface FragmentView {
  /** The dataset's URL (`…/fragments`, or `…/fragments/<timestamp>` for the archive at an instant). */
  dataset: string;
  /** The URL this page was asked for, as the client asked for it: the subject of its controls. */
  pageUrl: string;
  /** A human-readable title: which archive state this is. */
  title: string;
  /** genidBase of this server: the blank nodes' IRIs. */
  genid: string;
}

/**
 * The page as RDF: its triples in the default graph, then the metadata and controls of the specification
 * (a void:Dataset with its hydra:search form over subject/predicate/object, the page's count and links to
 * the first, previous and next pages) in the graph `<page#metadata>`, whose foaf:primaryTopic is the page;
 * a format without graphs has them beside the data, as the specification allows.
 */
export async function writeFragment(view: FragmentView, request: FragmentRequest, page: FragmentPage, format: FragmentFormat): Promise<string> {
  const withGraphs = format === 'application/trig' || format === 'application/n-quads';
  const meta: Quad_Graph = withGraphs ? namedNode(`${view.pageUrl}#metadata`) : defaultGraph();
  const quads: Quad[] = dataQuads(page.triples, view.genid);
  const add = (s: Quad_Subject, p: string, o: Quad_Object) => quads.push(quad(s, namedNode(p), o, meta));
  const dataset = namedNode(`${view.dataset}#dataset`);
  const pageNode = namedNode(view.pageUrl);
  const fragment = namedNode(fragmentUrl(view.dataset, request.given));
  const count = literal(String(page.estimate), namedNode(`${XSD}integer`));
  if (withGraphs) add(namedNode(`${view.pageUrl}#metadata`), `${FOAF}primaryTopic`, pageNode);
  add(dataset, `${RDF}type`, namedNode(`${VOID}Dataset`));
  add(dataset, `${RDF}type`, namedNode(`${HYDRA}Collection`));
  add(dataset, `${VOID}subset`, pageNode);
  // Labels no archived blank node has (the archive's are hashes: src/rdf/terms.ts).
  const search = blankNode('tpf-search');
  add(dataset, `${HYDRA}search`, search);
  add(search, `${HYDRA}template`, literal(`${view.dataset}{?subject,predicate,object}`));
  add(search, `${HYDRA}variableRepresentation`, namedNode(`${HYDRA}ExplicitRepresentation`));
  for (const [name] of POSITIONS) {
    const mapping = blankNode(`tpf-${name}`);
    add(search, `${HYDRA}mapping`, mapping);
    add(mapping, `${HYDRA}variable`, literal(name));
    add(mapping, `${HYDRA}property`, namedNode(`${RDF}${name}`));
  }
  add(pageNode, `${RDF}type`, namedNode(`${HYDRA}PartialCollectionView`));
  add(pageNode, `${DCTERMS}title`, literal(view.title));
  add(pageNode, `${DCTERMS}source`, dataset);
  add(pageNode, `${HYDRA}totalItems`, count);
  add(pageNode, `${VOID}triples`, count);
  add(pageNode, `${HYDRA}itemsPerPage`, literal(String(PAGE_SIZE), namedNode(`${XSD}integer`)));
  add(pageNode, `${HYDRA}first`, namedNode(fragmentUrl(view.dataset, request.given, 1)));
  if (request.page > 1) add(pageNode, `${HYDRA}previous`, namedNode(fragmentUrl(view.dataset, request.given, request.page - 1)));
  // The next page from a cursor where the page ends in a triple: it then costs its own rows, however deep.
  if (page.more) add(pageNode, `${HYDRA}next`, namedNode(fragmentUrl(view.dataset, request.given, request.page + 1, page.next)));
  if (!fragment.equals(pageNode)) add(fragment, `${VOID}subset`, pageNode);
  const prefixes = format === 'application/n-quads' || format === 'application/n-triples' ? undefined : PREFIXES;
  return new Promise((resolve, reject) => {
    const writer = new Writer({ format, prefixes });
    writer.addQuads(quads);
    writer.end((error: Error | null, text: string) => (error ? reject(error) : resolve(text)));
  });
}

/** The store's N-Triples terms as RDF/JS quads, parsed at once; a blank node as its skolem IRI under `genid` (genidBase). */
function dataQuads(triples: TripleRow[], genid: string): Quad[] {
  if (triples.length === 0) return [];
  const text = triples.map((t) => `${t.s} ${t.p} ${t.o} .\n`).join('');
  const skolem = (t: Quad_Object): Quad_Object => (t.termType === 'BlankNode' ? namedNode(genid + t.value) : t);
  return (new Parser({ format: 'application/n-triples', blankNodePrefix: '' }).parse(text) as Quad[])
    .map((q) => (q.subject.termType === 'BlankNode' || q.object.termType === 'BlankNode' ? quad(skolem(q.subject) as Quad_Subject, q.predicate, skolem(q.object)) : q));
}
