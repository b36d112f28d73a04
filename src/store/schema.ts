/**
 * One schema for every backend: column lists and row mapping live here so that SQLite and
 * PostgreSQL read and write the same shapes.
 */
import type { CrawlLogEntry, CycleRow, DocumentRow, DueSelection, HostRow } from './types.ts';
import { base32, fromBase32 } from '../util/base32.ts';

export type Dialect = 'sqlite' | 'postgres';

export function ddl(d: Dialect): string[] {
  const id = d === 'sqlite' ? 'INTEGER PRIMARY KEY' : 'BIGSERIAL PRIMARY KEY';
  const big = 'BIGINT';
  return [
    documentsDdl(d),
    `CREATE TABLE IF NOT EXISTS crawl_log (
      id ${id}, url TEXT NOT NULL, final_url TEXT, time ${big} NOT NULL, status INTEGER NOT NULL, headers TEXT,
      duration_ms DOUBLE PRECISION NOT NULL, bytes ${big} NOT NULL, media_type TEXT, checksum TEXT, graph_hash TEXT,
      change TEXT NOT NULL, error TEXT, triples INTEGER NOT NULL, truncated INTEGER NOT NULL DEFAULT 0, diagnostics TEXT,
      warc_id INTEGER, warc_offset ${big}, warc_length ${big}, rdf_offset ${big}, rdf_length ${big}, cycle_id INTEGER, reason TEXT)`,
    // SQLite's index of the log's URLs is log-reads.ts sqliteUrlIndexDdl, made after these.
    ...(d === 'postgres' ? ['CREATE INDEX IF NOT EXISTS crawl_log_url ON crawl_log (url, time)'] : []),
    ...WARC_FILES_DDL(d),
    ...WARC_INDEX,
    ...MOVED_INDEX,
    ...PARTIAL_INDEXES,
    `CREATE TABLE IF NOT EXISTS hosts (
      host TEXT PRIMARY KEY, robots_txt TEXT, robots_status INTEGER, robots_fetched_at ${big}, crawl_delay_ms INTEGER,
      mean_download_ms DOUBLE PRECISION, fetches INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0)`,
    `CREATE TABLE IF NOT EXISTS cycles (
      id ${id}, started_at ${big} NOT NULL, ended_at ${big}, urls INTEGER NOT NULL, estimate_ms DOUBLE PRECISION,
      actual_ms DOUBLE PRECISION, status TEXT NOT NULL, note TEXT)`,
  ];
}

/**
 * SQLite keeps the documents in a table keyed by the URL itself (WITHOUT ROWID): a rowid table needs a second
 * B-tree for its URL key, a copy of every URL (48 B a document at 100,000), and each fetch's update sought the
 * URL there before the row. What made the rowid worth its cost was the indexes on state and schedule, whose
 * entries end in the key (a URL instead of a rowid); they are partial now and hold almost nothing
 * (PARTIAL_INDEXES). PostgreSQL's tables are heaps with the key index beside them either way.
 */
function documentsDdl(d: Dialect, name = 'documents'): string {
  return `CREATE TABLE IF NOT EXISTS ${name} (
      url TEXT PRIMARY KEY, host TEXT NOT NULL, depth INTEGER NOT NULL, state TEXT NOT NULL,
      first_seen BIGINT NOT NULL, last_fetched BIGINT, next_fetch BIGINT, strategy TEXT, strategy_state TEXT,
      etag TEXT, last_modified TEXT, checksum TEXT, graph_hash TEXT, monitored INTEGER NOT NULL DEFAULT 0)${d === 'sqlite' ? ' WITHOUT ROWID' : ''}`;
}

/**
 * A SQLite archive whose documents table has rowids gets the table keyed by URL (documentsDdl): copied in URL
 * order (the densest B-tree), the old table and its indexes dropped; the DDL that follows builds the indexes.
 * One pass over the documents, once, on the next open for writing; the space freed is reused by later rows.
 */
export function documentsKeyMigration(): string[] {
  const cols = DOCUMENT_COLS.map(([, c]) => c).join(', ');
  return [
    documentsDdl('sqlite', 'documents_by_url'),
    `INSERT INTO documents_by_url (${cols}) SELECT ${cols} FROM documents ORDER BY url`,
    'DROP TABLE documents',
    'ALTER TABLE documents_by_url RENAME TO documents',
  ];
}

