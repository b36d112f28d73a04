/**
 * The crawl log's read paths for the server (dashboard and CDXJ), as SQL that SQLite and PostgreSQL both
 * run: aggregates are GROUP BY queries, lists carry a LIMIT, so a request never reads the whole log into
 * memory. One implementation for both backends, given a way to run a query (`LogReader`).
 */
import type { ChangeState, CrawlLogEntry, ReadModel } from './types.ts';
import { BULK_READ, logEntry, ORDINARY_REASONS, unpackDigest, urlArgs, urlIn, urlIs, UNUSUAL_FATE, type Dialect } from './schema.ts';
import { UNREQUESTED_REASONS } from '../vocabulary/reasons.ts';
import { outcomeOf, zeroOutcomes, type Outcome } from '../vocabulary/outcomes.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import { type HeaderPair, redirectTarget } from '../util/headers.ts';

/** Entries of the log counted by HTTP status and by change; groups in the order they first appear in the log. */
export interface LogCounts {
  entries: number;
  /** Entries of URLs that were requested (the rest were skipped by a policy or a failing origin before any request). */
  requests: number;
  /** Entries by reason (`(none)`: rows older than the reason column). */
  byReason: Array<{ reason: string; entries: number }>;
  byStatus: Array<{ status: number; entries: number }>;
  byChange: Array<{ change: ChangeState; entries: number }>;
  /** Entries in the one way of counting the crawl's summary, `run` and the dashboard share (src/vocabulary/outcomes.ts). */
  byOutcome: Record<Outcome, number>;
}

/** How many documents showed a number of changes (error entries left out; a document never changed shows 0). */
export interface ChangeFrequency {
  changes: number;
  documents: number;
}

/** A step of the crawl-progress chart: the fetches and errors logged up to `time` since the previous step. */
export interface ProgressPoint {
  time: number;
  fetched: number;
  errors: number;
}

/** Where a page of captures ended: the last entry's URL, time and id (what a client resumes after). */
export interface CaptureCursor {
  url: string;
  time: number;
  id: number;
}

/**
 * Captures (log entries with a WARC record) of some URLs: those equal to one of `urls` or starting with one
 * of `prefixes` (range scans on the URL index), captured within [fromTime, toTime], after `after`.
 */
export interface CaptureQuery {
  urls?: string[];
  prefixes?: string[];
  fromTime?: number;
  toTime?: number;
  after?: CaptureCursor;
  limit: number;
}

/** A capture and the payload digest of the URL's latest earlier 2xx/304 capture (what tells a revisit). */
export interface Capture {
  entry: CrawlLogEntry;
  lastGoodChecksum?: string;
}

