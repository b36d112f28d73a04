import type { ArchiveReads } from '../../versions/backend.ts';
import { queryReads, type RowPattern } from './patterns.ts';
import { countShape, sameTerms, type CountShape } from './count.ts';
import { FIRST_ROWS, firstShape, type FirstShape } from './first.ts';

/**
 * How a query at T gets its data: `snapshot` loads every quad valid at T (and is kept for the next query
 * about the same instant); `patterns` loads only the rows that match one of the query's triple patterns
 * at T, read from the archive's indexes, so a selective query costs what it reads whatever the size of
 * the archive. Either way the same engine (Oxigraph) evaluates the query, so the answers are the same.
 */
export type Plan =
  | { kind: 'snapshot'; reason: string }
  | { kind: 'patterns'; patterns: RowPattern[]; estimate: number; indexLines: boolean }
  /** An aggregate over one triple pattern, counted in SQL over the rows valid at T (plan/count.ts): nothing loaded. */
  | { kind: 'count'; count: CountShape; sameTerm: Map<number, number> }
  /**
   * A query that asks for its first solutions (plan/first.ts), answered from the first rows of `source`
   * (each pattern's, else the snapshot's) valid at T, read in growing rounds up to `upTo` rows; when
   * those do not hold the answer, `otherwise` answers.
   */
  | { kind: 'first'; shape: FirstShape; source?: PatternsPlan; upTo: number; otherwise: PatternsPlan | SnapshotPlan };

type PatternsPlan = Extract<Plan, { kind: 'patterns' }>;
type SnapshotPlan = Extract<Plan, { kind: 'snapshot' }>;

export type PlanChoice = 'auto' | 'snapshot' | 'patterns';

/**
 * Below this many rows a whole snapshot loads in tens of milliseconds and then answers every later query
 * about its instant in a millisecond or two (bench/QUERY.md): reading patterns saves nothing worth
 * losing that.
 */
export const SMALL_ARCHIVE_ROWS = 10_000;
/**
 * Rows found through an index cost a few times a row of a sequential scan (a seek and the term look-ups
 * of each): past this share of the archive, reading the query's rows costs about what the snapshot does,
 * and the snapshot is kept for the next query.
 */
export const UNSELECTIVE_SHARE = 0.25;

export interface PlanInput {
  archive: ArchiveReads;
  /** The query text as the engine runs it (common prefixes declared). */
  text: string;
  /** The snapshot of this instant and dataset is already loaded: it costs nothing. */
  snapshotLoaded: boolean;
  choice?: PlanChoice;
  /** The query reads the whole archive's dataset (no FROM, protocol dataset or graph selection): a count may be pushed down. */
  wholeDataset?: boolean;
}

/** The reason given when the parser does not take a query (the engine then gives its own error, or answers). */
export const UNPARSED = 'the query parser does not take the query';

export const IN_DOCUMENT_NT = '<https://w3id.org/datamonitor/ns#inDocument>';

/** Snapshots that cost nothing or little, or that were asked for: no first-rows plan beats them. */
const CHEAP_SNAPSHOT = new Set(['asked for', 'a small archive', 'already loaded', UNPARSED]);

export async function planQuery(input: PlanInput): Promise<Plan> {
  const plan = await loadPlan(input);
  if ((input.choice ?? 'auto') !== 'auto' || plan.kind === 'count') return plan;
  // Reading the first rows in rounds pays when the plan would load many: an unselective query, or patterns of many rows.
  const costly = plan.kind === 'patterns' ? plan.estimate > 2 * FIRST_ROWS : !CHEAP_SNAPSHOT.has(plan.reason);
  if (!costly) return plan;
  const shape = await firstShape(input.text);
  if (!shape) return plan;
  const upTo = plan.kind === 'patterns' ? plan.estimate / 2 : input.archive.rowsEstimate() * UNSELECTIVE_SHARE;
  // A LIMIT of many solutions needs about as many rows as loading them all.
  if (shape.needed * 4 > upTo || upTo < FIRST_ROWS) return plan;
  return { kind: 'first', shape, source: plan.kind === 'patterns' ? plan : undefined, upTo, otherwise: plan };
}

