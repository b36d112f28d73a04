import type { GraphRows, IndexMaintenance, LogGapStore } from './backend.ts';
import type { TermCheckMemo } from './term-check-memo.ts';
import type { VersionKind } from './types.ts';

/**
 * A statement of the versioned store: SQL with `?` placeholders (the PostgreSQL dialect numbers them),
 * `params` its arguments; `each`: run once per row of arguments (SQLite's prepared statement in a loop,
 * where PostgreSQL binds arrays once).
 */
export interface Statement {
  sql: string;
  params?: unknown[];
  each?: unknown[][];
  /** Run often: kept prepared with its plan where the database plans each statement apart (PostgreSQL). */
  prepared?: boolean;
}

/** What differs in SQL text between the two databases; everything else of store.ts is written once. */
export interface DialectTraits {
  readonly kind: 'sqlite' | 'postgres';
  /** Table name prefix: '' (SQLite: `quads`, `terms`…), 'vs_' (PostgreSQL: `vs_quads`…). */
  readonly prefix: string;
  /** The row-id column of the quads table (SQLite's implicit `rowid`, PostgreSQL's `id`). */
  readonly rowId: string;
  /** The named-graph column of `quads q`: `q.ng`, or `NULL` in an old SQLite file opened read-only. */
  readonly ng: string;
  /** Byte-order collation of an ORDER BY on text (PostgreSQL's default follows the locale). */
  readonly binary: string;
  /** A placeholder whose type the statement does not fix (a constant in a select list). */
  readonly bigintParam: string;
  /** Ids or terms per statement of the chunked reads (rows by id, terms by hash). */
  readonly chunk: number;
  /**
   * Each statement is a round trip to a server (PostgreSQL): terms are resolved inside statements, a
   * query's rows come in one (rowsMatchingAt), a batch's documents are read at once (prefetch), the
   * commit runs while the caller goes on. In process (SQLite): each version is written as it is made.
   */
  readonly remote: boolean;
  /**
   * The stored end of a row's validity, for a span of ends that excludes OPEN: SQLite's `end_t` (NULL while
   * the row holds, indexed for the ended rows only), PostgreSQL's `to_t`.
   */
  readonly endColumn: string;
  /**
   * Versions keep the run of row ids they added (`first_row`, `last_row`: sqlite-schema.ts VERSIONS_TABLE):
   * false only in a store of the earlier layout that this session may not change, which still has the index
   * of every row's start that the runs replace.
   */
  readonly rowRuns: boolean;
  /** How the rows of document graphs are reached (backend.ts GraphRows): by an index of the document column, or the versions' runs. */
  readonly graphRows: GraphRows;
  /** The dictionary's hash of an N-Triples term (its `h` column): 48 bits of SHA-1, 32 in a coded SQLite dictionary (sqlite-terms.ts). */
  readonly termHash: (nt: string) => number;
  /** `SELECT id, nt` of the dictionary's literal terms with a datatype or a language tag, `where` more conditions (on `id`). */
  literalTermsSql(where: string): string;
  /** `expr` such that the planner uses no index on it (SQLite's unary `+`). */
  noIndex(expr: string): string;
  /** `column` IN the values: its SQL and arguments (a list of placeholders, or one array). */
  anyOf(column: string, values: unknown[], type: 'bigint' | 'text'): Statement;
}

/** Reading and writing through the connection. */
export interface SqlRunner {
  all<R>(sql: string, params?: unknown[]): R[];
  get<R>(sql: string, params?: unknown[]): R | undefined;
  /** Rows streamed while the caller reads them (SQLite), or read at once (PostgreSQL); `raw`: as arrays. */
  iterate<R>(sql: string, params?: unknown[], raw?: boolean): Iterable<R>;
  /** Runs statements in order (one round trip with PostgreSQL); returns each one's rows. */
  run<R>(statements: Statement[]): R[][];
}

/** Whether an N-Triples term in `column` is a literal with a datatype or a language tag. */
export const literalTerm = (column: string) => `${column} LIKE '"%' AND (${column} LIKE '%"^^<%' OR ${column} LIKE '%"@%')`;