/**
 * How a value is kept: `sha1` and `hex` are digests (a payload's `sha1:BASE32`, a graph's hex hash), which
 * SQLite keeps as their bytes (`packDigest`, below); any other spelling stays text.
 */
type Kind = 'json' | 'bool' | 'num' | 'text' | 'sha1' | 'hex';
type Col<R> = readonly [keyof R & string, string, Kind];

/** URLs per query of a bulk read (`getDocuments`): one round trip each, well under both databases' parameter limits. */
export const BULK_READ = 10_000;

export const DOCUMENT_COLS: readonly Col<DocumentRow>[] = [
  ['url', 'url', 'text'], ['host', 'host', 'text'], ['depth', 'depth', 'num'], ['state', 'state', 'text'],
  ['firstSeen', 'first_seen', 'num'], ['lastFetched', 'last_fetched', 'num'], ['nextFetch', 'next_fetch', 'num'],
  ['strategy', 'strategy', 'text'], ['strategyState', 'strategy_state', 'json'], ['etag', 'etag', 'text'],
  ['lastModified', 'last_modified', 'text'], ['checksum', 'checksum', 'sha1'], ['graphHash', 'graph_hash', 'hex'],
  ['monitored', 'monitored', 'bool'],
];

export const LOG_COLS: readonly Col<CrawlLogEntry>[] = [
  ['url', 'url', 'text'], ['finalUrl', 'final_url', 'text'], ['time', 'time', 'num'], ['status', 'status', 'num'],
  ['headers', 'headers', 'json'], ['durationMs', 'duration_ms', 'num'], ['bytes', 'bytes', 'num'],
  ['mediaType', 'media_type', 'text'], ['checksum', 'checksum', 'sha1'], ['graphHash', 'graph_hash', 'hex'],
  ['change', 'change', 'text'], ['error', 'error', 'text'], ['triples', 'triples', 'num'],
  ['truncated', 'truncated', 'bool'], ['diagnostics', 'diagnostics', 'json'], ['warcFile', 'warc_file', 'text'],
  ['warcOffset', 'warc_offset', 'num'], ['warcLength', 'warc_length', 'num'], ['rdfOffset', 'rdf_offset', 'num'],
  ['rdfLength', 'rdf_length', 'num'], ['cycleId', 'cycle_id', 'num'], ['reason', 'reason', 'text'],
];

/** A log row as written: its WARC file as the id of its name in warc_files (src/store/warc-ids.ts). */
type LogRow = CrawlLogEntry & { warcId?: number };

/**
 * The columns a log row is written with: LOG_COLS with `warc_id` for `warc_file`. Reads keep LOG_COLS: the
 * stores put the file's name back in each row's `warc_file` before mapping it (src/store/warc-ids.ts).
 */
export const LOG_WRITE_COLS: readonly Col<LogRow>[] = LOG_COLS.map((c): Col<LogRow> => (c[0] === 'warcFile' ? ['warcId', 'warc_id', 'num'] : c));

/**
 * Each WARC file's name (its path under the data directory, as log rows name it) once, and the log rows
 * point to it by id: the name in every row, and an index on it, were a third of the log (bench/RESULTS.md,
 * "Crawl log size").
 */
export function WARC_FILES_DDL(d: Dialect): string[] {
  return [`CREATE TABLE IF NOT EXISTS warc_files (id ${d === 'sqlite' ? 'INTEGER PRIMARY KEY' : 'SERIAL PRIMARY KEY'}, name TEXT NOT NULL UNIQUE)`];
}

/**
 * The rows of a WARC file are read for two things: its conversion records, which the WARC export leaves out
 * (`log({warcFile, converted})`), and where it ends, after a crash (`warcEnds`, one scan for every file left
 * open). An index of every row's file served both; one of the rows with a conversion record serves the first
 * with a third of its entries (31.9 MiB at 1,000,000 documents against about 11: bench/ARCHIVE-SIZE.md).
 */
export const CONVERTED = 'rdf_offset IS NOT NULL';
export const WARC_INDEX = [
  'DROP INDEX IF EXISTS crawl_log_warc',
  `CREATE INDEX IF NOT EXISTS crawl_log_converted ON crawl_log (warc_id) WHERE ${CONVERTED}`,
];

/**
 * Archives written before warc_files: the names move there, each row gets its file's id, and the text
 * column goes with its index (and the capture index, whose condition named it). One pass over the log,
 * once, on the next open for writing; the capture index is built again by the DDL that follows. Runs
 * only while the column is there, as PostgreSQL's migrations also run on a new schema's DDL.
 */