export interface LogReader {
  dialect: Dialect;
  /** Runs a query written with `?` placeholders. */
  all(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
}

const isError = `CASE WHEN change = 'error' THEN 1 ELSE 0 END`;

/** Adds `n` entries first seen at log id `first` to group `key`. */
function tally<K>(groups: Map<K, { entries: number; first: number }>, key: K, n: number, first: number): void {
  const g = groups.get(key);
  if (g) (g.entries += n), (g.first = Math.min(g.first, first));
  else groups.set(key, { entries: n, first });
}

export async function logCounts(db: LogReader): Promise<LogCounts> {
  // One scan: status and change together, split here; MIN(id) keeps the order of first appearance.
  const rows = await db.all('SELECT status, change, reason, COUNT(*) AS n, MIN(id) AS first FROM crawl_log GROUP BY status, change, reason', []);
  const byStatus = new Map<number, { entries: number; first: number }>();
  const byChange = new Map<ChangeState, { entries: number; first: number }>();
  const byReason = new Map<string, { entries: number; first: number }>();
  const byOutcome = zeroOutcomes();
  let entries = 0;
  let requests = 0;
  for (const r of rows) {
    const reason = (r.reason as string | null) ?? '(none)';
    entries += Number(r.n);
    if (!(Number(r.status) === 0 && UNREQUESTED_REASONS.has(reason as never))) requests += Number(r.n);
    tally(byStatus, Number(r.status), Number(r.n), Number(r.first));
    tally(byChange, r.change as ChangeState, Number(r.n), Number(r.first));
    tally(byReason, reason, Number(r.n), Number(r.first));
    byOutcome[outcomeOf(r.change as string, r.reason as string | null)] += Number(r.n);
  }
  const ordered = <K>(m: Map<K, { entries: number; first: number }>) => [...m].sort((a, b) => a[1].first - b[1].first);
  return {
    entries,
    requests,
    byReason: ordered(byReason).map(([reason, g]) => ({ reason, entries: g.entries })),
    byStatus: ordered(byStatus).map(([status, g]) => ({ status, entries: g.entries })),
    byChange: ordered(byChange).map(([change, g]) => ({ change, entries: g.entries })),
    byOutcome,
  };
}

export async function changeFrequencies(db: LogReader): Promise<ChangeFrequency[]> {
  const rows = await db.all(
    `SELECT changes, COUNT(*) AS documents FROM (
       SELECT url, SUM(CASE WHEN change = 'changed' THEN 1 ELSE 0 END) AS changes FROM crawl_log WHERE change <> 'error' GROUP BY url
     ) per_url GROUP BY changes ORDER BY changes`,
    [],
  );
  return rows.map((r) => ({ changes: Number(r.changes), documents: Number(r.documents) }));
}

/**
 * The crawl's progress: one point per log entry (in log order) while the log has at most `maxPoints`
 * entries, so a small archive's chart is exact; beyond, one point per time bucket (at most about
 * `maxPoints` of them, in time order), so that the chart costs a GROUP BY, not the log.
 */
export async function logProgress(db: LogReader, maxPoints: number): Promise<ProgressPoint[]> {
  const [span] = await db.all('SELECT COUNT(*) AS n, MIN(time) AS lo, MAX(time) AS hi FROM crawl_log', []);
  const n = Number(span!.n);
  if (n === 0) return [];
  if (n <= maxPoints) {
    const rows = await db.all(`SELECT time, ${isError} AS errors FROM crawl_log ORDER BY id LIMIT ?`, [maxPoints]);
    return rows.map((r) => ({ time: Number(r.time), fetched: 1 - Number(r.errors), errors: Number(r.errors) }));
  }
  const lo = Number(span!.lo);
  const width = Math.max(1, Math.ceil((Number(span!.hi) - lo + 1) / maxPoints));
  const rows = await db.all(
    `SELECT (${timeInt(db.dialect)} - ${intParam(db.dialect)}) / ${intParam(db.dialect)} AS bucket, MAX(time) AS time, COUNT(*) AS n, SUM(${isError}) AS errors
     FROM crawl_log GROUP BY bucket ORDER BY bucket`,
    [lo, width],
  );
  return rows.map((r) => ({ time: Number(r.time), fetched: Number(r.n) - Number(r.errors), errors: Number(r.errors) }));
}

export async function latestLog(db: LogReader, limit: number): Promise<CrawlLogEntry[]> {
  const rows = await db.all('SELECT * FROM crawl_log ORDER BY id DESC LIMIT ?', [limit]);
  return rows.map(logEntry);
}

/**
 * Which log entries `datamonitor log` lists: by reason (default: every fate but a plain capture, and
 * captures with diagnostics, unless a URL is asked for), by URL (its rows and those of the URLs its
 * redirects led to, every capture included).
 */
export interface FateQuery {
  reasons?: readonly string[];
  url?: string;
  limit: number;
}

export async function fates(db: LogReader, q: FateQuery): Promise<CrawlLogEntry[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.reasons?.length) {
    where.push(`reason IN (${q.reasons.map(() => '?').join(', ')})`);
    params.push(...q.reasons);
    // The index of fates holds the unusual ones only, and is reached by its own condition (schema.ts PARTIAL_INDEXES).
    if (!q.reasons.some((r) => (ORDINARY_REASONS as readonly string[]).includes(r))) where.push(UNUSUAL_FATE);
  } else if (q.url === undefined) {
    // Rows from before the reason column have none: a failure among them still shows as one.
    // A prerequisite (robots.txt, a context, a proof) always has its info line: listed only when it could not serve.
    where.push(`(reason IS NULL AND change = 'error' OR reason NOT IN ('fetched', 'unchanged', 'requisite', 'variant', 'prerequisite')`
      + ` OR reason = 'prerequisite' AND change = 'error' OR diagnostics IS NOT NULL AND (reason IS NULL OR reason <> 'prerequisite'))`);
  }
  if (q.url !== undefined) {
    const urls = await redirectedTo(db, q.url);
    const list = urls.map(() => '?').join(', ');
    // `final_url <> url` lets the final URLs be read from their partial index (crawl_log_moved).
    where.push(`((${urlIn(db.dialect, 'url', urls.length)}) OR (final_url IN (${list}) AND final_url <> url))`);
    params.push(...urlArgs(db.dialect, urls), ...urls);
  }
  const rows = await db.all(`SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`, [...params, q.limit]);
  return rows.map(logEntry);
}

/** URLs a chain of redirects may visit before `log --url` stops following it (a loop ends sooner). */
const MAX_REDIRECT_URLS = 20;

