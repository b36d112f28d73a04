import * as ox from './oxigraph.ts';
import { UserError } from '../util/errors.ts';
import { analyseQuery, type LexedQuery, type QueryShape } from './sparql-text.ts';
import { engineBroken } from './engine/limits.ts';
import { describeSyntaxError } from './syntax-error.ts';
import type { ArchiveReads, RowConstants } from '../versions/backend.ts';
import { iriTerm } from '../rdf/terms.ts';
import { ALTERNATE_OF, DM, PROVENANCE_GRAPH } from '../archive/namespace.ts';
import { COMMON_PREFIXES } from './prefixes.ts';
import { defaultFormat, formatsFor, mediaTypeOf, relabelQuads, relabelSolutions, writeGraph, writeSolutions } from './results/index.ts';

/** The graph of `G dm:inDocument D` statements: which archived document a named graph came from. */
export const GRAPH_INDEX = `${DM}graphs`;
export const IN_DOCUMENT = `${DM}inDocument`;
import type { QuadRow, QueryOptions, QueryResult, SparqlJsonResults } from '../versions/types.ts';
export { renderTable, termText } from './results/table.ts';
import { StoreLoader } from './plan/load.ts';
import { planQuery, readAhead, UNPARSED, type Plan, type PlanChoice } from './plan/planner.ts';
import { FIRST_ROWS, GROWTH, firstOf } from './plan/first.ts';

let emptyStore: ox.Store | undefined;
const EMPTY = (): ox.Store => (emptyStore ??= new ox.Store());

/**
 * DATAMONITOR_QUERY_PLAN=snapshot|patterns overrides the planner: for benches that compare the two paths
 * and for diagnosis, not a user's setting (the planner chooses; both give the same answers).
 */
function planFromEnv(): PlanChoice | undefined {
  const v = process.env.DATAMONITOR_QUERY_PLAN;
  return v === 'snapshot' || v === 'patterns' || v === 'auto' ? v : undefined;
}

/** The latest state: every row still open. */
export const NOW = Number.MAX_SAFE_INTEGER - 1;

export { formatsFor, mediaTypeOf };

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
 * Blank nodes keep the archive's labels. Rows are streamed from the archive into the store a group at a
 * time (src/query/plan/load.ts): what must fit in memory is the engine's store, not a text of it.
 */
export function materialise(archive: ArchiveReads, at: number, graphs?: string[], hidden = NONE_HIDDEN): Snapshot {
  const loader = new StoreLoader(graphIndexLine);
  for (const [rowid, row] of archive.snapshotRows(at, { graphs })) if (!isHidden(row, hidden)) loader.add(rowid, row);
  const store = loader.finish();
  return { store, quads: loader.quads, at };
}

/**
 * The part of Mat(at) a query reads: the rows valid at `at` that match one of its triple patterns (and,
 * when a pattern may match them, every `dm:inDocument` statement), in the snapshot's order.
 */
export function materialisePatterns(archive: ArchiveReads, at: number, plan: Extract<Plan, { kind: 'patterns' }>, graphs?: string[], hideAlternates = false): Snapshot {
  const loader = new StoreLoader(graphIndexLine);
  const rows = patternRows(archive, at, plan, graphs);
  const named = plan.indexLines ? archive.namedGraphsAt(at, { graphs }) : [];
  const { visible, hidden } = withoutAlternates(archive, at, rows, hideAlternates);
  for (const [rowid, row] of visible) loader.add(rowid, row);
  const extra = named.flatMap((r) => (isHidden(r, hidden) ? [] : graphIndexLine(r) ?? []));
  const store = loader.finish(extra);
  return { store, quads: loader.quads, at };
}

/** The rows valid at `at` that match one of the plan's patterns, each once, in row-id order. */
function patternRows(archive: ArchiveReads, at: number, plan: Extract<Plan, { kind: 'patterns' }>, graphs: string[] | undefined): Iterable<[rowid: number, row: QuadRow]> {
  return archive.rowsMatchingAt?.(at, plan.patterns, plan.estimate, { graphs }) ?? matchingRows(archive, at, plan.patterns, graphs);
}

/**
 * A first-solutions plan (plan/first.ts): the first rows of its source valid at `at`, FIRST_ROWS of them,
 * then GROWTH times more each round, until the engine finds the solutions the query asks for over them
 * or there are no more rows; undefined when `upTo` rows did not hold them (the plan's `otherwise` answers).
 * Each round's store is freed before the next is loaded: memory is that of the last round's rows.
 */
