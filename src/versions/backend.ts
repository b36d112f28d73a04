import type { NtQuad } from '../rdf/terms.ts';
import type { LogGap } from './log-gaps.ts';
import { totalAtSql } from './count-totals.ts';
import type { TermCheckMemo } from './term-check-memo.ts';
import type { TripleRow, TriplesPage } from './fragment-sql.ts';
import type { ArchiveStats, Delta, GraphSummary, PatternVersions, QuadRow, TriplePattern, VersionedGraphStore, VersionInfo, VersionKind } from './types.ts';

/**
 * ` ORDER BY <id> + 0 LIMIT n` when a limit is given (matchAt's): the first n rows by id, found by a top-n sort
 * of the pattern's index range. The `+ 0` keeps either store from walking the table in id order instead and
 * filtering it, which for a rare pattern reads every row.
 */
export function firstByRowId(idColumn: string, limit: number | undefined): string {
  const clause = limitClause(limit);
  return clause ? ` ORDER BY ${idColumn} + 0${clause}` : '';
}

/**
 * The rows of document graphs as a store reaches them: `q.g IN <set>` by an index led by the document column
 * (PostgreSQL's, and SQLite's of the layout before runs), or through the runs of row ids of the graphs' versions
 * (graphRuns), which hold every row of each. `set()` gives the graphs as an SQL set (`(?)`, a subquery, a list
 * of ids), once per use in the order written (each use may push its arguments); `bornBy()`, when given, an
 * instant after which no row is wanted (the runs of later versions are then not read).
 */
export type GraphRows = (set: () => string, bornBy?: () => string) => string;

export const graphColumn: GraphRows = (set) => `q.g IN ${set()}`;

/**
 * SQLite's: no index of every row's document (14 B a row, `quads_by_graph`; bench/ARCHIVE-SIZE.md, "A document's
 * rows through its versions' runs"), a range of row ids a version instead. A run may hold other graphs' rows
 * (sqlite-schema.ts VERSIONS_TABLE): the graph is tested as well.
 */
export function graphRuns(versions: string, quads: string): GraphRows {
  return (set, bornBy) => `(q.g IN ${set()} AND q.rowid IN (SELECT r.rowid FROM ${versions} v JOIN ${quads} r ON r.rowid BETWEEN v.first_row AND v.last_row
      WHERE v.graph IN ${set()}${bornBy ? ` AND v.time <= ${bornBy()}` : ''} AND r.g = v.graph))`;
}

/** The constants of a triple pattern as N-Triples terms (undefined: any term); `graph` a document or named graph. */
export interface RowConstants { s?: string; p?: string; o?: string; graph?: string }

/** ` LIMIT n` for a whole number n >= 0, else nothing (both stores' SQL). */
export function limitClause(limit: number | undefined): string {
  return limit !== undefined && Number.isInteger(limit) && limit >= 0 ? ` LIMIT ${limit}` : '';
}

/**
 * The WHERE conditions on the quads table (alias `q`) for a pattern's constants, and their arguments,
 * shared by both stores: `lookup` maps an N-Triples term to its id (undefined: not in the dictionary,
 * so nothing matches and the result is undefined); `param(n)` is the dialect's n-th placeholder (`?` for
 * SQLite, `$n` for PostgreSQL); `ngColumn` the named-graph column (an old SQLite file has none: `NULL`).
 */
export function patternConditions(pattern: RowConstants, lookup: (nt: string) => number | undefined, param: (n: number) => string, ngColumn = 'q.ng', graphRows: GraphRows = graphColumn): { sql: string[]; args: number[] } | undefined {
  const sql: string[] = [];
  const args: number[] = [];
  for (const column of ['s', 'p', 'o'] as const) {
    const nt = pattern[column];
    if (nt === undefined) continue;
    const id = lookup(nt);
    if (id === undefined) return undefined;
    args.push(id);
    sql.push(`q.${column} = ${param(args.length)}`);
  }
  if (pattern.graph !== undefined) {
    const id = lookup(pattern.graph);
    if (id === undefined) return undefined;
    const one = () => param(args.push(id));
    sql.push(`(${graphRows(() => `(${one()})`)} OR ${ngColumn} = ${one()})`);
  }
  return { sql, args };
}