/**
 * `url` and, hop by hop, every URL its logged redirects led to: a crawl logs a redirect under the URL
 * that answered it and its target under its own, so what became of `url` is spread over both.
 */
async function redirectedTo(db: LogReader, url: string): Promise<string[]> {
  const urls = [url];
  for (let i = 0; i < urls.length && urls.length < MAX_REDIRECT_URLS; i++) {
    const rows = await db.all(`SELECT status, headers FROM crawl_log WHERE ${urlIs(db.dialect, 'url')} AND status IN (301, 302, 303, 307, 308) AND headers IS NOT NULL`, urlArgs(db.dialect, [urls[i]!]));
    for (const r of rows) {
      const to = redirectTarget(Number(r.status), JSON.parse(r.headers as string) as HeaderPair[], urls[i]!)?.url;
      const target = to && normalizeUrl(to.href);
      if (target && !urls.includes(target) && urls.length < MAX_REDIRECT_URLS) urls.push(target);
    }
  }
  return urls;
}

/** `time` as an integer (SQLite may hold a fractional ms value; PostgreSQL's column is BIGINT already). */
function timeInt(d: Dialect, col = 'time'): string {
  return d === 'sqlite' ? `CAST(${col} AS INTEGER)` : col;
}

/** A parameter used in integer arithmetic (better-sqlite3 binds a JS number as REAL, and REAL division does not floor). */
function intParam(d: Dialect): string {
  return d === 'sqlite' ? 'CAST(? AS INTEGER)' : '?';
}

/**
 * In SQL, where `col`'s authority ends: the position of the first `/` from the 9th character on (past `http://` and
 * `https://`), counted from there (0: none). `authorityEnd` is the same in JavaScript.
 */
function slashAfterAuthority(d: Dialect, col: string): string {
  return `${d === 'sqlite' ? 'instr' : 'strpos'}(substr(${col}, 9), '/')`;
}

/** In JavaScript, where a URL's authority ends (the `/` after `scheme://host[:port]`), or -1 when it has no path. */
function authorityEnd(url: string): number {
  return url.indexOf('/', 8);
}

/** The URL after its scheme and authority (`/path?query`), lower-cased: a SURT key's order within one host. */
function restOf(d: Dialect, col = 'url'): string {
  const expr = `lower(substr(${col}, ${slashAfterAuthority(d, col)} + 8))`;
  // PostgreSQL compares text in the database's collation; CDX keys sort byte-wise, as JavaScript does.
  return d === 'postgres' ? `${expr} COLLATE "C"` : expr;
}

/** The smallest string greater than every string that starts with `p` (its last character incremented). */
export function prefixEnd(p: string): string | undefined {
  let s = p;
  while (s.length && s.charCodeAt(s.length - 1) === 0xffff) s = s.slice(0, -1);
  if (!s.length) return undefined;
  return s.slice(0, -1) + String.fromCharCode(s.charCodeAt(s.length - 1) + 1);
}

/** `time` in whole seconds: a CDX timestamp's resolution, the second key of the capture order (and of its index). */
function secondOf(d: Dialect, col = 'time'): string {
  return `${timeInt(d, col)} / 1000`;
}

/** The whole URL lower-cased, byte-wise ordered: the first key of the capture index (captureIndexDdl). */
function lowerUrl(d: Dialect): string {
  return d === 'postgres' ? 'lower(url) COLLATE "C"' : 'lower(url)';
}

/**
 * The index that serves a page of captures of one origin in CDX order straight from the index: within an
 * origin, the lower-cased URL orders as its lower-cased path does (`restOf`). Without it a page read every
 * capture of the host, sorted them and looked up each one's last good digest before the limit: a host of
 * 30,000 log rows cost 2-3 s a page of 10,000 (bench/SCALE-RUN.md, the CDX probe at 1,000,000 documents).
 * Partial: only captures (rows with a WARC record) are ever asked for. Archives written before it get it the next
 * time a writer opens them (SQLite) or by migration (PostgreSQL).
 */
export function captureIndexDdl(d: Dialect): string {
  return `CREATE INDEX IF NOT EXISTS crawl_log_capture ON crawl_log ((${lowerUrl(d)}), (${secondOf(d)}), id)
    WHERE warc_id IS NOT NULL AND warc_offset IS NOT NULL`;
}

/** A logged URL's origin (`scheme://authority`, the whole URL when it has no path), in SQL. */
function originOf(d: Dialect, col = 'url'): string {
  const slash = slashAfterAuthority(d, col);
  return `CASE WHEN ${slash} > 0 THEN substr(${col}, 1, ${slash} + 7) ELSE ${col} END`;
}

