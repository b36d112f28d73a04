import { parseForPlan, type SparqlNode } from '../sparql-ast.ts';

/**
 * A query that asks for its first solutions only: a SELECT with a LIMIT and no ORDER BY, or an ASK.
 * Such a query over the first rows valid at T by row id (the snapshot's, or each of its patterns') may
 * already have its answer:
 * when the query is monotone (every solution over some of the snapshot's quads is a solution over all
 * of them: basic graph patterns, GRAPH, UNION, FILTER and BIND without EXISTS, VALUES, paths, DISTINCT),
 * LIMIT n solutions found there are n solutions of the snapshot, and SPARQL leaves the order of an
 * unordered query's solutions open, so they are an answer (not always the ones the whole snapshot's
 * engine lists first: its order follows its indexes, not the rows'); an ASK true there is true.
 *
 * The first query a user types into an archive, `SELECT * WHERE { ?s ?p ?o } LIMIT 10`, loaded the whole
 * snapshot: 24 s and 1.2 GB at 100,000 documents (3.4 M quads), beyond the memory limit at 1,000,000.
 * OPTIONAL, MINUS, NOT EXISTS, aggregates, subqueries and ORDER BY can lose or change a solution when
 * rows are added, so those queries are planned as before.
 */
export interface FirstShape {
  /** Solutions the answer must hold over the rows read (the LIMIT: the engine skips OFFSET ones first); for an ASK, 1. */
  needed: number;
  ask: boolean;
}

/**
 * Rows read in the first round (about 30 documents of Linked Data: milliseconds); each later round reads
 * GROWTH times as many, so all rounds together read at most 8/7 of the last one.
 */
export const FIRST_ROWS = 1_000;
export const GROWTH = 8;

export async function firstShape(text: string): Promise<FirstShape | undefined> {
  const ast = await parseForPlan(text);
  if (ast?.type !== 'query') return undefined;
  const modifiers = ast.solutionModifiers ?? {};
  if (Object.keys(modifiers).some((k) => k !== 'limitOffset')) return undefined;
  let needed: number;
  if (ast.subType === 'ask') {
    needed = 1;
  } else if (ast.subType === 'select') {
    const limit = modifiers.limitOffset?.limit;
    if (typeof limit !== 'number') return undefined;
    needed = limit;
  } else {
    // CONSTRUCT's LIMIT counts solutions, not the triples the answer holds; DESCRIBE reads whole resources.
    return undefined;
  }
  if (!monotone(ast.variables) || !monotone(ast.where) || !monotone(ast.values)) return undefined;
  return { needed, ask: ast.subType === 'ask' };
}

/** Whether a node can only gain solutions when quads are added (see FirstShape). */
function monotone(node: SparqlNode): boolean {
  if (node === null || typeof node !== 'object') return true;
  if (Array.isArray(node)) return node.every(monotone);
  if (node.type === 'query') return false; // a subquery may aggregate, order or limit
  if (node.subType === 'optional' || node.subType === 'minus' || node.subType === 'service') return false;
  if (node.subType === 'aggregate' || node.subType === 'patternOperation') return false; // EXISTS may be negated
  for (const [key, value] of Object.entries(node)) if (key !== 'loc' && !monotone(value)) return false;
  return true;
}

/** Reads at most `limit` rows of `rows`; `more` tells whether there was another (the read was cut short). */
export function* firstOf<T>(rows: Iterable<T>, limit: number, seen: { more: boolean }): Generator<T> {
  let n = 0;
  for (const row of rows) {
    if (n === limit) {
      seen.more = true;
      return;
    }
    n++;
    yield row;
  }
}