/** What a count at T asks of the rows (plan/count.ts says what the snapshot holds, which this must match). */
export interface CountRequest {
  /** COUNT(DISTINCT …) over these positions; undefined: every quad of the snapshot that matches, once. */
  distinct?: Array<'s' | 'p' | 'o'>;
  /** The pattern may match the snapshot's `G dm:inDocument D` statements: count those too. */
  inDocument: boolean;
  /** Object terms the engine holds as one term (plan/count.ts sameTerms): each id to its class's id. */
  sameTerm?: Map<number, number>;
}

/** Versions on either side of T that bornBySql reads at most: past them a read with no constant reads most rows anyway. */
export const BORN_BY_VERSIONS = 50_000;

/**
 * The largest id a row born by T can have, as `r` (parameters: T, T): the end of the last run of a version
 * by T (sqlite-schema.ts VERSIONS_TABLE), read from the index of versions by time alone. A read with no
 * constant to seek by then scans the rows up to it instead of the whole table. NULL where that would spare
 * less than half of the table (fewer versions after T than by it: at the current instant none, and one probe
 * says so), or where more than `upTo` versions lie on either side, so the reading costs at most twice `upTo`
 * index entries.
 */
export function bornBySql(versions: string, upTo = BORN_BY_VERSIONS): string {
  return `WITH a AS (SELECT count(*) AS n FROM (SELECT 1 FROM ${versions} WHERE time > ? LIMIT ${upTo}) x)
    SELECT CASE WHEN count(*) > (SELECT n FROM a) THEN NULL ELSE coalesce(max(last_row), 0) END AS r
    FROM (SELECT last_row FROM ${versions} WHERE time <= ? ORDER BY time LIMIT (SELECT n FROM a) + 1) b`;
}

/**
 * The bound on the ids of rows born by T for a read with no constant (bornBySql): ` AND q.<row id> <= ?`, its
 * value given to `param` (which returns its placeholder), or '' when there is none.
 */
export type RowBound = (param: (value: number) => string) => string;

/** The N-Triples terms the count's SQL needs besides the pattern's (see sparql.ts: the dm:inDocument statements). */
export const IN_DOCUMENT_TERM = '<https://w3id.org/datamonitor/ns#inDocument>';
const PROVENANCE_TERM = '<https://w3id.org/datamonitor/ns#provenance>';

/**
 * The SQL of a count at T, for both stores (`quads` the table, `param(n)` the dialect's placeholder, `ngColumn`
 * the named-graph column or NULL, `namedAtT` whether a named-graph row is valid at `at`), with its arguments; undefined when nothing can match (a constant missing
 * from the dictionary, and no dm:inDocument statement that could). Rows of a named graph are counted as the
 * snapshot holds them: once per (s, p, o, graph), the graph being the named graph else the document; the
 * dm:inDocument statements are one per (named graph, document), in a graph (id -2) no row has. `bornBy`: the
 * bound on the ids of rows born by `at` (RowBound), asked for only when the pattern has no constant. `totals`:
 * the store's table of changes summed per bucket of time (count-totals.ts), when it keeps one.
 */