const SQLITE_ORIGIN = originOf('sqlite');
/** Rows whose origin is not lower-case: none that a crawl or an import logs (each normalises its URLs, WHATWG URL). */
const ODD_ORIGIN = `${SQLITE_ORIGIN} <> lower(${SQLITE_ORIGIN})`;

/**
 * SQLite's index of the log's URLs: the capture index's keys over every row, where it kept an index of the URL
 * beside it (`(url, time)`, 53 B a log row: bench/ARCHIVE-SIZE.md, "One index of the log's URLs"). A read of
 * one URL seeks its lower-cased form and compares the URL whole (schema.ts urlIs); a read of captures keeps
 * its own condition on the WARC record. The origins skip through it lower-cased, where an origin that is not
 * lower-case would share its probe with the lower-case one: those rows are indexed apart (ODD_ORIGIN), an index
 * a normalised log leaves empty. Archives written before get these in place of the two on their next open for
 * writing.
 */
export function sqliteUrlIndexDdl(): string[] {
  return [
    'DROP INDEX IF EXISTS crawl_log_url',
    'DROP INDEX IF EXISTS crawl_log_capture',
    `CREATE INDEX IF NOT EXISTS crawl_log_by_url ON crawl_log ((${lowerUrl('sqlite')}), (${secondOf('sqlite')}), id)`,
    `CREATE INDEX IF NOT EXISTS crawl_log_odd_origin ON crawl_log (url) WHERE ${ODD_ORIGIN}`,
  ];
}

/**
 * The SQL of `captures`. Order: the URL after its authority ignoring letter case, then the second, then the
 * log id: the order of SURT key then 14-digit timestamp that CDXJ wants for URLs of one SURT host (the
 * scheme, `www.` and case are not part of it), apart from query arguments, which SURT sorts.
 *
 * Each prefix that names its origin is read on its own from the capture index, in that order, at most `limit`
 * rows from the cursor on; the rest (exact URLs, prefixes without a path) in one arm sorted as a whole. The
 * arms are merged, cut to `limit`, and only then is each row's last good digest looked up.
 */
