/**
 * The number of rows valid at each instant, kept as the store is written: a COUNT of every triple at T is
 * then a few index ranges instead of a scan of every row valid at T (at 1,000,000 documents, 34,000,000 triples:
 * 428–454 ms against 8.2–8.4 s in one process; bench/SCALE-QUERY.md "Count totals", docs/scale.md point 3).
 *
 * A graph's rows valid at T are those of its last version at or before T, and a version records how many
 * it has (`versions.triples`; 0 for a deletion). So the rows valid at T are the sum of every version's change
 * at or before T: its triples less those of the version it follows (or replaces, at the same instant).
 * The changes are kept summed per bucket of time at five widths (2^0, 2^10, 2^20, 2^30 and 2^40 ms: an instant,
 * about a second, 17 minutes, 12 days, 35 years), so that [-∞, T] is at most 1,023 buckets of each width, read
 * by the primary key, and a version adds its change to five rows whatever its instant. A running total per
 * instant, the first form of this, made a version written before later instants (WARC files of an older crawl
 * imported into an archive) update every later row: 17.9 ms a version against 1.4 at 100,000 documents.
 *
 * The store writes it only once it was built from the versions (the meta key below says so): a store of an
 * older datamonitor, opened for writing, builds it in one statement; one opened read-only without it is
 * counted by the scan, as before.
 */

/** Meta key: 1 when the sums hold every version written (the reader's check). */
export const COUNT_TOTALS_KEY = 'count_sums';

export const SQLITE_COUNT_TOTALS_DDL = 'CREATE TABLE IF NOT EXISTS count_sums (level INTEGER NOT NULL, bucket INTEGER NOT NULL, change INTEGER NOT NULL, PRIMARY KEY (level, bucket)) WITHOUT ROWID;';
export const PG_COUNT_TOTALS_DDL = 'CREATE TABLE IF NOT EXISTS vs_count_sums (level smallint NOT NULL, bucket bigint NOT NULL, change bigint NOT NULL, PRIMARY KEY (level, bucket))';

/** Each level's bucket width, as a power of two of milliseconds. */
const LEVEL_BITS = [0, 10, 20, 30, 40];
const bucketOf = (time: number, level: number) => Math.floor(time / 2 ** LEVEL_BITS[level]!);

/**
 * The statement that fills an empty table of sums from the versions, both dialects: each version's change
 * (its triples less the graph's previous version's), summed per bucket of each level.
 */
export function buildTotalsSql(sums: string, versions: string): string {
  return `WITH levels (level, bits) AS (VALUES ${LEVEL_BITS.map((b, i) => `(${i}, ${b})`).join(', ')}),
      changes AS (SELECT time, triples - coalesce(lag(triples) OVER (PARTITION BY graph ORDER BY time), 0) AS d FROM ${versions})
    INSERT INTO ${sums} (level, bucket, change)
    SELECT l.level, c.time >> l.bits, sum(c.d) FROM changes c CROSS JOIN levels l GROUP BY l.level, c.time >> l.bits HAVING sum(c.d) <> 0`;
}

/**
 * A scalar expression: the rows valid at `at` (0 before the first version), the sum of the buckets that tile
 * [-∞, at], each level's read as one range of its key; `arg` adds a parameter and gives its placeholder.
 */
export function totalAtSql(sums: string, at: number, arg: (v: number) => string): string {
  const end = at + 1; // exclusive: the changes at `at` count
  return LEVEL_BITS.map((_bits, level) => {
    const top = level === LEVEL_BITS.length - 1;
    // The buckets of this level between the last boundary of the level above and `end`.
    const from = top ? Number.MIN_SAFE_INTEGER : bucketOf(end, level + 1) * 2 ** (LEVEL_BITS[level + 1]! - LEVEL_BITS[level]!);
    const to = bucketOf(end, level) - 1;
    return `(SELECT coalesce(sum(c.change), 0) FROM ${sums} c WHERE c.level = ${level} AND c.bucket BETWEEN ${arg(from)} AND ${arg(to)})`;
  }).join(' + ');
}

/** How a version changes the total from its instant on: `triples` now against the last version's (none: 0). */
export function totalChange(triples: number, last: { triples: number } | undefined): number {
  return triples - (last?.triples ?? 0);
}

/** The rows a set of changes (instant to change) adds to, each level's bucket once: [level, bucket, change]. */
export function sumRows(changes: Iterable<[time: number, change: number]>): Array<[number, number, number]> {
  const rows = new Map<string, [number, number, number]>();
  for (const [time, change] of changes) {
    if (change === 0) continue;
    for (let level = 0; level < LEVEL_BITS.length; level++) {
      const bucket = bucketOf(time, level);
      const row = rows.get(`${level} ${bucket}`);
      if (row) row[2] += change;
      else rows.set(`${level} ${bucket}`, [level, bucket, change]);
    }
  }
  return [...rows.values()];
}

/** Adds a change to its bucket of one level (SQLite; a row for each of sumRows'). */
export const SQLITE_ADD_CHANGE = 'INSERT INTO count_sums (level, bucket, change) VALUES (?, ?, ?) ON CONFLICT (level, bucket) DO UPDATE SET change = change + excluded.change';

/** Adds sumRows' rows, `$1` levels, `$2` buckets, `$3` changes (PostgreSQL, one statement a transaction). */
export const PG_ADD_CHANGES = `INSERT INTO vs_count_sums (level, bucket, change) SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bigint[])
  ON CONFLICT (level, bucket) DO UPDATE SET change = vs_count_sums.change + excluded.change`;