export function countSql(pattern: RowConstants, req: CountRequest, at: number, lookup: (nt: string) => number | undefined,
  param: (n: number) => string, quads: string, ngColumn: string, namedAtT: boolean, bornBy: RowBound, graphRows: GraphRows, totals?: string): { sql: string; args: number[] } | undefined {
  const args: number[] = [];
  const arg = (v: number): string => {
    args.push(v);
    return param(args.length);
  };
  const valid = (): string => `q.to_t > ${arg(at)} AND q.from_t <= ${arg(at)}`;
  const parts: string[] = [];
  const ids = { s: pattern.s === undefined ? undefined : lookup(pattern.s), p: pattern.p === undefined ? undefined : lookup(pattern.p), o: pattern.o === undefined ? undefined : lookup(pattern.o) };
  const missing = (['s', 'p', 'o'] as const).some((k) => pattern[k] !== undefined && ids[k] === undefined);
  // No named-graph row valid at T (the caller asked): every row is its own quad of its document and no dm:inDocument statement exists.
  const named = ngColumn !== 'NULL' && namedAtT;
  const graph = named ? `COALESCE(${ngColumn}, q.g)` : 'q.g';
  const merging = req.sameTerm && req.sameTerm.size > 0 ? req.sameTerm : undefined;
  // Ids are integers of the dictionary: written into the SQL, not bound (a CASE of thousands of parameters).
  const members = merging && [...merging.keys()].map((id) => Math.trunc(id)).join(', ');
  const matching = (only?: string): string => {
    const where = (['s', 'p', 'o'] as const).filter((k) => ids[k] !== undefined).map((k) => `q.${k} = ${arg(ids[k]!)}`);
    const same = merging ? `CASE q.o ${[...merging].map(([id, to]) => `WHEN ${Math.trunc(id)} THEN ${Math.trunc(to)}`).join(' ')} ELSE q.o END` : 'q.o';
    return `SELECT q.s AS s, q.p AS p, ${same} AS o, ${graph} AS gg FROM ${quads} q WHERE ${[...(only ? [only] : []), ...where, valid()].join(' AND ')}${where.length === 0 ? bornBy(arg) : ''}`;
  };
  if (!missing && !named && req.distinct === undefined) {
    // Every row, without a constant, is the store's kept total when it keeps one (count-totals.ts): a few ranges of
    // its key instead of a scan of the rows valid at T.
    const total = totals !== undefined && ids.s === undefined && ids.p === undefined && ids.o === undefined ? `(${totalAtSql(totals, at, arg)})` : undefined;
    if (!merging) return { sql: `SELECT ${total ?? `count(*)`} AS n${total ? '' : ` FROM (${matching()}) x`}`, args };
    // Rows valid at T are distinct quads here (no named graph): only rows whose object is in a class of
    // engine-equal terms can fall together, so only those go through DISTINCT, the others are counted as they
    // are (or taken from the total). Taking every row through it cost 43.8 s for every triple at 1,000,000
    // documents (docs/scale.md point 3).
    const plain = total ? `${total} - (SELECT count(*) FROM (${matching(`q.o IN (${members})`)}) z)` : `(SELECT count(*) FROM (${matching(`q.o NOT IN (${members})`)}) x)`;
    return { sql: `SELECT ${plain} + (SELECT count(*) FROM (SELECT DISTINCT s, p, o, gg FROM (${matching(`q.o IN (${members})`)}) m) y) AS n`, args };
  }
  if (!missing) parts.push(matching());
  if (req.inDocument && named) {
    // `G dm:inDocument D`: subject the named graph, object the document; none for the provenance graph (sparql.ts).
    const subject = pattern.s === undefined ? undefined : lookup(pattern.s);
    const object = pattern.o === undefined ? undefined : lookup(pattern.o);
    if (!(pattern.s !== undefined && subject === undefined) && !(pattern.o !== undefined && object === undefined)) {
      // Placeholders are bound in the order written: the select list's first.
      const predicate = arg(lookup(IN_DOCUMENT_TERM) ?? -1);
      const where = [`${ngColumn} IS NOT NULL`, `${ngColumn} <> ${arg(lookup(PROVENANCE_TERM) ?? -1)}`];
      if (subject !== undefined) where.push(`${ngColumn} = ${arg(subject)}`);
      if (object !== undefined) where.push(graphRows(() => `(${arg(object)})`, () => arg(at)));
      parts.push(`SELECT DISTINCT ${ngColumn} AS s, ${predicate} AS p, q.g AS o, -2 AS gg FROM ${quads} q WHERE ${[...where, valid()].join(' AND ')}`);
    }
  }
  if (parts.length === 0) return undefined;
  const columns = req.distinct === undefined ? 's, p, o, gg' : req.distinct.length === 0 ? '1' : req.distinct.join(', ');
  return { sql: `WITH m AS (${parts.join(' UNION ALL ')}) SELECT count(*) AS n FROM (SELECT DISTINCT ${columns} FROM m) x`, args };
}

/** The holes in the crawl-log ids an index went past (src/versions/log-gaps.ts), kept beside the index. */
export interface LogGapStore {
  list(): LogGap[];
  add(from: number, to: number, seenAt: number): void;
  /** Takes `id` out of its hole; false when no hole holds it (the row was indexed already). */
  fill(id: number): boolean;
  expire(before: number): number;
  clear(): void;
}

