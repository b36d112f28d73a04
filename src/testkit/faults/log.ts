/**
 * Reading a URL's fate from the crawl log as a user would (the SQLite file), before and after the
 * crawl log has its `reason` column: with the column the reason is the answer; without it the old
 * row (error text, status, truncation) is matched against what each reason used to look like.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { isReason, type Reason } from '../../vocabulary/reasons.ts';
import { readRecord } from '../../archive/warc-reader.ts';
import { META_FILE } from '../../util/data-dir.ts';
import { LOG_ROWS_SQL } from '../../store/warc-ids.ts';

export interface LogRow {
  url: string;
  final_url: string | null;
  status: number;
  error: string | null;
  reason?: string | null;
  truncated: number;
  triples: number;
  diagnostics: string | null;
  warc_file: string | null;
  rdf_offset: number | null;
  rdf_length: number | null;
}

export function readLog(dataDir: string): LogRow[] {
  const db = new Database(path.join(dataDir, META_FILE), { readonly: true, fileMustExist: true });
  try {
    // A log from before warc_files names each row's file in the row itself.
    const byId = db.prepare(`SELECT 1 FROM pragma_table_info('crawl_log') WHERE name = 'warc_id'`).get() !== undefined;
    return db.prepare(byId ? `${LOG_ROWS_SQL} ORDER BY c.id` : 'SELECT * FROM crawl_log ORDER BY id').all() as LogRow[];
  } finally {
    db.close();
  }
}

/** A row's reason, or (no `reason` column yet) its old text: the error, else `HTTP <status>` and diagnostics. */
export function rowReason(row: LogRow): string {
  if (row.reason !== undefined && row.reason !== null) return row.reason;
  if (row.error) return row.error;
  return `HTTP ${row.status}${row.truncated ? ' truncated' : ''}${row.diagnostics ? ` ${row.diagnostics}` : ''}`;
}

/** The latest logged fate of `url` (as requested or as the end of its redirects), undefined when the log never mentions it. */
export function reasonOf(dataDir: string, url: string, rows = readLog(dataDir)): string | undefined {
  const mine = rows.filter((r) => r.url === url || r.final_url === url);
  return mine.length ? rowReason(mine[mine.length - 1]) : undefined;
}

/**
 * What each reason looked like in the log before the `reason` column: the fetcher's and crawl's
 * error texts of the time. Only used when the column is missing.
 */
const LEGACY: Partial<Record<Reason, RegExp>> = {
  fetched: /^HTTP 2\d\d(?! truncated)/,
  unchanged: /^HTTP 304/,
  redirected: /^HTTP 30[1-8]/,
  'http-error': /^HTTP 4\d\d/,
  'server-error': /^HTTP 5\d\d/,
  'rate-limited': /^HTTP (429|503)/,
  'robots-disallowed': /robots\.txt: disallowed/,
  'refused-address': /refused to connect|private, loopback/,
  'robots-unavailable': /robots\.txt unavailable/,
  'failing-origin': /failed \d+ times in a row/,
  'connection-reset': /reset|socket hang up|closed|terminated|other side/i,
  'tls-error': /tls|ssl|handshake|certificate|EPROTO|wrong version/i,
  'timeout-connect': /connect.*time|timeout/i,
  'timeout-tls': /tls.*time|handshake.*time/i,
  'timeout-headers': /header.*time|timeout/i,
  'timeout-body': /body.*time|timeout/i,
  'timeout-total': /total.*time|timeout/i,
  'redirect-loop': /loop/i,
  'too-many-redirects': /too many redirects|redirects/i,
  'too-large': /truncated/,
  'decode-error': /decod|inflate|gzip|brotli/i,
  'parse-error': /parse|syntax|invalid|unexpected|error:/i,
};

/** Does a logged fate (a reason name, or old text) say one of `accepted`? */
export function saysOneOf(fate: string | undefined, accepted: readonly Reason[]): boolean {
  if (fate === undefined) return false;
  if (isReason(fate)) return accepted.includes(fate);
  // Rows the crawl already names in their error text (`robots-unavailable: robots.txt of … answered 500`).
  const named = /^([a-z-]+): /.exec(fate)?.[1];
  if (named !== undefined && isReason(named)) return accepted.includes(named);
  return accepted.some((r) => LEGACY[r]?.test(fate) ?? false);
}

/**
 * The graph archived for a log row (its WARC conversion record): distinct triples and distinct
 * blank-node labels, what a user reading the archived N-Quads would count. undefined: no graph archived.
 */
export function archivedGraph(dataDir: string, row: LogRow): { triples: number; blankNodes: number } | undefined {
  if (!row.warc_file || row.rdf_offset === null || row.rdf_length === null) return undefined;
  const text = readRecord(dataDir, row.warc_file, row.rdf_offset, row.rdf_length).block.toString('utf8');
  const lines = new Set(text.split('\n').filter((l) => l.trim() !== ''));
  const labels = new Set(text.match(/_:[A-Za-z0-9_.-]+/g) ?? []);
  return { triples: lines.size, blankNodes: labels.size };
}

/** The distinct fates in the log of URLs that start with `prefix` (a hostile origin). */
export function fatesUnder(rows: LogRow[], prefix: string): string[] {
  return [...new Set(rows.filter((r) => r.url.startsWith(prefix)).map(rowReason))];
}