/**
 * For a store where each read is a round trip (ArchiveReads.readAhead, PostgreSQL): asks at once what
 * planQuery and then the load of a selective query will read (the generation, each pattern's capped count,
 * the rows when few), so that such a query costs one round trip, not three. Asks nothing where the plan
 * reads no patterns' rows: a plan asked for, a count pushed down, a pattern with no constant, a query that
 * needs the snapshot. A read ahead that the plan then does not use costs its rows, and the generation it
 * read is still the query's: `snapshotLoaded` here says that a snapshot of the same instant and dataset is
 * loaded, whatever its generation, and answers if nothing was written since; then only a few rows are read
 * ahead, enough for a selective query after a write.
 */
export async function readAhead(input: PlanInput & { at: number; graphs?: string[] }): Promise<void> {
  const { archive, text, choice = 'auto' } = input;
  if (!archive.readAhead || choice !== 'auto') return;
  if (input.wholeDataset && (await countShape(text))) return;
  const reads = await queryReads(text);
  if (reads === undefined || 'whole' in reads) return;
  const patterns = dedupe(reads.patterns);
  if (patterns.some(noConstant)) return;
  // A query after its first solutions reads its rows in rounds once its patterns hold many (planQuery): no more rows ahead than that.
  const few = input.snapshotLoaded || (await firstShape(text)) !== undefined;
  const rowsUpTo = few ? 2 * FIRST_ROWS : Number.POSITIVE_INFINITY;
  await archive.readAhead(input.at, patterns, { graphs: input.graphs, rowsUpTo });
}

const noConstant = (p: RowPattern): boolean => p.s === undefined && p.p === undefined && p.o === undefined && p.graph === undefined;

async function loadPlan({ archive, text, snapshotLoaded, choice = 'auto', wholeDataset = false }: PlanInput): Promise<Exclude<Plan, { kind: 'first' }>> {
  if (choice === 'snapshot') return { kind: 'snapshot', reason: 'asked for' };
  // Decided before the query is parsed: a process that only ever sees small archives never loads the parser.
  const rows = archive.rowsEstimate();
  if (choice === 'auto' && rows <= SMALL_ARCHIVE_ROWS) return { kind: 'snapshot', reason: 'a small archive' };
  // A count in SQL reads no quad: cheaper than even a loaded snapshot's engine, which walks every quad it counts.
  if (choice === 'auto' && wholeDataset) {
    const count = await countShape(text);
    const sameTerm = count && sameTerms(archive);
    if (count && sameTerm) return { kind: 'count', count, sameTerm };
  }
  if (choice === 'auto' && snapshotLoaded) return { kind: 'snapshot', reason: 'already loaded' };
  const reads = await queryReads(text);
  if (reads === undefined) return { kind: 'snapshot', reason: UNPARSED };
  if ('whole' in reads) return { kind: 'snapshot', reason: reads.whole };
  const patterns = dedupe(reads.patterns);
  // The snapshot also states `G dm:inDocument D` for its named graphs: a pattern that may match those needs them all.
  const indexLines = patterns.some((p) => p.p === undefined || p.p === IN_DOCUMENT_NT);
  if (choice === 'patterns') return { kind: 'patterns', patterns, estimate: NaN, indexLines };
  if (patterns.some(noConstant)) {
    return { kind: 'snapshot', reason: 'a triple pattern with no constant' };
  }
  const budget = Math.floor(rows * UNSELECTIVE_SHARE);
  let estimate = 0;
  for (const p of patterns) {
    estimate += archive.countMatching(p, budget - estimate + 1);
    if (estimate > budget) return { kind: 'snapshot', reason: 'an unselective query' };
  }
  return { kind: 'patterns', patterns, estimate, indexLines };
}

/** A pattern that another one with fewer constants contains reads nothing more: one range for both. */
function dedupe(patterns: RowPattern[]): RowPattern[] {
  const key = (p: RowPattern): string => JSON.stringify([p.s, p.p, p.o, p.graph]);
  const seen = new Map(patterns.map((p) => [key(p), p]));
  const unique = [...seen.values()];
  const within = (a: RowPattern, b: RowPattern): boolean =>
    a !== b && (['s', 'p', 'o', 'graph'] as const).every((k) => b[k] === undefined || b[k] === a[k]);
  return unique.filter((a) => !unique.some((b) => within(a, b)));
}
