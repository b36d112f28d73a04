import * as ox from 'oxigraph';
import { UserError } from '../util/errors.ts';
import { analyseQuery } from './sparql-text.ts';
import { nquadLine, type VersionArchive } from './version-store.ts';
import { iriTerm } from './terms.ts';
import { DM } from '../archive/export.ts';

/** The graph of `G dm:inDocument D` statements: which archived document a named graph came from. */
export const GRAPH_INDEX = `${DM}graphs`;
export const IN_DOCUMENT = `${DM}inDocument`;
import type { QuadRow, QueryForm, QueryOptions, QueryResult, ResultFormat, SparqlJsonResults, SparqlJsonTerm } from './types.ts';
import { plural } from '../util/units.ts';

/** The latest state: every row still open. */
export const NOW = Number.MAX_SAFE_INTEGER - 1;

const MEDIA_TYPES: Record<ResultFormat, string> = {
  json: 'application/sparql-results+json',
  xml: 'application/sparql-results+xml',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  ntriples: 'application/n-triples',
  turtle: 'text/turtle',
  rdfxml: 'application/rdf+xml',
  nquads: 'application/n-quads',
};
const SOLUTION_FORMATS: ResultFormat[] = ['json', 'xml', 'csv', 'tsv'];
const GRAPH_FORMATS: ResultFormat[] = ['ntriples', 'turtle', 'rdfxml', 'nquads'];

export function mediaTypeOf(format: ResultFormat): string {
  return MEDIA_TYPES[format];
}

/** Which formats fit a query form (for content negotiation in the server). */
export function formatsFor(form: QueryForm): ResultFormat[] {
  return form === 'select' || form === 'ask' ? SOLUTION_FORMATS : GRAPH_FORMATS;
}

export interface Snapshot {
  store: ox.Store;
  quads: number;
  at: number;
}

/**
 * Mat(at): the quads valid at `at` loaded into an in-memory Oxigraph store, each in its document's graph,
 * or, for a quad of a TriG or N-Quads document's named graph G, in graph G. The document of such a graph
 * stays recoverable: `G dm:inDocument D` is stated in the graph `dm:graphs` (GRAPH_INDEX). Two documents
 * naming the same graph G share it in the snapshot, as any merge of datasets would.
 * One `load` call of one N-Quads text: Oxigraph renames blank nodes per call, so splitting the text would
 * split a blank node in two. The text is the whole snapshot: the archive's limit is a snapshot that fits
 * in memory (about 150 bytes a quad), not the number of versions.
 */
export function materialise(archive: VersionArchive, at: number, graphs?: string[]): Snapshot {
  const lines: string[] = [];
  const containedIn = new Set<string>();
  for (const q of archive.snapshot(at, { graphs })) {
    lines.push(nquadLine(q));
    const index = graphIndexLine(q);
    if (index) containedIn.add(index);
  }
  const quads = lines.length;
  lines.push(...containedIn);
  const store = new ox.Store();
  if (lines.length > 0) {
    lines.push('');
    store.load(lines.join('\n'), { format: 'application/n-quads', no_transaction: true, lenient: true });
  }
  return { store, quads, at };
}

/** For a quad of a named graph G of document D: the N-Quads line `G dm:inDocument D` in GRAPH_INDEX. */
export function graphIndexLine(q: QuadRow): string | undefined {
  return q.namedGraph ? `${q.namedGraph} <${IN_DOCUMENT}> ${iriTerm(q.graph)} <${GRAPH_INDEX}> .` : undefined;
}

/** One snapshot per archive kept between queries: a server asking about "now" reloads only after a write. */
const lastSnapshot = new WeakMap<VersionArchive, { key: string; snapshot: Snapshot }>();

function cachedSnapshot(archive: VersionArchive, at: number, graphs: string[] | undefined): Snapshot {
  const key = JSON.stringify([archive.generation, at, graphs ?? null]);
  const hit = lastSnapshot.get(archive);
  if (hit && hit.key === key) return hit.snapshot;
  if (hit) freeStore(hit.snapshot.store);
  const snapshot = materialise(archive, at, graphs);
  lastSnapshot.set(archive, { key, snapshot });
  return snapshot;
}