function firstSolutions(archive: ArchiveReads, at: number, graphs: string[] | undefined, plan: Extract<Plan, { kind: 'first' }>,
  shape: QueryShape, format: QueryResult['format'], dataset: Dataset | undefined, hideAlternates: boolean): { body: string; quads: number } | undefined {
  for (let k = Math.max(FIRST_ROWS, 4 * plan.shape.needed); k <= plan.upTo; k *= GROWTH) {
    const cut = { k, more: false };
    const loader = new StoreLoader(graphIndexLine);
    const rows = plan.source ? matchingRows(archive, at, plan.source.patterns, graphs, cut) : firstOf(archive.snapshotRows(at, { graphs }), k, cut);
    for (const [rowid, row] of withoutAlternates(archive, at, rows, hideAlternates).visible) loader.add(rowid, row);
    const store = loader.finish();
    try {
      const json = evaluateShape(store, shape, 'application/sparql-results+json', dataset) as string;
      const results = JSON.parse(json) as SparqlJsonResults;
      const enough = plan.shape.ask ? results.boolean === true : (results.results?.bindings.length ?? 0) >= plan.shape.needed;
      if (enough || !cut.more) return { body: writeJson(json, results, format, shape), quads: loader.quads };
    } finally {
      freeStore(store);
    }
  }
  return undefined;
}

/**
 * Row ids first (8 bytes a row, whatever the number of patterns matching it), then each row's terms once.
 * With `first`: only the first `k` rows by id of each pattern (a first-solutions round; chosen in SQL:
 * reading every matching id took 4.9 s and 367 MB for one predicate at 1,000,000 documents), the same rows
 * from either store; `more` set when a pattern had more.
 */
function matchingRows(archive: ArchiveReads, at: number, patterns: RowConstants[], graphs: string[] | undefined,
  first?: { k: number; more: boolean }): Iterable<[rowid: number, row: QuadRow]> {
  const ids = new Set<number>();
  for (const pattern of patterns) {
    const found = archive.matchAt(at, pattern, { graphs, limit: first && first.k + 1 });
    if (first && found.length > first.k) (first.more = true), (found.length = first.k);
    for (const rowid of found) ids.add(rowid);
  }
  return archive.rowsById(Float64Array.from(ids).sort());
}

/** For a quad of a named graph G of document D: the N-Quads line `G dm:inDocument D` in GRAPH_INDEX. */
export function graphIndexLine(q: QuadRow): string | undefined {
  // dm:provenance holds facts about the document (its trust verdict), not a graph the document named.
  return q.namedGraph && q.namedGraph !== METADATA_GRAPH ? `${q.namedGraph} <${IN_DOCUMENT}> ${iriTerm(q.graph)} <${GRAPH_INDEX}> .` : undefined;
}
const METADATA_GRAPH = `<${PROVENANCE_GRAPH}>`;

const NONE_HIDDEN: ReadonlySet<string> = new Set();
const ALTERNATES: RowConstants = { p: `<${ALTERNATE_OF}>`, graph: METADATA_GRAPH };
const lastHidden = new WeakMap<ArchiveReads, { key: string; hidden: ReadonlySet<string> }>();

/*
 * Alternates: the documents stated `<alt> dm:alternateOf <doc>` in dm:provenance (src/archive/alternates.ts),
 * representations `crawl --variants` fetched from a document's `Link: rel="alternate"`. They are not the
 * document's data, agreeing or not, so a query's default dataset leaves their triples out (as replay and
 * Memento leave them out of the document's captures); the facts about them in dm:provenance stay, and a
 * query that names its graphs gets what it names.
 */

/** Whether the store may hold alternates: read with the generation where it can be (PostgreSQL), else one index seek. */
function mayHoldAlternates(archive: ArchiveReads): boolean {
  return archive.mayHoldAlternates?.() ?? archive.countMatching(ALTERNATES, 1) > 0;
}

/** Every alternate at `at`: what a whole snapshot leaves out, once per generation and instant. */
export function hiddenAlternates(archive: ArchiveReads, at: number, key = snapshotKey(archive, at, undefined)): ReadonlySet<string> {
  const hit = lastHidden.get(archive);
  if (hit?.key === key) return hit.hidden;
  const ids = archive.matchAt(at, ALTERNATES);
  const hidden = ids.length === 0 ? NONE_HIDDEN : new Set([...archive.rowsById(Float64Array.from(ids).sort())].map(([, row]) => row.graph));
  lastHidden.set(archive, { key, hidden });
  return hidden;
}