export function warcIdMigration(d: Dialect): string[] {
  const steps = [
    ...WARC_FILES_DDL(d),
    'ALTER TABLE crawl_log ADD COLUMN warc_id INTEGER',
    `INSERT INTO warc_files (name) SELECT warc_file FROM crawl_log WHERE warc_file IS NOT NULL GROUP BY warc_file ORDER BY MIN(id)`,
    'UPDATE crawl_log SET warc_id = (SELECT w.id FROM warc_files w WHERE w.name = crawl_log.warc_file) WHERE warc_file IS NOT NULL',
    'DROP INDEX IF EXISTS crawl_log_file',
    'DROP INDEX IF EXISTS crawl_log_capture',
    'ALTER TABLE crawl_log DROP COLUMN warc_file',
  ];
  if (d === 'sqlite') return steps;
  // A DO block, so that a schema created with warc_id already (its first migration is today's DDL) skips it.
  const body = steps.slice(1).map((sql) => `EXECUTE ${quoteLiteral(sql)};`).join('\n    ');
  return [
    steps[0]!,
    `DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'crawl_log' AND column_name = 'warc_file') THEN
    ${body}
  END IF;
END $$`,
  ];
}

const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * `versions(url)` finds a URL's captures logged under it and those that ended at it after redirects
 * (`url = ? OR (final_url = ? AND final_url <> url)`): only the second arm needs an index on final_url,
 * and only over the rows whose final URL differs, a few in a crawl, where a full index held a second
 * copy of every URL (52 B a log row at 20,000 documents). Archives written before get the partial index
 * in place of the full one on their next open for writing (one pass over the log, once).
 */
export const MOVED_INDEX = [
  'DROP INDEX IF EXISTS crawl_log_final_url',
  'CREATE INDEX IF NOT EXISTS crawl_log_moved ON crawl_log (final_url, time) WHERE final_url <> url',
];

/**
 * A crawl's rows end up fetched, unmonitored and captured as usual: an index of every row's state, schedule
 * or reason held an entry for each, which no read asks for (bench/ARCHIVE-SIZE.md, "Partial indexes"). Each
 * now holds the rows its reads seek: the queue (in the order it is read), the monitored rows (by when they
 * are due), and the fates `datamonitor log` lists.
 * A read reaches one only with the index's own condition written as it is here (SQLite proves nothing
 * about a bound parameter): QUEUED, MONITORED, UNUSUAL_FATE. Archives written before get them in place
 * of the full indexes on their next open for writing (SQLite) or by migration (PostgreSQL).
 */
export const QUEUED = "state = 'queued'";
export const MONITORED = 'monitored = 1';
/** The reasons of ordinary captures: a fate read for any other reason adds this condition to reach the index. */
export const ORDINARY_REASONS = ['fetched', 'unchanged', 'redirected'] as const;
export const UNUSUAL_FATE = `reason NOT IN (${ORDINARY_REASONS.map((r) => `'${r}'`).join(', ')})`;
export const PARTIAL_INDEXES = [
  'DROP INDEX IF EXISTS documents_state',
  `CREATE INDEX IF NOT EXISTS documents_queued ON documents (depth, first_seen) WHERE ${QUEUED}`,
  'DROP INDEX IF EXISTS documents_due',
  `CREATE INDEX IF NOT EXISTS documents_monitored ON documents (next_fetch) WHERE ${MONITORED}`,
  'DROP INDEX IF EXISTS crawl_log_reason',
  `CREATE INDEX IF NOT EXISTS crawl_log_fate ON crawl_log (reason) WHERE ${UNUSUAL_FATE}`,
];

/**
 * `col` is `param`, written for the store's index of the log's URLs: SQLite keeps one, keyed by the URL
 * lower-cased (the order CDX pages are read in: log-reads.ts sqliteUrlIndexDdl), in which a URL is sought by its
 * lower-cased form and then compared whole; PostgreSQL keeps an index of the URL itself. SQLite's form names the
 * parameter twice: its caller passes the value twice (`urlArgs`).
 */
export function urlIs(d: Dialect, col: string, param = '?'): string {
  return d === 'sqlite' ? `lower(${col}) = lower(${param}) AND ${col} = ${param}` : `${col} = ${param}`;
}

