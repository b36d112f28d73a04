/**
 * The number of rows valid at each instant, kept as the store is written: a COUNT of every triple at T is
 * then one index probe instead of a scan of every row valid at T (at 1,000,000 documents, 34,000,000 triples:
 * 270–280 ms against 5.6–5.8 s in a warm process; bench/SCALE-QUERY.md "Count totals", docs/scale.md point 3).
 *
 * A graph's rows valid at T are those of its last version at or before T, and a version records how many
 * it has (`versions.triples`; 0 for a deletion). So the rows valid at T are the sum over graphs of that
 * number, and each version changes the sum from its instant on by its triples less those of the version
 * it follows (or replaces, at the same instant). The table holds the sum at each instant where a version
 * was written: the total at T is the row with the greatest time at or before T. A version written at the
 * end of time (a crawl, a catch-up in log order) adds or touches one row; one written before later totals
 * (versions of other documents written out of time order) adds its change to each of those.
 *
 * The store writes it only once it was built from the versions (the meta key below says so): a store of an
 * older datamonitor, opened for writing, builds it in one statement; one opened read-only without it is
 * counted by the scan, as before.
 */

/** Meta key: 1 when the totals hold every version written (the reader's check). */
export const COUNT_TOTALS_KEY = 'count_totals';

export const SQLITE_COUNT_TOTALS_DDL = 'CREATE TABLE IF NOT EXISTS count_totals (time INTEGER PRIMARY KEY, total INTEGER NOT NULL);';
export const PG_COUNT_TOTALS_DDL = 'CREATE TABLE IF NOT EXISTS vs_count_totals (time bigint PRIMARY KEY, total bigint NOT NULL)';

/**
 * The statement that fills an empty totals table from the versions, both dialects: each version's change
 * (its triples less the graph's previous version's), summed per instant, then along time.
 */
export function buildTotalsSql(totals: string, versions: string): string {
  return `INSERT INTO ${totals} (time, total)
    SELECT time, sum(sum(d)) OVER (ORDER BY time) FROM
      (SELECT time, triples - coalesce(lag(triples) OVER (PARTITION BY graph ORDER BY time), 0) AS d FROM ${versions}) x
    GROUP BY time`;
}

/** A scalar subquery: the rows valid at the instant `param` stands for (0 before the first version). */
export function totalAtSql(totals: string, param: string): string {
  return `coalesce((SELECT c.total FROM ${totals} c WHERE c.time <= ${param} ORDER BY c.time DESC LIMIT 1), 0)`;
}

/** How a version changes the total from its instant on: `triples` now against the last version's (none: 0). */
export function totalChange(triples: number, last: { triples: number } | undefined): number {
  return triples - (last?.triples ?? 0);
}

/**
 * The SQLite store's two statements for one change at `time`: a row for the instant (starting from the total
 * before it), then the change added to it and to every later row.
 */
export const SQLITE_TOTAL_STEP = {
  open: `INSERT INTO count_totals (time, total) VALUES (@t, ${totalAtSql('count_totals', '@t')}) ON CONFLICT (time) DO NOTHING`,
  add: 'UPDATE count_totals SET total = total + @d WHERE time >= @t',
};

/**
 * The PostgreSQL store's two statements for a transaction's changes, `$1` their instants and `$2` the
 * changes (one per instant): a row for each new instant from the total before it as the transaction
 * began (rows a statement inserts are not visible to it), then to each row from the first instant on, the
 * changes at or before its time.
 */
export const PG_TOTAL_STEPS = {
  open: `INSERT INTO vs_count_totals (time, total) SELECT u.t, ${totalAtSql('vs_count_totals', 'u.t')}
     FROM unnest($1::bigint[]) AS u(t) ON CONFLICT (time) DO NOTHING`,
  add: `UPDATE vs_count_totals c SET total = c.total + (SELECT sum(u.d) FROM unnest($1::bigint[], $2::bigint[]) AS u(t, d) WHERE u.t <= c.time)
     WHERE c.time >= (SELECT min(t) FROM unnest($1::bigint[]) AS m(t))`,
};