/**
 * The rows of a selective load without the alternates' data, still streamed: the archive's alternates at `at`
 * (one seek on dm:alternateOf, kept per generation and instant) filter the rows as they come.
 */
function withoutAlternates(archive: ArchiveReads, at: number, rows: Iterable<[number, QuadRow]>, hide: boolean): { visible: Iterable<[number, QuadRow]>; hidden: ReadonlySet<string> } {
  if (!hide) return { visible: rows, hidden: NONE_HIDDEN };
  const hidden = hiddenAlternates(archive, at);
  return { visible: hidden.size === 0 ? rows : visibleRows(rows, hidden), hidden };
}

function* visibleRows(rows: Iterable<[number, QuadRow]>, hidden: ReadonlySet<string>): Generator<[number, QuadRow]> {
  for (const entry of rows) if (!isHidden(entry[1], hidden)) yield entry;
}

/** A row of an alternate's version that is its data (not a dm:provenance fact about it). */
const isHidden = (row: QuadRow, hidden: ReadonlySet<string>): boolean => hidden.size > 0 && hidden.has(row.graph) && row.namedGraph !== METADATA_GRAPH;

/**
 * One snapshot per archive kept between queries: a server asking about "now" reloads only after a write.
 * The last query's pattern rows are kept beside it (a client repeating a query), never in its place:
 * a selective query does not throw away a snapshot that cost seconds.
 */
const lastSnapshot = new WeakMap<ArchiveReads, { key: string; place: string; snapshot: Snapshot }>();
const lastPatterns = new WeakMap<ArchiveReads, { key: string; snapshot: Snapshot }>();

/** `defaultDataset`: the query names no graph, so alternates are left out (a FROM the planner could not resolve loads the same graphs). */
function snapshotKey(archive: ArchiveReads, at: number, graphs: string[] | undefined, defaultDataset = true): string {
  return keyAt(archive.generation, at, graphs, defaultDataset);
}

function keyAt(generation: string, at: number, graphs: string[] | undefined, defaultDataset: boolean): string {
  return JSON.stringify([generation, at, graphs ?? null, defaultDataset]);
}

/** A snapshot key's instant and dataset, whatever the generation. */
const placeOf = (key: string): string => key.slice(key.indexOf(',') + 1);

function cachedSnapshot(archive: ArchiveReads, key: string, at: number, graphs: string[] | undefined, hideAlternates: boolean): Snapshot {
  const hit = lastSnapshot.get(archive);
  if (hit && hit.key === key) return hit.snapshot;
  if (hit) {
    lastSnapshot.delete(archive);
    freeStore(hit.snapshot.store);
  }
  const snapshot = materialise(archive, at, graphs, hideAlternates ? hiddenAlternates(archive, at, key) : NONE_HIDDEN);
  lastSnapshot.set(archive, { key, place: placeOf(key), snapshot });
  return snapshot;
}

function cachedPatterns(archive: ArchiveReads, stateKey: string, at: number, graphs: string[] | undefined, plan: Extract<Plan, { kind: 'patterns' }>, hideAlternates: boolean): Snapshot {
  const key = JSON.stringify([stateKey, plan.patterns, plan.indexLines]);
  const hit = lastPatterns.get(archive);
  if (hit && hit.key === key) return hit.snapshot;
  if (hit) {
    lastPatterns.delete(archive);
    freeStore(hit.snapshot.store);
  }
  const snapshot = materialisePatterns(archive, at, plan, graphs, hideAlternates);
  lastPatterns.set(archive, { key, snapshot });
  return snapshot;
}

export const freeStore = ox.freeStore;

/**
 * Runs a read-only SPARQL 1.1 query over the archive as it was at `opts.at` (default: now). Each document's
 * triples are in its named graph; the default graph is the union of them, unless the query has FROM /
 * FROM NAMED or the options give a protocol dataset (`defaultGraphs` / `namedGraphs`, which win over the
 * query's own, as SPARQL 1.1 Protocol §2.1.4 says). Common prefixes need no declaration (COMMON_PREFIXES).
 * Blank nodes keep the archive's labels and the body is the same bytes for the same query and archive.
 * Updates and malformed queries throw UserError.
 */
export async function runQuery(archive: ArchiveReads, sparql: string, opts: QueryOptions = {}): Promise<QueryResult> {
  return (await prepareQuery(archive, sparql, opts)).execute();
}

