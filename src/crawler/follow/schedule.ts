/**
 * When a crawl's driving query runs over what it has learnt. Running it after every document costs a
 * full query per document over a growing store: N²/2 documents' worth of work for N documents. The
 * query only has to run (a) when the crawl would otherwise have nothing to fetch, and (b) often enough
 * that the frontier keeps being fed. `growth` runs it when the documents learnt since the last run
 * reach a fraction of all learnt, so the runs' sizes grow geometrically and their total cost is a
 * small multiple of one final query (bench/follow.md measures the three schedules).
 */
export type ScheduleName = 'every' | 'growth' | `batch:${number}`;

export interface EvaluationSchedule {
  readonly name: string;
  /**
   * Whether to run the query now. `pending`: documents learnt since the last run; `learnt`: all;
   * `starving`: the frontier is empty, so only the query can give the crawl more to do.
   */
  due(pending: number, learnt: number, starving: boolean): boolean;
}

/** The fraction of learnt documents that makes the growth schedule run the query. */
export const GROWTH_FRACTION = 0.1;

export function createSchedule(spec: string | number | undefined): EvaluationSchedule | undefined {
  if (spec === undefined || spec === 'auto' || spec === 'growth') {
    return { name: 'growth', due: (p, n, starving) => p > 0 && (starving || p >= Math.max(1, GROWTH_FRACTION * n)) };
  }
  if (spec === 'every' || spec === 1 || spec === '1') return { name: 'every', due: (p) => p > 0 };
  const n = typeof spec === 'number' ? spec : /^\d+$/.test(spec) ? Number(spec) : Number.NaN;
  if (!(Number.isInteger(n) && n >= 1)) return undefined;
  return { name: `batch:${n}`, due: (p, _n, starving) => p > 0 && (starving || p >= n) };
}