export function captureSql(d: Dialect, q: CaptureQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const common: string[] = ['warc_id IS NOT NULL AND warc_offset IS NOT NULL'];
  const commonParams: unknown[] = [];
  if (q.fromTime !== undefined) (common.push('time >= ?'), commonParams.push(q.fromTime));
  if (q.toTime !== undefined) (common.push('time <= ?'), commonParams.push(q.toTime));
  const afterSecond = q.after && Math.floor(Math.trunc(q.after.time) / 1000);
  const arms: string[] = [];

  const indexed = (q.prefixes ?? []).filter((p) => authorityEnd(p) >= 0);
  for (const p of indexed) {
    const end = prefixEnd(p);
    const lower = p.toLowerCase();
    const where = [...common];
    const armParams: unknown[] = [...commonParams];
    // The index range is the prefix lower-cased (a superset); the exact prefix is a filter only, written so that it
    // is no second index key and PostgreSQL does not take it as selective (a CASE is estimated at one half): with
    // `url >= ? AND url < ?`, or `starts_with` (1 %), it read the rest of the host by a bitmap scan and sorted it,
    // a page's cost growing with the host again; so it walks crawl_log_capture in order and stops at the limit.
    if (d === 'postgres') (where.push('CASE WHEN starts_with(url, ?) THEN true ELSE false END'), armParams.push(p));
    else (where.push(end === undefined ? "url || '' >= ?" : "(url || '' >= ? AND url || '' < ?)"), armParams.push(p, ...(end === undefined ? [] : [end])));
    // From the cursor on: the row value is an index condition (an ordered scan that stops at the limit).
    let from = lower;
    if (q.after) {
      const cursorKey = lower.slice(0, authorityEnd(lower)) + restKey(q.after.url);
      if (cursorKey > from) from = cursorKey;
      where.push(`(${lowerUrl(d)}, ${secondOf(d)}, id) > (?, ?, ?)`);
      armParams.push(cursorKey, afterSecond, q.after.id);
    }
    where.push(`${lowerUrl(d)} >= ?`);
    armParams.push(from);
    const lowerEnd = prefixEnd(lower);
    if (lowerEnd !== undefined) (where.push(`${lowerUrl(d)} < ?`), armParams.push(lowerEnd));
    arms.push(`SELECT * FROM (SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY ${lowerUrl(d)}, ${secondOf(d)}, id LIMIT ?) a${arms.length}`);
    params.push(...armParams, q.limit);
  }

  const ranges: string[] = [];
  const rangeParams: unknown[] = [];
  if (q.urls?.length) {
    ranges.push(`(${urlIn(d, 'url', q.urls.length)})`);
    rangeParams.push(...urlArgs(d, q.urls));
  }
  for (const p of (q.prefixes ?? []).filter((x) => authorityEnd(x) < 0)) {
    const end = prefixEnd(p);
    const exact = end === undefined ? 'url >= ?' : '(url >= ? AND url < ?)';
    rangeParams.push(p, ...(end === undefined ? [] : [end]));
    if (d === 'postgres') {
      ranges.push(exact);
      continue;
    }
    // SQLite's URL index is of the lower-cased URL: a URL that starts with p lower-cases to one that starts with p lower-cased.
    const lower = p.toLowerCase();
    const lowerEnd = prefixEnd(lower);
    ranges.push(`(${exact} AND ${lowerUrl(d)} >= ?${lowerEnd === undefined ? '' : ` AND ${lowerUrl(d)} < ?`})`);
    rangeParams.push(lower, ...(lowerEnd === undefined ? [] : [lowerEnd]));
  }
  if (ranges.length || !arms.length) {
    const where = [ranges.length ? `(${ranges.join(' OR ')})` : '1 = 0', ...common];
    const armParams = [...rangeParams, ...commonParams];
    if (q.after) {
      where.push(`(${restOf(d)}, ${secondOf(d)}, id) > (?, ?, ?)`);
      armParams.push(restKey(q.after.url), afterSecond, q.after.id);
    }
    arms.push(`SELECT * FROM (SELECT * FROM crawl_log WHERE ${where.join(' AND ')} ORDER BY ${restOf(d)}, ${secondOf(d)}, id LIMIT ?) a${arms.length}`);
    params.push(...armParams, q.limit);
  }

  // The revisit test needs the URL's latest earlier 2xx/304 capture: a look-up on the URL index per row of the page
  // (`p.id + 0`: without statistics, PostgreSQL walked the primary key backwards from the row's id instead, a scan).
  const lastGood = `(SELECT p.checksum FROM crawl_log p WHERE ${urlIs(d, 'p.url', 'c.url')} AND p.id < c.id
      AND p.warc_id IS NOT NULL AND p.warc_offset IS NOT NULL AND ((p.status >= 200 AND p.status < 300) OR p.status = 304)
      ORDER BY p.id + 0 DESC LIMIT 1)`;
  params.push(q.limit);
  return {
    sql: `SELECT c.*, ${lastGood} AS last_good_checksum FROM (${arms.join(' UNION ALL ')}) c
      ORDER BY ${restOf(d, 'c.url')}, ${secondOf(d, 'c.time')}, c.id LIMIT ?`,
    params,
  };
}

/** `restOf` computed here, for a resume cursor. */
export function restKey(url: string): string {
  const slash = authorityEnd(url);
  return (slash < 0 ? url.slice(7) : url.slice(slash)).toLowerCase();
}

export async function captures(db: LogReader, q: CaptureQuery): Promise<Capture[]> {
  if (q.limit <= 0) return [];
  const { sql, params } = captureSql(db.dialect, q);
  const rows = await db.all(sql, params);
  return rows.map((r) => ({ entry: logEntry(r), lastGoodChecksum: r.last_good_checksum == null ? undefined : unpackDigest(r.last_good_checksum, 'sha1') }));
}

/**
 * Every URL of the documents table, a page of at most `pageSize` at a time in URL order: keyset pages on
 * the primary key, each one index range whatever the table's size (any collation: the seek and the order
 * use the same one).
 */
export async function* documentUrlPages(db: LogReader, pageSize: number): AsyncIterable<string[]> {
  for (let after = ''; ;) {
    const page = (await db.all('SELECT url FROM documents WHERE url > ? ORDER BY url LIMIT ?', [after, pageSize])).map((r) => r.url as string);
    if (page.length) yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!;
  }
}

