import type { Quad } from '@rdfjs/types';

/**
 * What the crawler calls when a document's graph is new, changed or gone. Versions arrive one document at
 * a time; each call is one SQLite transaction that stores only the delta against that graph's previous
 * version (BEAR's timestamp-based policy).
 */
export interface VersionedGraphStore {
  /**
   * Stores the quads of ONE document version as the graph `graph` (their own graph terms are replaced).
   * `time` is epoch ms and must not go back in time for one graph; a second version at the same time
   * replaces the first. A version identical to the current one is recorded with added = removed = 0.
   * Blank nodes are relabelled by a hash of the graph IRI and their neighbourhood (see docs/query.md).
   */
  putVersion(graph: string, time: number, quads: Iterable<Quad>): Promise<{ added: number; removed: number }>;
  /** The document is gone (404/410) at `time`: its triples stop being valid; a later putVersion revives it. */
  deleteGraph(graph: string, time: number): Promise<void>;
  close(): Promise<void>;
}

export type VersionKind = 'put' | 'deleted';

/** One version of one graph (a row of the version log). */
export interface VersionInfo {
  time: number;
  kind: VersionKind;
  /** Triples added and removed against the previous version of the same graph. */
  added: number;
  removed: number;
  /** Triples in the graph from this version on (0 for a deletion). */
  triples: number;
}

export interface GraphSummary {
  graph: string;
  firstTime: number;
  lastTime: number;
  versions: number;
  /** The last version is a deletion. */
  deleted: boolean;
  /** Triples valid now. */
  triples: number;
}

/**
 * A quad as N-Triples terms: `graph` is the document IRI (not bracketed), s/p/o are N-Triples terms.
 * `namedGraph` is the quad's own graph inside the document's dataset (an N-Triples IRI or blank node, for
 * TriG and N-Quads documents); absent for the document's default graph.
 */
export interface QuadRow {
  graph: string;
  s: string;
  p: string;
  o: string;
  namedGraph?: string;
}

/** Triples added and removed from the state at `from` to the state at `to` (both inclusive instants). */
export interface Delta {
  from: number;
  to: number;
  added: QuadRow[];
  removed: QuadRow[];
}

/** One triple-pattern position: a constant N-Triples term, or a variable (name without `?`). */
export type PatternTerm = { term: string } | { variable: string };

export interface TriplePattern {
  s: PatternTerm;
  p: PatternTerm;
  o: PatternTerm;
  /** Restrict to one document graph (IRI), or bind the graph to a variable / leave it open. */
  graph?: PatternTerm;
}

/**
 * A validity interval [from, to): `to` is undefined while the triple still holds. Over a window
 * [from, to] of a version query the interval may be cut at the window's edges, and then says so: it is
 * never dated from the window's start as if it began there, nor left open as if it held "now".
 */
export interface Interval {
  from: number;
  to?: number;
  /** It already held at the window's start `from`: it began then or earlier. */
  clippedFrom?: true;
  /** It still held at the window's end `to` (inclusive); the window does not say when it ended. */
  clippedTo?: true;
}

/** Ver(pattern): a matching quad with the intervals it held and the versions of its graph in them. */
export interface PatternVersions {
  quad: QuadRow;
  intervals: Interval[];
  /** Times of the versions of `quad.graph` in which the triple holds. */
  versions: number[];
}

export type QueryForm = 'select' | 'ask' | 'construct' | 'describe';

/** Result serialisations (the table with media types and names is src/query/results/formats.ts). */
export type ResultFormat = 'json' | 'xml' | 'csv' | 'tsv' | 'ntriples' | 'turtle' | 'rdfxml' | 'jsonld' | 'nquads';

export interface QueryOptions {
  /** Evaluate over the archive as it was at this instant (epoch ms); default: now. */
  at?: number;
  /** Only these document graphs form the dataset (also the union default graph). Default: all documents. */
  graphs?: string[];
  /** Default: json for SELECT/ASK, ntriples for CONSTRUCT/DESCRIBE. */
  format?: ResultFormat;
  /**
   * The SPARQL 1.1 Protocol dataset (default-graph-uri, named-graph-uri): when either is given, the
   * default graph is the merge of `defaultGraphs` and the named graphs are `namedGraphs` (a list not
   * given is empty), whatever the query's FROM / FROM NAMED say (Protocol §2.1.4). `graphs` is then unused.
   */
  defaultGraphs?: string[];
  namedGraphs?: string[];
  /**
   * For tests and benches: load the whole snapshot, or only the rows of the query's patterns, instead of
   * what the planner chooses (src/query/plan/planner.ts). Both give the same answers.
   */
  plan?: 'auto' | 'snapshot' | 'patterns';
}

export interface QueryResult {
  form: QueryForm;
  format: ResultFormat;
  mediaType: string;
  body: string;
  /** The instant the dataset was materialised at, and how many quads it held. */
  at: number;
  quads: number;
  /**
   * What was loaded: the whole snapshot at `at`, or the rows of the query's triple patterns at `at`; `count`: nothing,
   * counted in SQL (plan/count.ts); `first`: the first rows valid at `at` that held the solutions asked for (plan/first.ts).
   */
  plan?: 'snapshot' | 'patterns' | 'count' | 'first';
}

/** SPARQL 1.1 Query Results JSON (https://www.w3.org/TR/sparql11-results-json/). */
export interface SparqlJsonTerm {
  type: 'uri' | 'literal' | 'bnode' | 'triple';
  value: string | { subject: SparqlJsonTerm; predicate: SparqlJsonTerm; object: SparqlJsonTerm };
  'xml:lang'?: string;
  datatype?: string;
}
export interface SparqlJsonResults {
  head: { vars?: string[]; link?: string[] };
  results?: { bindings: Array<Record<string, SparqlJsonTerm>> };
  boolean?: boolean;
}

/** Ver(Q) for a whole SPARQL query: each answer with the intervals where it is an answer. */
export interface AnswerVersions {
  /** A SELECT binding, `{ boolean }` for ASK, or `{ triple }` (N-Triples line) for CONSTRUCT/DESCRIBE. */
  answer: Record<string, SparqlJsonTerm> | { boolean: boolean } | { triple: string };
  intervals: Interval[];
  /** The change points (archive version times considered) at which it is an answer. */
  versions: number[];
}

/** Change(Q): an instant where the answers to Q differ from those just before. */
export interface AnswerChange {
  time: number;
  added: number;
  removed: number;
  /** Answers from this time on. */
  answers: number;
}

export interface EvolutionOptions {
  graphs?: string[];
  /**
   * The window [from, to] (epoch ms, inclusive). The state at `from` is the baseline (answers holding
   * then start the window, flagged `clippedFrom`); changes are those at change points in (from, to];
   * answers still holding at `to` are cut there (`clippedTo`) unless nothing in the archive changed later.
   */
  from?: number;
  to?: number;
}

export interface ArchiveStats {
  file: string;
  /** Bytes on disk (database + WAL). */
  bytes: number;
  graphs: number;
  versions: number;
  terms: number;
  /** Timestamped triple rows (one per validity interval). */
  rows: number;
}
