/**
 * The crawl log names each row's WARC file by the id of its name in `warc_files` (src/store/schema.ts).
 * The API keeps names (`CrawlLogEntry.warcFile`): each store maps them with this cache, filled from the
 * table (an archive has a few hundred files at most) and asked again on a miss, since another process
 * writing the same store may have added a file since.
 */
export interface WarcFileRow {
  id: number;
  name: string;
}

export class WarcIdCache {
  private readonly byName = new Map<string, number>();
  private readonly byId = new Map<number, string>();

  idOf(name: string): number | undefined {
    return this.byName.get(name);
  }

  add(rows: Iterable<{ id: unknown; name: unknown }>): void {
    for (const r of rows) {
      const id = Number(r.id);
      this.byName.set(r.name as string, id);
      this.byId.set(id, r.name as string);
    }
  }

  /** Forgets every id: a rolled-back write may have taken ids another process then gives to other files. */
  clear(): void {
    this.byName.clear();
    this.byId.clear();
  }

  /** Whether every row's `warc_id` is known (so that `resolve` can name them all). */
  knows(rows: readonly Record<string, unknown>[]): boolean {
    return rows.every((r) => r.warc_id == null || this.byId.has(Number(r.warc_id)));
  }

  /** Puts each row's file name in `warc_file`, where LOG_COLS reads it. */
  resolve<R extends Record<string, unknown>>(rows: R[]): R[] {
    for (const r of rows) {
      if (r.warc_id == null) continue;
      const name = this.byId.get(Number(r.warc_id));
      if (name === undefined) throw new Error(`crawl_log row ${String(r.id)} names WARC file id ${String(r.warc_id)}, which warc_files does not hold: the metadata store is damaged; rebuild it from the WARC files (datamonitor rebuild)`);
      (r as Record<string, unknown>).warc_file = name;
    }
    return rows;
  }
}

export const WARC_FILES_SELECT = 'SELECT id, name FROM warc_files';

/**
 * A store opened read-only on an archive from before warc_files cannot migrate it: its reads name the old
 * column instead (the log reads' SQL says `warc_id` only where it tests for a capture), and its rows
 * already carry `warc_file`.
 */
export function legacySql(sql: string): string {
  return sql.replace(/\bwarc_id\b/g, 'warc_file');
}

/** The crawl log as rows with their file's name in `warc_file`, for tools and tests that read the SQLite file itself. */
export const LOG_ROWS_SQL = 'SELECT c.*, w.name AS warc_file FROM crawl_log c LEFT JOIN warc_files w ON w.id = c.warc_id';