/** The distinct `scheme://authority` of logged URLs: a scan of the url index, for matches that are no range (CDX domain). */
export async function logOrigins(db: LogReader): Promise<string[]> {
  if (db.dialect === 'sqlite') {
    // A skip scan of the url index, one probe per origin: the DISTINCT below reads every log row, and a CDX
    // domain query asks for the origins once a page (3 M log rows: 754 ms a page, 8 ms so).
    // On the lower-cased URL (the URL index: sqliteUrlIndexDdl), where every URL of an origin starts with
    // `origin/`, and `origin0` sorts right after them; origins that are not lower-case, from their own index.
    const out = new Set<string>();
    for (const r of await db.all(`SELECT DISTINCT ${SQLITE_ORIGIN} AS origin FROM crawl_log WHERE ${ODD_ORIGIN}`, [])) out.add(r.origin as string);
    for (let from = ''; ;) {
      const [row] = await db.all(`SELECT url FROM crawl_log WHERE ${lowerUrl(db.dialect)} >= ? AND NOT (${ODD_ORIGIN}) ORDER BY ${lowerUrl(db.dialect)} LIMIT 1`, [from]);
      if (!row) return [...out];
      const url = row.url as string;
      const slash = authorityEnd(url);
      const origin = slash < 0 ? url : url.slice(0, slash);
      out.add(origin);
      from = `${origin}0`;
    }
  }
  // PostgreSQL: the same skip scan, one round trip (a recursive query), where the url column sorts byte-wise (C,
  // POSIX, C.UTF-8); a linguistic collation need not keep an origin's URLs together in index order: one pass then.
  const [coll] = await db.all(`SELECT COALESCE(NULLIF(c.collname, 'default'), (SELECT datcollate FROM pg_database WHERE datname = current_database())) AS coll
    FROM pg_attribute a LEFT JOIN pg_collation c ON c.oid = a.attcollation WHERE a.attrelid = 'crawl_log'::regclass AND a.attname = 'url'`, []);
  const origin = originOf(db.dialect);
  const rows = BYTEWISE.test(String(coll?.coll ?? ''))
    ? await db.all(`WITH RECURSIVE o(origin) AS (
        SELECT (SELECT ${origin} AS origin FROM crawl_log ORDER BY crawl_log.url LIMIT 1)
        UNION ALL
        SELECT (SELECT ${origin} AS origin FROM crawl_log WHERE crawl_log.url >= o.origin || '0' ORDER BY crawl_log.url LIMIT 1) FROM o WHERE o.origin IS NOT NULL)
      SELECT origin FROM o WHERE origin IS NOT NULL`, [])
    : await db.all(`SELECT DISTINCT ${origin} AS origin FROM crawl_log`, []);
  return rows.map((r) => r.origin as string);
}

/** Collations whose order is the bytes' (UTF-8 keeps code point order): an origin's URLs sit together in the index. */
const BYTEWISE = /^(C|POSIX|C\.UTF-?8)$/i;

/** Which archived URLs a search lists: those starting with `text` (an index range) or containing it (any case, a scan). */
export interface UrlSearch {
  text: string;
  match: 'prefix' | 'substring';
  /** Resume after this URL (the last one of the previous page). */
  after?: string;
  limit: number;
}

/** An archived URL: one with captures (a WARC record) under it as the requested or the final URL. */
export interface ArchivedUrl {
  url: string;
  captures: number;
  firstTime: number;
  lastTime: number;
}

/**
 * Archived URLs matching a search, in URL order, a page at a time. A capture counts for its request URL
 * and for its final URL after redirects, as the Memento routes count it (`store.versions`).
 */
export async function searchUrls(db: LogReader, q: UrlSearch): Promise<ArchivedUrl[]> {
  if (q.limit <= 0) return [];
  const branch = (col: string): { sql: string; params: unknown[] } => {
    const where = ['warc_id IS NOT NULL', 'warc_offset IS NOT NULL'];
    const params: unknown[] = [];
    if (col === 'final_url') where.push('final_url IS NOT NULL', 'final_url <> url');
    if (q.match === 'prefix' && q.text) {
      const end = prefixEnd(q.text);
      where.push(end === undefined ? `${col} >= ?` : `${col} >= ? AND ${col} < ?`);
      params.push(q.text, ...(end === undefined ? [] : [end]));
      if (col === 'url' && db.dialect === 'sqlite') {
        // The range on SQLite's URL index, of the lower-cased URL (a URL that starts with the text lower-cases to
        // one that starts with it lower-cased); the page's rows are grouped and sorted after the read, as before.
        const lower = q.text.toLowerCase();
        const lowerEnd = prefixEnd(lower);
        where.push(`${lowerUrl('sqlite')} >= ?${lowerEnd === undefined ? '' : ` AND ${lowerUrl('sqlite')} < ?`}`);
        params.push(lower, ...(lowerEnd === undefined ? [] : [lowerEnd]));
      }
    } else if (q.text) {
      // No index helps a substring: the scan stops once the page is full of matches.
      where.push(`${db.dialect === 'sqlite' ? 'instr' : 'strpos'}(lower(${col}), ?) > 0`);
      params.push(q.text.toLowerCase());
    }
    if (q.after !== undefined) (where.push(`${col} > ?`), params.push(q.after));
    return { sql: `SELECT ${col} AS u, time FROM crawl_log WHERE ${where.join(' AND ')}`, params };
  };
  const a = branch('url');
  const b = branch('final_url');
  const rows = await db.all(
    `SELECT u, COUNT(*) AS n, MIN(time) AS first_time, MAX(time) AS last_time FROM (${a.sql} UNION ALL ${b.sql}) c GROUP BY u ORDER BY u LIMIT ?`,
    [...a.params, ...b.params, q.limit],
  );
  return rows.map((r) => ({ url: r.u as string, captures: Number(r.n), firstTime: Number(r.first_time), lastTime: Number(r.last_time) }));
}