/**
 * The versioned store, whatever holds it: one implementation (store.ts) over SQLite
 * (`<data>/versions.sqlite`, sqlite-dialect.ts) or PostgreSQL (pg-dialect.ts, shared by every reader
 * of one crawl database). It is synchronous, as better-sqlite3 is; the PostgreSQL store blocks on a connection
 * thread (src/util/sync-pg.ts) and batches its writes per transaction to pay for that. Each consumer takes the roles it uses: the catch-up writes (VersionWriter,
 * IndexMaintenance), `diff` and the Memento routes read the history (HistoryReads), the SPARQL planner and
 * engine read rows and counts at an instant (ArchiveReads).
 */
export type VersionBackend = VersionedGraphStore & StoreIdentity & VersionWriter & IndexMaintenance & ArchiveReads & FragmentReads;

/** What a Triple Pattern Fragment reads (src/server/fragments.ts): a page of a pattern's triples at an instant. */
export interface FragmentReads {
  /**
   * The triples of the default graph at `at` (fragment-sql.ts) matching the pattern's s, p, o constants, each
   * once, in a fixed order, `page.limit` of them from `page.offset` on; no snapshot is loaded.
   */
  triplesAt(at: number, pattern: RowConstants, page: TriplesPage): TripleRow[];
}

/** What a query answers from: the history, the rows at an instant and the counts, and whose they are. */
export type ArchiveReads = StoreIdentity & HistoryReads & PlannerReads & CountReads;

/** Which store this is, for a query process to open the same one, and a key that changes with every write. */
export interface StoreIdentity {
  /** What a query process opens to read the same store: a file path, or a postgres:// URL. */
  readonly file: string;
  readonly kind: 'sqlite' | 'postgres';
  /** Changes whenever this or another process writes: a cache key for loaded snapshots. */
  readonly generation: string;
  /** Commits writes made outside writeTransaction (putVersion's batch), so that other readers see them. */
  flush(): void;
}

/** The indexer's side (catch-up.ts): versions written from the crawl log, and how far the log is indexed. */
export interface VersionWriter {
  readonly logGaps: LogGapStore;
  /** Runs `fn` holding the store's write lock; commits if it returns, rolls back if it throws. */
  writeTransaction<T>(fn: () => T): T;
  /** A version in N-Triples terms with the archive's blank-node labels (src/rdf/terms.ts skolemise). */
  putTermsNow(graph: string, time: number, terms: NtQuad[]): { added: number; removed: number };
  deleteGraphNow(graph: string, time: number): boolean;
  indexedLogId(): number | undefined;
  setIndexedLogId(id: number): void;
  hasVersions(): boolean;
  clear(): void;
  /**
   * Inside writeTransaction: the documents the next versions are of, to read their state at once (one
   * round trip for a batch, with PostgreSQL); optional, a hint.
   */
  prefetch?(graphs: string[]): void;
  /**
   * writeTransaction returns before its commit is done (PostgreSQL: the server writes while the caller goes
   * on), so the catch-up reads and parses a batch's WARC records ahead of its transaction; a store that
   * commits in place (SQLite) has them read one at a time inside it, holding one version in memory, not a batch's.
   */
  readonly commitsBehind?: boolean;
}

/** Bulk loading: the read indexes down for the load, built once at its end (see catch-up.ts). */
export interface IndexMaintenance {
  dropReadIndexes(): string[];
  restoreIndexes(): void;
  liveBulkLoader(): number | undefined;
  missingIndexes(): string[];
  /**
   * Builds the read indexes again, whole, when most of their rows went in one at a time since they last were
   * (inserts in the middle of a B-tree leave about a tenth of its pages empty), and gives the space back;
   * undefined when there was nothing to do (fewer than `minRows` went in so). PostgreSQL's are its own vacuum's.
   */
  compactIndexes(minRows?: number): IndexCompaction | undefined;
}

/** What a compaction of the read indexes did: `freedBytes` given back to the file system, `reusableBytes` kept in the file for later rows. */
export interface IndexCompaction {
  seconds: number;
  freedBytes: number;
  reusableBytes: number;
}