/** An open row's triple as one string (DocumentStates), in the SQL of both databases: q the row, s p o n its terms. */
export const OPEN_ROW_LINE = "s.nt || ' ' || p.nt || ' ' || o.nt || ' ' || coalesce(n.nt || ' ', '')";

/** A document's last version and open rows, read for writing its next version. */
export interface DocumentStates {
  lasts: Array<{ nt: string; time: number; kind: VersionKind; triples: number }>;
  /** Open rows with their triple's text as `s p o [ng] ` (rows.ts tripleLineHash): the writer matches a new version's triples to them by its hash. */
  open: Array<{ nt: string; id: number; from_t: number; line: string }>;
}

/** Rows a write transaction made, term ids resolved, to be written in bulk. */
export interface PendingWrites {
  terms: Array<[id: number, h: number, nt: string]>;
  quads: Array<[id: number, g: number, s: number, p: number, o: number, from: number, to: number, ng: number | null]>;
  closes: Array<[g: number, id: number, to: number]>;
  versions: Array<[g: number, time: number, kind: VersionKind, added: number, removed: number, triples: number, firstRow: number | null, lastRow: number | null]>;
  sums: Array<[level: number, bucket: number, change: number]>;
}

/** The counters a write transaction hands ids from, and what it leaves in the store's meta table. */
export interface TransactionState {
  nextRow: number;
  nextTerm: number;
  wrote: boolean;
  /** A version of this transaction states dm:alternateOf (src/archive/alternates.ts). */
  alternates?: boolean;
}

/** The writer's transaction: its lock, its ids and how its rows go in. */
export interface WriteDialect {
  /** Takes the writers' lock; `changed`: another process wrote since (cached term ids may be stale). */
  begin(): TransactionState & { changed: boolean };
  /** The statements writing `rows` (multi-row forms for the database). */
  writeStatements(rows: PendingWrites): Statement[];
  /** Writes `statements` and the transaction's counters, and commits (PostgreSQL: without waiting). */
  commit(statements: Statement[], state: TransactionState): void;
  rollback(): void;
  documentStates(nts: string[]): DocumentStates;
  /** Empties every table but the bulk loader's and the totals' marks. */
  clearTables(): void;
}

/** What a store read from the meta rows that generation() reads, taken as generation()'s own answer. */
export interface Generation {
  key: string;
  changed: boolean;
  nextRow?: number;
  alternates?: boolean;
}

/** What the store's identity and housekeeping need of the database. */
export interface StoreDialect {
  readonly file: string;
  readonly logGaps: LogGapStore;
  /** Whether this session may write (else writes throw). */
  readonly writable: boolean;
  /** Whether the writer keeps the count totals (count-totals.ts) with each version. */
  readonly keepsTotals: boolean;
  /** The bulk load's read indexes: dropped and restored in the database's way. */
  readonly indexes: IndexMaintenance;
  /** A cache key that changes with every write; `changed`: another process wrote since the last read. */
  generation(localWrites: number): Generation;
  /**
   * Remote only: a selective query's reads in one statement (store.ts readAhead). `counts`: one scalar
   * subquery each; `rows` are read only when the counts add up to at most `rowsUpTo`; `sources`: common table
   * expressions (`name AS (…)`) that counts and rows may read. Returns the generation
   * (as generation() gives it, and taken as read), the counts, the rows; undefined when the database cannot
   * run such a statement, or its answer came too late to be taken (the store then reads as it would without).
   * Asynchronous: it may go through a connection the caller's event loop waits on.
   */
  readAhead?<R>(counts: Statement[], rows: Statement, rowsUpTo: number, sources?: Statement[]): Promise<{ generation: Generation; counts: number[]; rows: R[] } | undefined>;
  /** Bytes the store takes, and its name as shown (a URL without its password). */
  size(): { file: string; bytes: number };
  termCheckMemo(): TermCheckMemo;
  close(): Promise<void>;
}

export type VersionDialect = DialectTraits & SqlRunner & WriteDialect & StoreDialect;