/** `col IN (…)` of `n` URLs, as urlIs: SQLite's form takes the list twice (`urlArgs`). */
export function urlIn(d: Dialect, col: string, n: number): string {
  const list = Array(n).fill('?').join(', ');
  return d === 'sqlite' ? `lower(${col}) IN (${Array(n).fill('lower(?)').join(', ')}) AND ${col} IN (${list})` : `${col} IN (${list})`;
}

/** The arguments of urlIs or urlIn for these URLs. */
export function urlArgs(d: Dialect, urls: readonly string[]): string[] {
  return d === 'sqlite' ? [...urls, ...urls] : [...urls];
}

/** The WHERE clause of `versions(url)`, written for the URL index and the partial index above; its arguments: versionsArgs. */
export function versionsWhere(d: Dialect): string {
  return `((${urlIs(d, 'url')}) OR (final_url = ? AND final_url <> url)) AND warc_id IS NOT NULL`;
}

export function versionsArgs(d: Dialect, url: string): string[] {
  return [...urlArgs(d, [url]), url];
}

/**
 * The response headers a log row keeps: those that log reads take from a row (a redirect's Location for
 * `log --url`, the CLI's log lines, the export's PROV-O and the archived-link follow; a variant's
 * Content-Location for the export). Every header is in the WARC record byte for byte; a row repeating
 * them all as JSON cost 175 B on the generated site and ~1 KB on real servers (bench/RESULTS.md,
 * "Crawl log size"). Rows written before keep every header; reads of both take what they need by name.
 */
const LOGGED_HEADERS = new Set(['location', 'content-location']);

/**
 * A log entry's values in LOG_COLS order, keeping only the headers a row keeps (none: NULL), and the final URL
 * only where it is not the URL asked for (a redirect followed): every reader takes an absent one as the URL
 * (`finalUrl ?? url`), and the copy was a tenth of a row.
 */
export function logValues(entry: CrawlLogEntry, warcId: number | undefined, d: Dialect): unknown[] {
  const kept = entry.headers?.filter(([name]) => LOGGED_HEADERS.has(name.toLowerCase()));
  const finalUrl = entry.finalUrl === entry.url ? undefined : entry.finalUrl;
  // A fetch's duration in whole milliseconds, as Heritrix's crawl.log writes it: the log's is read for display
  // (the crawl-time estimate learns from each fetch as it ends), and SQLite keeps a fraction in 8 bytes where a
  // whole number under 32,768 takes 1 or 2 (20 MiB of the log at 1,000,000 documents).
  const durationMs = Math.round(entry.durationMs);
  return toValues(LOG_WRITE_COLS, { ...entry, finalUrl, durationMs, headers: kept?.length ? kept : undefined, warcId }, d);
}

/**
 * The `reason` column for archives written before it: added, and filled for the rows whose status
 * and change say it (the rest, failures without a response, stay without one and are listed as such).
 */
export function reasonColumnMigration(d: Dialect): string[] {
  return [
    d === 'postgres' ? 'ALTER TABLE crawl_log ADD COLUMN IF NOT EXISTS reason TEXT' : 'ALTER TABLE crawl_log ADD COLUMN reason TEXT',
    `UPDATE crawl_log SET reason = CASE
       WHEN status >= 300 AND status < 400 AND status <> 304 THEN 'redirected'
       WHEN status >= 500 THEN 'server-error'
       WHEN status >= 400 THEN 'http-error'
       WHEN status > 0 AND change = 'unchanged' THEN 'unchanged'
       WHEN status > 0 THEN 'fetched'
       WHEN error = 'robots.txt: disallowed' THEN 'robots-disallowed'
       ELSE NULL END
     WHERE reason IS NULL`,
  ];
}

export const HOST_COLS: readonly Col<HostRow>[] = [
  ['host', 'host', 'text'], ['robotsTxt', 'robots_txt', 'text'], ['robotsStatus', 'robots_status', 'num'],
  ['robotsFetchedAt', 'robots_fetched_at', 'num'], ['crawlDelayMs', 'crawl_delay_ms', 'num'],
  ['meanDownloadMs', 'mean_download_ms', 'num'], ['fetches', 'fetches', 'num'], ['errors', 'errors', 'num'],
];

export const CYCLE_COLS: readonly Col<CycleRow>[] = [
  ['startedAt', 'started_at', 'num'], ['endedAt', 'ended_at', 'num'], ['urls', 'urls', 'num'],
  ['estimateMs', 'estimate_ms', 'num'], ['actualMs', 'actual_ms', 'num'], ['status', 'status', 'text'], ['note', 'note', 'text'],
];