/**
 * Which entry of each URL `latestEntries` reads, as the log's order decides it (the later id wins):
 * `version`, the newest with RDF (a conversion record), unless a 404/410 came after it (the document is
 * gone); `redirect`, the newest archived capture when it is a redirect (3xx, not 304); `response`, the
 * newest archived full 2xx response (not a revisit) that is not another representation (`crawl --variants`);
 * `variant-mismatch`, the newest verdict on each URL's representation of a media type when it was a
 * disagreement (a later agreeing `variant` row of the same URL and type settles it).
 */
export type LatestKind = 'version' | 'redirect' | 'response' | 'variant-mismatch';

export interface LatestQuery {
  kind: LatestKind;
  /** The archive as it was at this time (entries logged later are not read). */
  at?: number;
  /** Resume after this log id (the last entry of the previous page). */
  afterId?: number;
  limit: number;
}

/**
 * A row of a document's own: not one of the other representations `crawl --variants` fetched (replay shows the
 * document's own), nor a prerequisite (robots.txt, a context, a proof: no page of the crawl).
 */
const NOT_VARIANT = (t: string) => `(${t}.reason IS NULL OR ${t}.reason NOT IN ('variant', 'variant-mismatch', 'prerequisite'))`;

/** Per kind: which rows are candidates, and which later row of the same URL supersedes one. */
const LATEST: Record<LatestKind, { keep: string; supersededBy: string }> = {
  version: { keep: 'c.rdf_offset IS NOT NULL', supersededBy: 'd.rdf_offset IS NOT NULL OR d.status IN (404, 410)' },
  redirect: { keep: 'c.warc_id IS NOT NULL AND c.status >= 300 AND c.status < 400 AND c.status <> 304', supersededBy: 'd.warc_id IS NOT NULL' },
  response: {
    // A version read from a stream (crawl --ldes) has a graph record and no response (warc_offset null): no response to replay.
    keep: `c.warc_offset IS NOT NULL AND c.status >= 200 AND c.status < 300 AND c.change <> 'unchanged' AND ${NOT_VARIANT('c')}`,
    supersededBy: `d.warc_offset IS NOT NULL AND d.status >= 200 AND d.status < 300 AND d.change <> 'unchanged' AND ${NOT_VARIANT('d')}`,
  },
  'variant-mismatch': {
    keep: "c.reason = 'variant-mismatch'",
    supersededBy: "d.reason IN ('variant', 'variant-mismatch') AND d.media_type = c.media_type",
  },
};

/**
 * Each URL's latest entry of a kind, a page in log (id) order: a keyset scan of the log with a look-up on
 * the url index per candidate, so export reads the archive a page at a time instead of the whole log
 * into a map (740 MB for 87,344 documents before). For an archive crawled once the order is the log's.
 */
export async function latestEntries(db: LogReader, q: LatestQuery): Promise<CrawlLogEntry[]> {
  if (q.limit <= 0) return [];
  const { keep, supersededBy } = LATEST[q.kind];
  const at = q.at === undefined ? [] : [q.at];
  const rows = await db.all(
    `SELECT c.* FROM crawl_log c WHERE c.id > ? AND ${keep}${q.at === undefined ? '' : ' AND c.time <= ?'}
       AND NOT EXISTS (SELECT 1 FROM crawl_log d WHERE ${urlIs(db.dialect, 'd.url', 'c.url')} AND d.id > c.id${q.at === undefined ? '' : ' AND d.time <= ?'} AND (${supersededBy}))
     ORDER BY c.id LIMIT ?`,
    [q.afterId ?? 0, ...at, ...at, q.limit],
  );
  return rows.map(logEntry);
}

/** A host lease as the store holds it; `expiresAt` in the past means its worker stopped renewing it. */
export interface HeldLease {
  host: string;
  worker: string;
  expiresAt: number;
}

/**
 * Every host some worker holds or held without giving it back (released hosts have no worker), by worker
 * then host, at most `limit`. Empty when the store has no lease table (no worker ever used it).
 */
