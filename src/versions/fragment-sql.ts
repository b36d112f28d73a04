import { PROVENANCE_GRAPH } from '../archive/namespace.ts';
import { IN_DOCUMENT_TERM, patternConditions, type GraphRows, type RowBound, type RowConstants } from './backend.ts';

/** A triple of the default graph at an instant, as N-Triples terms. */
export interface TripleRow {
  s: string;
  p: string;
  o: string;
  /** The row id it was read from: a cursor for the next page (none for a dm:inDocument statement). */
  id?: number;
}

/** One page of a triple pattern's matches: `offset` triples skipped, at most `limit` returned. */
export interface TriplesPage {
  offset: number;
  limit: number;
  /**
   * A cursor: the id of the last row of the page before (TripleRow.id). The page starts after it and
   * `offset` is not used: a page costs its own rows wherever it is, where OFFSET reads every row before it.
   */
  after?: number;
  /** Documents whose data the default graph leaves out (alternates: src/query/sparql.ts); their dm:provenance facts stay. */
  hidden?: string[];
}

/** What the statements need of the store: its tables, columns and term look-up. */
export interface FragmentTables {
  quads: string;
  terms: string;
  /** The row-id column (`rowid`, `id`) and the named-graph column (or `NULL` in an old SQLite file). */
  rowId: string;
  ng: string;
  noIndex(expr: string): string;
  lookup(nt: string): number | undefined;
  /** The bound on the ids of rows born by T, for a pattern with no constant (backend.ts RowBound). */
  bornBy: RowBound;
  /** How the rows of a document are reached (backend.ts GraphRows). */
  graphRows: GraphRows;
}

const PROVENANCE_TERM = `<${PROVENANCE_GRAPH}>`;

/**
 * The triples a fragment serves: the default graph a query sees (src/query/sparql.ts), the union of every
 * document's and named graph's triples valid at T, each triple once, then `G dm:inDocument D` for each
 * named graph G of a document D. The triples come in row-id order, each the first row (lowest id) of its
 * triple valid at T: a page is the first rows of an index range, read until the page is full, with no sort
 * of every match (sorting them by term ids, with DISTINCT, took 43 ms a page of every triple at 3,000
 * documents, growing with the archive; this takes 0.13 ms). A deep page costs the rows before it (OFFSET).
 * Rows valid at a past T keep their ids, so the pages of a past instant never move; undefined when a
 * constant is not in the dictionary.
 */
export function tripleRowsSql(pattern: RowConstants, at: number, page: TriplesPage, t: FragmentTables): { sql: string; args: unknown[] } | undefined {
  const rows = firstRows(pattern, at, page.hidden ?? [], t);
  if (!rows) return undefined;
  const after = page.after === undefined ? '' : ` AND q.${t.rowId} > ${Math.max(0, Math.trunc(page.after))}`;
  return {
    sql: `SELECT x.id AS id, ts.nt AS s, tp.nt AS p, t_o.nt AS o FROM (${rows.sql}${after} ORDER BY q.${t.rowId} LIMIT ? OFFSET ?) x
      JOIN ${t.terms} ts ON ts.id = x.s JOIN ${t.terms} tp ON tp.id = x.p JOIN ${t.terms} t_o ON t_o.id = x.o ORDER BY x.id`,
    args: [...rows.args, Math.max(0, Math.trunc(page.limit)), page.after === undefined ? Math.max(0, Math.trunc(page.offset)) : 0],
  };
}

/** The number of triples tripleRowsSql pages through (for a page past their end, to know where the dm:inDocument ones start). */
export function tripleCountSql(pattern: RowConstants, at: number, page: TriplesPage, t: FragmentTables): { sql: string; args: unknown[] } | undefined {
  const rows = firstRows(pattern, at, page.hidden ?? [], t);
  return rows && { sql: `SELECT count(*) AS n FROM (${rows.sql}) c`, args: rows.args };
}