/**
 * A row object → values in column order (undefined → null, JSON encoded, booleans as 0/1, digests as
 * their bytes where the dialect keeps them so: `packDigest`).
 */
export function toValues<R>(cols: readonly Col<R>[], row: Partial<R>, d: Dialect): unknown[] {
  return cols.map(([key, , kind]) => encode(row[key], kind, d));
}

export function encode(v: unknown, kind: Kind, d: Dialect): unknown {
  // Boolean columns are NOT NULL (an explicit NULL would bypass their DEFAULT 0): absent means false.
  if (kind === 'bool') return v ? 1 : 0;
  if (v === undefined || v === null) return null;
  if (kind === 'json') return JSON.stringify(v);
  if (d === 'sqlite' && (kind === 'sha1' || kind === 'hex') && typeof v === 'string') return packDigest(v, kind) ?? v;
  return v;
}

/**
 * A digest's bytes, where its text spelled them twice over: a log row's payload digest (`sha1:` and 32
 * base32 letters, 37 bytes as text) and graph hash (64 hex digits) were a quarter of the row (bench/ARCHIVE-SIZE.md,
 * "Digests as bytes"). Only spellings that come back exactly are packed; any other is kept as written.
 */
export function packDigest(v: string, kind: 'sha1' | 'hex'): Buffer | undefined {
  if (kind === 'sha1') return /^sha1:[A-Z2-7]{32}$/.test(v) ? fromBase32(v.slice(5)) : undefined;
  return v.length > 0 && v.length % 2 === 0 && /^[0-9a-f]+$/.test(v) ? Buffer.from(v, 'hex') : undefined;
}

/** A digest column's value as text, whether kept as bytes (SQLite, `packDigest`) or as written. */
export function unpackDigest(v: unknown, kind: 'sha1' | 'hex'): string {
  if (!Buffer.isBuffer(v) && !(v instanceof Uint8Array)) return v as string;
  const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  return kind === 'sha1' ? `sha1:${base32(b)}` : b.toString('hex');
}

/** A database row → a row object (null → absent, JSON decoded, BIGINT strings as numbers). */
export function fromRow<R>(cols: readonly Col<R>[], row: Record<string, unknown>, extra?: Record<string, string>): R {
  const out: Record<string, unknown> = {};
  for (const [key, col, kind] of cols) {
    const v = row[col];
    if (v === null || v === undefined) continue;
    if (kind === 'json') out[key] = JSON.parse(v as string);
    else if (kind === 'bool') out[key] = Boolean(Number(v));
    else if (kind === 'num') out[key] = Number(v);
    else if (kind === 'sha1' || kind === 'hex') out[key] = unpackDigest(v, kind);
    else out[key] = v;
  }
  if (extra) for (const [key, col] of Object.entries(extra)) if (row[col] != null) out[key] = Number(row[col]);
  return out as R;
}

/**
 * A crawl log row → its entry: the one reader of a row, for both stores. A final URL that is the URL asked
 * for is absent, as rows are written now (logValues), in rows written before too.
 */
export function logEntry(row: Record<string, unknown>): CrawlLogEntry {
  // Mapped without the copy rather than deleted after: a `delete` leaves V8 a slower object for every reader after.
  return fromRow(LOG_COLS, row.final_url === row.url ? { ...row, final_url: null } : row, { id: 'id' });
}

/** camelCase keys of a patch → "col = ?" assignments for an UPDATE. */
export function assignments<R>(cols: readonly Col<R>[], patch: Partial<R>, d: Dialect): { cols: string[]; values: unknown[] } {
  const out: string[] = [];
  const values: unknown[] = [];
  for (const [key, col, kind] of cols) {
    if (!(key in patch)) continue;
    out.push(col);
    values.push(encode(patch[key], kind, d));
  }
  return { cols: out, values };
}

/** The WHERE clause of `makeDue` for both backends (`?` for SQLite, `$n` for PostgreSQL from `param`). */
export function dueWhere(select: DueSelection, param?: number): [string, string[]] {
  const p = param === undefined ? '?' : `$${param}`;
  if ('url' in select) return [`url = ${p}`, [select.url]];
  if ('host' in select) return [`host = ${p}`, [select.host]];
  return ['1 = 1', []];
}