export async function heldLeases(db: LogReader, limit: number): Promise<HeldLease[]> {
  let rows: Record<string, unknown>[];
  try {
    rows = await db.all('SELECT host, worker, expires_at FROM host_leases WHERE worker IS NOT NULL ORDER BY worker, host LIMIT ?', [limit]);
  } catch (e) {
    if (/no such table|does not exist/i.test((e as Error).message)) return [];
    throw e;
  }
  return rows.map((r) => ({ host: r.host as string, worker: r.worker as string, expiresAt: Number(r.expires_at) }));
}

/** What an archive holds, in a few aggregate queries (the `stats` command). */
export interface ArchiveCounts {
  documents: { total: number; queued: number; fetched: number; failed: number; skipped: number };
  hosts: number;
  /** URLs under re-crawl, how many are due by `now`, and how many each strategy has. */
  monitored: number;
  due: number;
  strategies: Array<{ strategy: string; urls: number }>;
  /** The time span of the crawl log (absent while it is empty). */
  firstLogged?: number;
  lastLogged?: number;
}

export async function archiveCounts(db: LogReader, now: number): Promise<ArchiveCounts> {
  const documents = { total: 0, queued: 0, fetched: 0, failed: 0, skipped: 0 };
  let monitored = 0;
  let due = 0;
  for (const r of await db.all(
    'SELECT state, COUNT(*) AS n, SUM(monitored) AS m, SUM(CASE WHEN monitored = 1 AND next_fetch <= ? THEN 1 ELSE 0 END) AS due FROM documents GROUP BY state',
    [now],
  )) {
    const n = Number(r.n);
    documents.total += n;
    if (r.state === 'queued' || r.state === 'fetched' || r.state === 'failed' || r.state === 'skipped') documents[r.state] += n;
    monitored += Number(r.m ?? 0);
    due += Number(r.due ?? 0);
  }
  const strategies = (await db.all('SELECT strategy, COUNT(*) AS n FROM documents WHERE monitored = 1 GROUP BY strategy ORDER BY COUNT(*) DESC, strategy', []))
    .map((r) => ({ strategy: (r.strategy as string | null) ?? '(default)', urls: Number(r.n) }));
  const [hosts] = await db.all('SELECT COUNT(DISTINCT host) AS n FROM documents', []);
  const [span] = await db.all('SELECT MIN(time) AS lo, MAX(time) AS hi FROM crawl_log', []);
  const out: ArchiveCounts = { documents, hosts: Number(hosts!.n), monitored, due, strategies };
  if (span!.lo !== null && span!.lo !== undefined) {
    out.firstLogged = Number(span!.lo);
    out.lastLogged = Number(span!.hi);
  }
  return out;
}

/**
 * The server's log reads as store methods, written once: each backend extends this and says how it
 * runs a query (`reader`); the SQL and the shaping of the rows live above.
 */
export abstract class LogReadingStore implements ReadModel {
  protected abstract readonly reader: LogReader;

  logCounts(): Promise<LogCounts> {
    return logCounts(this.reader);
  }

  changeFrequencies(): Promise<ChangeFrequency[]> {
    return changeFrequencies(this.reader);
  }

  logProgress(maxPoints: number): Promise<ProgressPoint[]> {
    return logProgress(this.reader, maxPoints);
  }

  latestLog(limit: number): Promise<CrawlLogEntry[]> {
    return latestLog(this.reader, limit);
  }

  captures(q: CaptureQuery): Promise<Capture[]> {
    return captures(this.reader, q);
  }

  logOrigins(): Promise<string[]> {
    return logOrigins(this.reader);
  }

  /** DocumentStore's read of every URL, for both stores (each implements DocumentStore). */
  documentUrlPages(pageSize = BULK_READ): AsyncIterable<string[]> {
    return documentUrlPages(this.reader, pageSize);
  }

  archiveCounts(now: number): Promise<ArchiveCounts> {
    return archiveCounts(this.reader, now);
  }

  fates(q: FateQuery): Promise<CrawlLogEntry[]> {
    return fates(this.reader, q);
  }

  searchUrls(q: UrlSearch): Promise<ArchivedUrl[]> {
    return searchUrls(this.reader, q);
  }

  heldLeases(limit: number): Promise<HeldLease[]> {
    return heldLeases(this.reader, limit);
  }

  /** Part of CrawlLog (export's and replay's reads), written once here for both backends. */
  latestEntries(q: LatestQuery): Promise<CrawlLogEntry[]> {
    return latestEntries(this.reader, q);
  }
}