/** The rows valid at `at` matching the pattern that are their triple's first such row (ids and terms' ids). */
function firstRows(pattern: RowConstants, at: number, hidden: string[], t: FragmentTables): { sql: string; args: unknown[] } | undefined {
  const where = patternConditions({ s: pattern.s, p: pattern.p, o: pattern.o }, t.lookup, () => '?');
  if (!where) return undefined;
  const id = `q.${t.rowId}`;
  // No earlier row of the same triple valid at T: a seek of the (s, p) index a row. Not (o, p), which SQLite
  // took when left to choose: every row of `?x a C` then read all earlier rows of the class, 2.3 s for page
  // 21 of one at 3,000 documents against 13 ms.
  const first = `NOT EXISTS (SELECT 1 FROM ${t.quads} q2 WHERE q2.s = q.s AND q2.p = q.p AND ${t.noIndex('q2.o')} = q.o AND q2.${t.rowId} < ${id} AND q2.to_t > ? AND q2.from_t <= ?${hiddenCondition(t, 'q2', hidden)})`;
  const args = [...where.args, at, at, at, at];
  const bound = where.sql.length === 0 ? t.bornBy((v) => (args.push(v), '?')) : '';
  return {
    sql: `SELECT ${id} AS id, q.s AS s, q.p AS p, q.o AS o FROM ${t.quads} q WHERE ${[...where.sql, 'q.to_t > ?', 'q.from_t <= ?', first].join(' AND ')}${bound}${hiddenCondition(t, 'q', hidden)}`,
    args,
  };
}

/**
 * The `G dm:inDocument D` statements valid at T matching the pattern (its predicate unbound or
 * dm:inDocument), ordered by (G, D), a page of them: read through the partial index of named-graph
 * rows (the validity's index would read every open row). Undefined when none can match.
 */
export function inDocumentSql(pattern: RowConstants, at: number, page: TriplesPage, t: FragmentTables): { sql: string; args: unknown[] } | undefined {
  if (t.ng === 'NULL' || (pattern.p !== undefined && pattern.p !== IN_DOCUMENT_TERM)) return undefined;
  const s = pattern.s === undefined ? undefined : t.lookup(pattern.s);
  const o = pattern.o === undefined ? undefined : t.lookup(pattern.o);
  if ((pattern.s !== undefined && s === undefined) || (pattern.o !== undefined && o === undefined)) return undefined;
  const args: unknown[] = [];
  const conditions = [`${t.ng} IS NOT NULL`, `${t.ng} <> ${Math.trunc(t.lookup(PROVENANCE_TERM) ?? -1)}`];
  if (s !== undefined) (args.push(s), conditions.push(`${t.ng} = ?`));
  if (o !== undefined) conditions.push(t.graphRows(() => (args.push(o), '(?)'), () => (args.push(at), '?')));
  conditions.push(`${t.noIndex('q.to_t')} > ?`, `${t.noIndex('q.from_t')} <= ?`);
  args.push(at, at, Math.max(0, Math.trunc(page.limit)), Math.max(0, Math.trunc(page.offset)));
  return {
    sql: `SELECT tn.nt AS s, tg.nt AS o FROM (SELECT DISTINCT ${t.ng} AS ng, q.g AS g FROM ${t.quads} q WHERE ${conditions.join(' AND ')}${hiddenCondition(t, 'q', page.hidden ?? [])}
      ORDER BY ng, g LIMIT ? OFFSET ?) x JOIN ${t.terms} tn ON tn.id = x.ng JOIN ${t.terms} tg ON tg.id = x.g ORDER BY x.ng, x.g`,
    args,
  };
}

/** Leaves out the rows of hidden documents but their dm:provenance facts (ids of the dictionary, in the SQL: a handful at most). */
function hiddenCondition(t: FragmentTables, alias: string, hidden: string[]): string {
  const ids = hidden.map((g) => t.lookup(`<${g}>`)).filter((id): id is number => id !== undefined).map((id) => Math.trunc(id));
  if (ids.length === 0) return '';
  if (t.ng === 'NULL') return ` AND ${alias}.g NOT IN (${ids.join(',')})`;
  return ` AND NOT (${alias}.g IN (${ids.join(',')}) AND (${alias}.ng IS NULL OR ${alias}.ng <> ${Math.trunc(t.lookup(PROVENANCE_TERM) ?? -1)}))`;
}
