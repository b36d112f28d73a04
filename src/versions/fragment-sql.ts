import { PROVENANCE_GRAPH } from '../archive/namespace.ts';
import { IN_DOCUMENT_TERM, patternConditions, type RowConstants } from './backend.ts';

/** A triple of the default graph at an instant, as N-Triples terms. */
export interface TripleRow {
  s: string;
  p: string;
  o: string;
}

/** One page of a triple pattern's matches: `offset` triples skipped, at most `limit` returned. */
export interface TriplesPage {
  offset: number;
  limit: number;
  /** Documents whose data the default graph leaves out (alternates: src/query/sparql.ts); their dm:provenance facts stay. */
  hidden?: string[];
}

/** The placeholder id of dm:inDocument, which the dictionary holds only when some document used it. */
export const IN_DOCUMENT_ID = -2;
const PROVENANCE_TERM = `<${PROVENANCE_GRAPH}>`;

/**
 * The SQL of a page of triples valid at `at` matching a pattern, for both stores (`?` placeholders): the
 * default graph a query sees (src/query/sparql.ts), which is the union of every document's and named
 * graph's triples, each triple once, with `G dm:inDocument D` for each named graph G of a document D.
 * Triples come in the order of their terms' ids (s, p, o), so that page n + 1 starts where page n ended
 * for as long as nothing is written: an order of the ids, not of the terms, because the ids need no join
 * before the sort. Rows are `{ s, p, o }` ids and `snt, pnt, ont` terms (pnt NULL for IN_DOCUMENT_ID).
 * Undefined when nothing can match (a constant the dictionary lacks).
 */
export function triplesSql(pattern: RowConstants, at: number, page: TriplesPage, lookup: (nt: string) => number | undefined,
  tables: { quads: string; terms: string }, ngColumn: string): { sql: string; args: unknown[] } | undefined {
  const args: unknown[] = [];
  const valid = (): string => {
    args.push(at, at);
    return 'q.to_t > ? AND q.from_t <= ?';
  };
  const provenance = lookup(PROVENANCE_TERM) ?? -1;
  const hiddenIds = (page.hidden ?? []).map((g) => lookup(`<${g}>`)).filter((id): id is number => id !== undefined).map((id) => Math.trunc(id));
  // Ids of the dictionary, written into the SQL: a handful of alternates at most.
  const notHidden = hiddenIds.length === 0 ? ''
    : ngColumn === 'NULL' ? ` AND q.g NOT IN (${hiddenIds.join(',')})`
      : ` AND NOT (q.g IN (${hiddenIds.join(',')}) AND (${ngColumn} IS NULL OR ${ngColumn} <> ${Math.trunc(provenance)}))`;
  const parts: string[] = [];
  const where = patternConditions({ s: pattern.s, p: pattern.p, o: pattern.o }, lookup, () => '?');
  if (where) {
    args.push(...where.args);
    parts.push(`SELECT q.s AS s, q.p AS p, q.o AS o FROM ${tables.quads} q WHERE ${[...where.sql, valid()].join(' AND ')}${notHidden}`);
  }
  if (ngColumn !== 'NULL' && (pattern.p === undefined || pattern.p === IN_DOCUMENT_TERM)) {
    const s = pattern.s === undefined ? undefined : lookup(pattern.s);
    const o = pattern.o === undefined ? undefined : lookup(pattern.o);
    if (!(pattern.s !== undefined && s === undefined) && !(pattern.o !== undefined && o === undefined)) {
      const conditions = [`${ngColumn} IS NOT NULL`, `${ngColumn} <> ${Math.trunc(provenance)}`];
      if (s !== undefined) (args.push(s), conditions.push(`${ngColumn} = ?`));
      if (o !== undefined) (args.push(o), conditions.push('q.g = ?'));
      parts.push(`SELECT ${ngColumn} AS s, ${IN_DOCUMENT_ID} AS p, q.g AS o FROM ${tables.quads} q WHERE ${[...conditions, valid()].join(' AND ')}${notHidden}`);
    }
  }
  if (parts.length === 0) return undefined;
  args.push(Math.max(0, Math.trunc(page.limit)), Math.max(0, Math.trunc(page.offset)));
  const t = tables.terms;
  return {
    sql: `SELECT x.s AS s, x.p AS p, x.o AS o, ts.nt AS snt, tp.nt AS pnt, t_o.nt AS ont
      FROM (SELECT DISTINCT s, p, o FROM (${parts.join(' UNION ALL ')}) m ORDER BY s, p, o LIMIT ? OFFSET ?) x
      JOIN ${t} ts ON ts.id = x.s LEFT JOIN ${t} tp ON tp.id = x.p JOIN ${t} t_o ON t_o.id = x.o ORDER BY x.s, x.p, x.o`,
    args,
  };
}