/**
 * A query planned and ready to run: what runQuery does before its first read of the archive (the
 * analysis and the plan, which may load a parser) apart from what it does after, all synchronous. A
 * caller that must stop a query at a limit without a thread of its own (src/query/engine/inline.ts)
 * guards `execute` alone.
 */
export interface PreparedQuery {
  plan: Plan['kind'];
  /** Reads the archive, evaluates and serialises: synchronous work only. */
  execute(): QueryResult;
}

/** runQuery's first half: the query checked and planned, nothing of the archive read but its statistics. */
export async function prepareQuery(archive: ArchiveReads, sparql: string | LexedQuery, opts: QueryOptions = {}): Promise<PreparedQuery> {
  const shape = analyseQuery(sparql);
  const format = opts.format ?? defaultFormat(shape.form);
  if (!formatsFor(shape.form).includes(format)) {
    throw new UserError(`${shape.form.toUpperCase()} results cannot be written as ${format}: use one of ${formatsFor(shape.form).join(', ')}`);
  }
  const at = opts.at ?? NOW;
  const dataset = protocolDataset(opts);
  // A dataset (the protocol's, else the query's FROM) names the graphs: load only those (when all could be resolved here).
  const graphs = dataset ? [...new Set([...dataset.defaultGraphs, ...dataset.namedGraphs])]
    : shape.hasDataset ? (shape.datasetGraphs ?? opts.graphs) : opts.graphs;
  // Read once: the generation is a round trip on PostgreSQL. Read before loading, so a write meanwhile
  // makes the next query reload, never this one keep a stale snapshot.
  const wholeDataset = graphs === undefined && !dataset && !shape.hasDataset;
  const choice = opts.plan ?? planFromEnv();
  // A store that reads ahead reads the generation with the query's counts and rows: the key is then read below
  // from what it read. A snapshot of this instant and dataset answers if nothing was written since.
  const snapshotHere = lastSnapshot.get(archive)?.place === placeOf(keyAt('', at, graphs, wholeDataset));
  await readAhead({ archive, text: shape.text, snapshotLoaded: snapshotHere, choice, wholeDataset, at, graphs });
  // The default dataset leaves alternates out; a query that names its graphs gets what it names.
  const key = snapshotKey(archive, at, graphs, wholeDataset);
  const hide = wholeDataset && mayHoldAlternates(archive);
  const loaded = lastSnapshot.get(archive)?.key === key;
  // A count in SQL would count the alternates' rows too.
  const plan = await planQuery({ archive, text: shape.text, snapshotLoaded: loaded, choice, wholeDataset: wholeDataset && !hide });
  const answer = (body: string, quads: number, kind: Plan['kind']): QueryResult => ({ form: shape.form, format, mediaType: mediaTypeOf(format), body, at: at === NOW ? Date.now() : at, quads, plan: kind });
  const execute = (): QueryResult => {
    if (plan.kind === 'count') {
      const n = archive.countAt(at, plan.count.pattern, { distinct: plan.count.distinct, inDocument: plan.count.inDocument, sameTerm: plan.sameTerm });
      // The engine writes the answer (one row, an xsd:integer), so that every format is the bytes the snapshot's query gives.
      return answer(serialise(EMPTY(), analyseQuery(`SELECT ?${plan.count.variable} WHERE { VALUES ?${plan.count.variable} { ${n} } }`), format, undefined), 0, 'count');
    }
    let load = plan;
    if (load.kind === 'first') {
      const found = firstSolutions(archive, at, graphs, load, shape, format, dataset, hide);
      if (found) return answer(found.body, found.quads, 'first');
      load = load.otherwise;
    }
    // A query the parser refused: the engine's own message, from an empty store, rather than after loading a snapshot.
    if (load.kind === 'snapshot' && load.reason === UNPARSED && !loaded) evaluateShape(EMPTY(), shape, 'application/sparql-results+json', dataset);
    const snapshot = load.kind === 'patterns' ? cachedPatterns(archive, key, at, graphs, load, hide) : cachedSnapshot(archive, key, at, graphs, hide);
    return answer(serialise(snapshot.store, shape, format, dataset), snapshot.quads, load.kind);
  };
  return { plan: plan.kind, execute };
}

/** The dataset of a protocol request: given as either list, it is the whole dataset (the other list empty). */
export interface Dataset {
  defaultGraphs: string[];
  namedGraphs: string[];
}

