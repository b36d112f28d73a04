import type { Quad } from '@rdfjs/types';
import type { LogGap } from './log-gaps.ts';
import type { ArchiveStats, Delta, GraphSummary, PatternVersions, QuadRow, TriplePattern, VersionedGraphStore, VersionInfo } from './types.ts';

/** The constants of a triple pattern as N-Triples terms (undefined: any term); `graph` a document or named graph. */
export interface RowConstants { s?: string; p?: string; o?: string; graph?: string }

/**
 * The WHERE conditions on the quads table (alias `q`) for a pattern's constants, and their arguments,
 * shared by both stores: `lookup` maps an N-Triples term to its id (undefined: not in the dictionary,
 * so nothing matches and the result is undefined); `param(n)` is the dialect's n-th placeholder (`?` for
 * SQLite, `$n` for PostgreSQL); `ngColumn` the named-graph column (an old SQLite file has none: `NULL`).
 */
export function patternConditions(pattern: RowConstants, lookup: (nt: string) => number | undefined, param: (n: number) => string, ngColumn = 'q.ng'): { sql: string[]; args: number[] } | undefined {
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
    args.push(id, id);
    sql.push(`(q.g = ${param(args.length - 1)} OR ${ngColumn} = ${param(args.length)})`);
  }
  return { sql, args };
}

/** The holes in the crawl-log ids an index went past (src/query/log-gaps.ts), kept beside the index. */
export interface LogGapStore {
  list(): LogGap[];
  add(from: number, to: number, seenAt: number): void;
  /** Takes `id` out of its hole; false when no hole holds it (the row was indexed already). */
  fill(id: number): boolean;
  expire(before: number): number;
  clear(): void;
}

/**
 * The versioned store as its readers and its indexer see it, whatever holds it: SQLite
 * (`<data>/versions.sqlite`, version-store.ts) or PostgreSQL (pg/pg-version-store.ts, shared by every
 * reader of one crawl database). The planner, the query process, the catch-up and the evolution queries
 * talk to this and nothing else. It is synchronous, as better-sqlite3 is; the PostgreSQL store blocks on
 * a connection thread (src/util/sync-pg.ts) and batches its writes per transaction to pay for that.
 */
export interface VersionBackend extends VersionedGraphStore {
  /** What a query process opens to read the same store: a file path, or a postgres:// URL. */
  readonly file: string;
  readonly kind: 'sqlite' | 'postgres';
  /** Changes whenever this or another process writes: a cache key for loaded snapshots. */
  readonly generation: string;
  readonly logGaps: LogGapStore;

  // ---- the indexer (catch-up.ts) ----
  /** Runs `fn` holding the store's write lock; commits if it returns, rolls back if it throws. */
  writeTransaction<T>(fn: () => T): T;
  putVersionNow(graph: string, time: number, quads: Iterable<Quad>): { added: number; removed: number };
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
  /** Commits writes made outside writeTransaction (putVersion's batch), so that other readers see them. */
  flush(): void;
  /** Bulk loading: the read indexes down for the load, built once at its end (see catch-up.ts). */
  dropReadIndexes(): string[];
  restoreIndexes(): void;
  liveBulkLoader(): number | undefined;
  missingIndexes(): string[];

  // ---- readers ----
  graphs(): GraphSummary[];
  versions(graph: string): VersionInfo[];
  changePoints(opts?: { graphs?: string[]; from?: number; to?: number }): number[];
  snapshot(at: number, opts?: { graphs?: string[] }): Iterable<QuadRow>;
  delta(from: number, to: number, opts?: { graphs?: string[] }): Delta;
  patternVersions(pattern: TriplePattern): PatternVersions[];
  stats(): ArchiveStats;

  // ---- the query planner (plan/) ----
  /** The quads valid at `at` in row-id order (the order every load keeps: plan/load.ts). */
  snapshotRows(at: number, opts?: { graphs?: string[] }): Iterable<[rowid: number, row: QuadRow]>;
  matchAt(at: number, pattern: RowConstants, opts?: { graphs?: string[] }): number[];
  rowsById(rowids: ArrayLike<number>): Iterable<[rowid: number, row: QuadRow]>;
  /**
   * Optional, for a store where each read is a round trip (PostgreSQL): the rows valid at `at` matching
   * any of `patterns`, each once, in row-id order, as matchAt and rowsById give them. `estimate` is the
   * planner's (an upper bound of their number; NaN when unknown), so a small set can come in one statement.
   */
  rowsMatchingAt?(at: number, patterns: RowConstants[], estimate: number, opts?: { graphs?: string[] }): Iterable<[rowid: number, row: QuadRow]>;
  countMatching(pattern: RowConstants, cap: number): number;
  rowsEstimate(): number;
  namedGraphsAt(at: number, opts?: { graphs?: string[] }): QuadRow[];
}