/**
 * Frees an Oxigraph store's WebAssembly memory now. Left to the garbage collector, dropped stores pile up
 * in the WASM heap and make the next load several times slower (measured: ~1 s instead of ~0.2 s).
 */
export function freeStore(store: ox.Store): void {
  (store as unknown as { free?: () => void }).free?.();
}

/**
 * Runs a read-only SPARQL 1.1 query over the archive as it was at `opts.at` (default: now). Each document's
 * triples are in its named graph; the default graph is the union of them (unless the query has FROM).
 * Updates and malformed queries throw UserError.
 */
export async function runQuery(archive: VersionArchive, sparql: string, opts: QueryOptions = {}): Promise<QueryResult> {
  const shape = analyseQuery(sparql);
  const format = opts.format ?? (shape.form === 'select' || shape.form === 'ask' ? 'json' : 'ntriples');
  if (!formatsFor(shape.form).includes(format)) {
    throw new UserError(`${shape.form.toUpperCase()} results cannot be written as ${format}: use one of ${formatsFor(shape.form).join(', ')}`);
  }
  const at = opts.at ?? NOW;
  // A FROM clause defines the dataset: load only the graphs it names (when all could be resolved here).
  const graphs = shape.hasDataset ? (shape.datasetGraphs ?? opts.graphs) : opts.graphs;
  const snapshot = cachedSnapshot(archive, at, graphs);
  const body = evaluate(snapshot.store, sparql, shape.hasDataset, MEDIA_TYPES[format]) as string;
  return { form: shape.form, format, mediaType: MEDIA_TYPES[format], body, at: at === NOW ? Date.now() : at, quads: snapshot.quads };
}

/** Runs a query on a loaded store; a parse or evaluation error becomes a UserError with Oxigraph's message. */
export function evaluate(store: ox.Store, sparql: string, hasDataset: boolean, resultsFormat?: string): ReturnType<ox.Store['query']> {
  try {
    // The union default graph would override the query's own FROM clauses: only without them.
    return store.query(sparql, { results_format: resultsFormat, use_default_graph_as_union: !hasDataset });
  } catch (e) {
    throw new UserError(`SPARQL query failed: ${(e as Error).message ?? e}`);
  }
}

/** A term of a JSON result as text for a terminal table or CSV: IRIs in <>, literals quoted with tags. */
export function termText(term: SparqlJsonTerm | undefined): string {
  if (!term) return '';
  if (term.type === 'triple' && typeof term.value === 'object') {
    return `<< ${termText(term.value.subject)} ${termText(term.value.predicate)} ${termText(term.value.object)} >>`;
  }
  const value = String(term.value);
  if (term.type === 'uri') return `<${value}>`;
  if (term.type === 'bnode') return `_:${value}`;
  const quoted = JSON.stringify(value);
  if (term['xml:lang']) return `${quoted}@${term['xml:lang']}`;
  if (term.datatype && term.datatype !== 'http://www.w3.org/2001/XMLSchema#string') return `${quoted}^^<${term.datatype}>`;
  return quoted;
}

/** A SELECT/ASK result (JSON format) as an aligned text table for a terminal. */
export function renderTable(results: SparqlJsonResults, maxWidth = 80): string {
  if (typeof results.boolean === 'boolean') return `${results.boolean}\n`;
  const vars = results.head.vars ?? [];
  const bindings = results.results?.bindings ?? [];
  const clip = (s: string): string => (s.length > maxWidth ? s.slice(0, maxWidth - 1) + '…' : s);
  const rows = bindings.map((b) => vars.map((v) => clip(termText(b[v]))));
  const header = vars.map((v) => `?${v}`);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join(' │ ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('─┼─');
  const count = `${plural(bindings.length, 'result')}`;
  return [line(header), rule, ...rows.map(line), count].join('\n') + '\n';
}