function protocolDataset(opts: QueryOptions): Dataset | undefined {
  if (opts.defaultGraphs === undefined && opts.namedGraphs === undefined) return undefined;
  const dataset = { defaultGraphs: opts.defaultGraphs ?? [], namedGraphs: opts.namedGraphs ?? [] };
  for (const [name, list] of [['default-graph-uri', dataset.defaultGraphs], ['named-graph-uri', dataset.namedGraphs]] as const) {
    for (const iri of list) {
      if (!/^[a-z][a-z0-9+.-]*:[^\s<>"{}|^`\\]*$/i.test(iri)) throw new UserError(`${name} '${iri}' is not an absolute IRI: give the graph's full IRI (a document's URL)`);
    }
  }
  return dataset;
}

function serialise(store: ox.Store, shape: QueryShape, format: QueryResult['format'], dataset: Dataset | undefined): string {
  if (shape.form === 'construct' || shape.form === 'describe') {
    return writeGraph(relabelQuads(evaluateShape(store, shape, undefined, dataset) as ox.Quad[]), format);
  }
  return writeJson(evaluateShape(store, shape, 'application/sparql-results+json', dataset) as string, undefined, format, shape);
}

/** `columns` (the engine's) in the order of `order`; a column `order` does not name keeps its place after those it does. */
function inOrder(columns: string[], order: string[]): string[] {
  const rank = new Map(order.map((v, i) => [v, i]));
  return columns.map((v, i) => ({ v, r: rank.get(v) ?? order.length + i })).sort((a, b) => a.r - b.r).map((c) => c.v);
}

/** The engine's SPARQL JSON results (`parsed`, when the caller has read them already) written in `format`. */
function writeJson(json: string, parsed: SparqlJsonResults | undefined, format: QueryResult['format'], shape: QueryShape): string {
  // Without blank nodes and a column order to fix there is nothing to do: the engine's JSON is the answer.
  if (format === 'json' && !json.includes('"bnode"') && !shape.variableOrder) return json;
  const results = parsed ?? (JSON.parse(json) as SparqlJsonResults);
  if (shape.variableOrder && results.head.vars) results.head.vars = inOrder(results.head.vars, shape.variableOrder);
  relabelSolutions(results);
  return writeSolutions(results, format);
}

/** Runs a query text on a loaded store (common prefixes predeclared); errors as evaluateShape's. */
export function evaluate(store: ox.Store, sparql: string, hasDataset: boolean, resultsFormat?: string): ReturnType<ox.Store['query']> {
  return evaluateShape(store, { ...analyseQuery(sparql), hasDataset }, resultsFormat);
}

/**
 * Runs an analysed query on a loaded store; a parse or evaluation error becomes a UserError with Oxigraph's
 * message (or, for a prefix the query neither declares nor finds among COMMON_PREFIXES, a message saying
 * so), a trap that broke the engine a QueryLimitError of kind `engine` (engineBroken). `resultsFormat` undefined gives the engine's objects (quads for CONSTRUCT/DESCRIBE).
 */
export function evaluateShape(store: ox.Store, shape: QueryShape, resultsFormat?: string, dataset?: Dataset): ReturnType<ox.Store['query']> {
  try {
    if (dataset) {
      return store.query(shape.text, {
        results_format: resultsFormat,
        default_graph: dataset.defaultGraphs.map((g) => ox.namedNode(g)),
        named_graphs: dataset.namedGraphs.map((g) => ox.namedNode(g)),
      });
    }
    // The union default graph would override the query's own FROM clauses: only without them.
    return store.query(shape.text, { results_format: resultsFormat, use_default_graph_as_union: !shape.hasDataset });
  } catch (e) {
    throw queryError(e, shape);
  }
}

function queryError(e: unknown, shape: QueryShape): UserError {
  // A trap is not a message about the query's text: the engine instance is broken and must not be reused.
  const broken = engineBroken(e);
  if (broken) return broken;
  const message = String((e as Error).message ?? e);
  // Positions on the first line count from the query's own text, not from the PREFIX lines put before it.
  const shifted = message.replace(/^error at 1:(\d+)/, (_m, col: string) => `error at 1:${Math.max(1, Number(col) - shape.prelude)}`);
  const described = describeSyntaxError({ message: shifted, text: shape.text.slice(shape.prelude), unknownPrefixes: shape.unknownPrefixes, predeclared: Object.keys(COMMON_PREFIXES) });
  if (described) return new UserError(described);
  return new UserError(`SPARQL query failed: ${shifted}`);
}