/** The archive's history: documents, their versions, the state at an instant and the changes between two. */
export interface HistoryReads {
  graphs(): GraphSummary[];
  versions(graph: string): VersionInfo[];
  /** Distinct instants of versions, oldest first; `limit`: only the first ones (the first version is one index probe). */
  changePoints(opts?: { graphs?: string[]; from?: number; to?: number; limit?: number }): number[];
  snapshot(at: number, opts?: { graphs?: string[] }): Iterable<QuadRow>;
  delta(from: number, to: number, opts?: { graphs?: string[] }): Delta;
  patternVersions(pattern: TriplePattern): PatternVersions[];
  stats(): ArchiveStats;
  /**
   * The versions that changed a document (a graph unlike the one before, or a deletion; a capture of the same graph
   * is not one) with a time in [from, to), by (time, document key), those after `after` only; at most `limit`.
   * One range of the version log's time index: what a change feed pages through.
   */
  changes(opts: { from: number; to: number; after?: ChangeKey; limit: number }): ChangeRow[];
}

/** Where a change stands in the version log's order: its time, then its document's key (a number of the store's own). */
export interface ChangeKey { time: number; key: number }

/** One change of one document (HistoryReads.changes). */
export interface ChangeRow extends ChangeKey {
  /** The document's IRI. */
  graph: string;
  kind: VersionKind;
  /** Triples in the document from this version on (0 for a deletion). */
  triples: number;
}

/** The rows the query planner (plan/) loads into the engine: at an instant, by pattern, by row id. */
export interface PlannerReads {
  /** The quads valid at `at` in row-id order (the order every load keeps: plan/load.ts). */
  snapshotRows(at: number, opts?: { graphs?: string[] }): Iterable<[rowid: number, row: QuadRow]>;
  /**
   * The ids of the rows valid at `at` matching a pattern, in no set order; `limit`: only the first that
   * many by id (a first-solutions round, plan/first.ts), sorted in SQL: no id of the rest is read here.
   */
  matchAt(at: number, pattern: RowConstants, opts?: { graphs?: string[]; limit?: number }): number[];
  rowsById(rowids: ArrayLike<number>): Iterable<[rowid: number, row: QuadRow]>;
  /**
   * Optional, for a store where each read is a round trip (PostgreSQL): the rows valid at `at` matching
   * any of `patterns`, each once, in row-id order, as matchAt and rowsById give them. `estimate` is the
   * planner's (an upper bound of their number; NaN when unknown), so a small set can come in one statement.
   */
  rowsMatchingAt?(at: number, patterns: RowConstants[], estimate: number, opts?: { graphs?: string[] }): Iterable<[rowid: number, row: QuadRow]>;
  countMatching(pattern: RowConstants, cap: number): number;
  /**
   * Optional, for a store where each read is a round trip: reads at once what planning and loading a
   * selective query at `at` will ask next (the generation, each pattern's countMatching, and, when they add
   * up to at most `rowsUpTo`, rowsMatchingAt), and, once resolved, answers those calls from it until the
   * event loop turns.
   */
  readAhead?(at: number, patterns: RowConstants[], opts: { graphs?: string[]; rowsUpTo: number }): Promise<void>;
  rowsEstimate(): number;
  namedGraphsAt(at: number, opts?: { graphs?: string[] }): QuadRow[];
  /**
   * Optional, for a store where each read is a round trip: false when it holds no `dm:alternateOf` fact
   * (src/archive/alternates.ts), as read with the generation; without it sparql.ts asks countMatching.
   */
  mayHoldAlternates?(): boolean;
}

/** What the count planner (plan/count.ts) reads: counts in SQL, and the dictionary's terms to check. */
export interface CountReads {
  /** The count of countSql at `at` (plan/count.ts: only where it is the engine's count). */
  countAt(at: number, pattern: RowConstants, req: CountRequest): number;
  /** Literal terms with a datatype or a language tag, id above `after`, in id order, at most `limit` (plan/count.ts). */
  literalTerms(after: number, limit: number): Array<{ id: number; nt: string }>;
  /**
   * Optional, for a store that can filter its dictionary in SQL with engine-form.ts: literalTerms with ids in
   * (after, upTo] not in the engine's form only, and the largest term id now (`upTo` for a first pass).
   */
  oddLiteralTerms?(after: number, limit: number, upTo: number): Array<{ id: number; nt: string }>;
  lastTermId?(): number;
  /** Where the count planner keeps its term check between processes (term-check-memo.ts). */
  termCheckMemo?(): TermCheckMemo;
  /** The dictionary ids of N-Triples terms (undefined: not in it). */
  idsOfTerms(nts: string[]): Array<number | undefined>;
}
