/**
 * Erdős numbers by SPARQL: level by level, the co-authors of the researchers numbered n that have no
 * number yet get n + 1 (breadth-first search, one query a level). One query shape for both places the
 * lab asks: the archive at any time (runQuery) and a crawl's knowledge so far (the plot's curve).
 */
import { analyseQuery } from '../../query/sparql-text.ts';
import { runQuery } from '../../query/sparql.ts';
import type { SparqlJsonResults } from '../../versions/types.ts';
import type { ArchiveReads } from '../../versions/backend.ts';
import type { Knowledge } from '../../crawler/follow/knowledge.ts';
import { SCHEMA } from '../../testkit/scholarly-web.ts';

/** Runs a SELECT and gives the IRIs bound to ?b. */
export type SelectIris = (sparql: string) => Promise<Iterable<string>> | Iterable<string>;

/** The co-authors of some researchers: who wrote a paper with one of them (themselves included). */
export function coauthorQuery(researchers: readonly string[]): string {
  return `PREFIX schema: <${SCHEMA}>\nSELECT DISTINCT ?b WHERE { VALUES ?a { ${researchers.map((a) => `<${a}>`).join(' ')} } ?p schema:author ?a . ?p schema:author ?b }`;
}

/**
 * A VALUES list of a few thousand IRIs parses and joins fast; tens of thousands make one query text of
 * megabytes, so a level that wide is asked in slices.
 */
const SLICE = 2_000;

export interface SparqlNumbers {
  /** Researcher IRI → Erdős number (absent: no co-authorship path to Erdős in the data). */
  numbers: Map<string, number>;
  queries: number;
}

export async function erdosNumbersBySparql(select: SelectIris, erdos: string): Promise<SparqlNumbers> {
  const numbers = new Map<string, number>([[erdos, 0]]);
  let queries = 0;
  for (let level = [erdos], n = 1; level.length > 0; n++) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += SLICE) {
      queries++;
      for (const b of await select(coauthorQuery(level.slice(i, i + SLICE)))) {
        if (!numbers.has(b)) {
          numbers.set(b, n);
          next.push(b);
        }
      }
    }
    level = next;
  }
  return { numbers, queries };
}

/** ?b's IRIs from the archive as it was at `at` (default now), through the project's query API. */
export function archiveSelect(archive: ArchiveReads, at?: number): SelectIris {
  return async (sparql) => {
    const result = await runQuery(archive, sparql, { at, format: 'json' });
    const json = JSON.parse(result.body) as SparqlJsonResults;
    return (json.results?.bindings ?? []).flatMap((row) => (row.b?.type === 'uri' && typeof row.b.value === 'string' ? [row.b.value] : []));
  };
}

/** ?b's IRIs over what a crawl has learnt so far (its in-memory store). */
export function knowledgeSelect(knowledge: Knowledge): SelectIris {
  return (sparql) => knowledge.boundIris(analyseQuery(sparql));
}
