/**
 * A CDXJ index of the archive in the pywb style: one line per capture,
 * `SURT timestamp {"url","mime","status","digest","length","offset","filename"}`, sorted by key then time,
 * with pywb's query parameters (url, matchType exact|prefix|host|domain, from, to, filter, fl, sort reverse|closest,
 * closest, limit (negative: the last N), output cdxj|json|link|text) and the Wayback CDX server's paging
 * (limit, showResumeKey, resumeKey).
 */
import type { CrawlLogEntry } from '../store/types.ts';
import { parseTimestamp, timestampOf } from './mementos.ts';
import { UserError } from '../util/errors.ts';

/**
 * Sort-friendly URI Reordering Transform, as python's `surt` (pywb's) writes it: scheme, user info and
 * `www.` (any case, `www2.` too) dropped, host labels reversed and comma-joined (an IPv6 address kept in
 * its brackets), a non-default port kept, `)` before the path, everything lower case and the query
 * arguments then sorted by name and value.
 *
 * Why our own and not warcio's `getSurt`: the two agree on most URLs the crawler archives (normalized
 * http(s) URLs; test/server/cdx-api.test.ts compares them on a set), but warcio's departs from python's
 * where ours must not: it drops `www.` only when lower-case and right after the scheme (`http://WWW.h/`,
 * `http://u@www.h/` keep it), lower-cases the URL before parsing it (a non-ASCII path is percent-encoded
 * from the wrong letters), sorts query arguments as whole strings (`a-b=2` before `a=3`), returns other
 * schemes unchanged and keeps a trailing dot as an empty label. Keys are what `/cdx` clients compare
 * with pywb's and what `matchType=host` groups by, so they follow python's.
 */
export function surt(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.toLowerCase();
  }
  const host = u.hostname.toLowerCase().replace(/^www\d*\./, '');
  // An IPv6 address has no labels to reverse; its brackets keep `[::1]:8080` apart from `[::1:8080]`.
  const labels = host.startsWith('[') ? host : host.split('.').filter(Boolean).reverse().join(',');
  const port = u.port ? `:${u.port}` : '';
  const query = u.search.length > 1 ? `?${sortQuery(u.search.slice(1).toLowerCase())}` : '';
  return `${labels}${port})${u.pathname.toLowerCase()}${query}`;
}

/**
 * Query arguments in python surt's order (its alphaReorderQuery): lower-cased first, then by name and then
 * value, so `b=1&a-b=2&a=3` gives `a=3&a-b=2&b=1` (a plain string sort would put `a-b=2` first: `-` < `=`).
 */
function sortQuery(query: string): string {
  const args = query.split('&').map((arg) => {
    const eq = arg.indexOf('=');
    return { arg, name: eq < 0 ? arg : arg.slice(0, eq), value: eq < 0 ? '' : arg.slice(eq + 1) };
  });
  const byCode = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return args.sort((x, y) => byCode(x.name, y.name) || byCode(x.value, y.value)).map((a) => a.arg).join('&');
}

export type MatchType = 'exact' | 'prefix' | 'host' | 'domain';
export type CdxOutput = 'cdxj' | 'json' | 'link' | 'text';

export interface CdxQuery {
  url: string;
  matchType?: MatchType;
  /** Timestamp prefixes (1–14 digits): from is padded with 0s, to with 9s. */
  from?: string;
  to?: string;
  limit?: number;
}

export interface CdxLine {
  urlkey: string;
  timestamp: string;
  url: string;
  mime: string;
  status: string;
  digest: string;
  length: string;
  offset: string;
  filename: string;
}

/** The host part of a SURT key (before `)`), port included. */
export function hostKey(key: string): string {
  return key.slice(0, key.indexOf(')') < 0 ? key.length : key.indexOf(')'));
}

/** The query's URL with a scheme and its match type: a URL ending in `*` is a prefix query (pywb shorthand). */
export function queryTarget(q: CdxQuery): { url: string; type: MatchType } {
  let url = q.url;
  let type = q.matchType ?? 'exact';
  if (url.endsWith('*') && !q.matchType) {
    url = url.slice(0, -1);
    type = 'prefix';
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`;
  return { url, type };
}

/** A predicate on SURT keys for one query. */
export function matcher(q: CdxQuery): (key: string) => boolean {
  const { url, type } = queryTarget(q);
  const key = surt(url);
  const host = hostKey(key);
  switch (type) {
    case 'exact':
      return (k) => k === key;
    case 'prefix':
      return (k) => k.startsWith(key);
    case 'host':
      return (k) => hostKey(k) === host;
    case 'domain': {
      const bare = host.replace(/:\d+$/, '');
      return (k) => {
        const h = hostKey(k).replace(/:\d+$/, '');
        return h === bare || h.startsWith(bare + ',');
      };
    }
  }
}

/** A capture as a CDX line; `revisit`: a revisit record (pywb marks those `warc/revisit` so that a replayer resolves them). */
export function cdxLine(e: CrawlLogEntry, revisit: boolean): CdxLine {
  return {
    urlkey: surt(e.url), timestamp: timestampOf(e.time), url: e.url, mime: revisit ? 'warc/revisit' : e.mediaType || 'unk', status: e.status ? String(e.status) : '-',
    digest: (e.checksum ?? '-').replace(/^sha1:/, ''), length: String(e.warcLength ?? '-'), offset: String(e.warcOffset), filename: e.warcFile!,
  };
}

/** Sorts CDX lines by key then timestamp (stable: lines of one key and second keep their order). */
export function sortCdxLines(lines: CdxLine[]): CdxLine[] {
  return lines.sort((a, b) => (a.urlkey < b.urlkey ? -1 : a.urlkey > b.urlkey ? 1 : a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
}

/** The 14-digit bounds of `from`/`to` (timestamp prefixes, inclusive: from padded with 0s, to with 9s). */
export function timestampBounds(q: Pick<CdxQuery, 'from' | 'to'>): { lo: string; hi: string } {
  return { lo: q.from ? q.from.padEnd(14, '0') : '', hi: q.to ? q.to.padEnd(14, '9') : '99999999999999' };
}

/** The CDX lines of a log held in memory (the reference the store-backed `/cdx` must agree with). */
export function cdxLines(entries: CrawlLogEntry[], q: CdxQuery): CdxLine[] {
  const match = matcher(q);
  const { lo, hi } = timestampBounds(q);
  const out: CdxLine[] = [];
  // The crawler writes a revisit record when the payload digest equals that of the URL's last good
  // capture (or on a 304); pywb marks those lines `warc/revisit` so that a replayer resolves them.
  const lastDigest = new Map<string, string | undefined>();
  for (const e of entries) {
    if (!e.warcFile || e.warcOffset === undefined) continue;
    const revisit = e.status === 304 || (e.checksum !== undefined && lastDigest.get(e.url) === e.checksum);
    if ((e.status >= 200 && e.status < 300) || e.status === 304) lastDigest.set(e.url, e.checksum);
    const line = cdxLine(e, revisit);
    if (!match(line.urlkey) || line.timestamp < lo || line.timestamp > hi) continue;
    out.push(line);
  }
  sortCdxLines(out);
  return q.limit !== undefined ? out.slice(0, q.limit) : out;
}

export function cdxjText(lines: CdxLine[]): string {
  return lines.map(({ urlkey, timestamp, ...rest }) => `${urlkey} ${timestamp} ${JSON.stringify(rest)}\n`).join('');
}

export type CdxField = keyof CdxLine;
/** The fields of a line in pywb's order (that of `output=text` and of a JSON line). */
export const CDX_FIELDS: CdxField[] = ['urlkey', 'timestamp', 'url', 'mime', 'status', 'digest', 'length', 'offset', 'filename'];
/** The Wayback CDX server's names for the same fields, which pywb accepts too. */
const FIELD_ALIASES: Record<string, CdxField> = { original: 'url', mimetype: 'mime', statuscode: 'status' };

function fieldNamed(name: string, param: string): CdxField {
  const f = FIELD_ALIASES[name] ?? (CDX_FIELDS as string[]).find((x) => x === name);
  if (!f) throw new UserError(`${param}: '${name}' is not a CDX field; the fields are ${CDX_FIELDS.join(', ')}`);
  return f as CdxField;
}

/** `fl=urlkey,timestamp,…`: the fields to print, in the order given. */
export function parseFieldList(fl: string): CdxField[] {
  const fields = fl.split(',').map((f) => f.trim()).filter(Boolean).map((f) => fieldNamed(f, 'fl'));
  if (fields.length === 0) throw new UserError(`fl '${fl}' names no field: give a comma-separated list of ${CDX_FIELDS.join(', ')}`);
  return [...new Set(fields)];
}

const MAX_FILTER_LENGTH = 1000;

/**
 * One `filter=` as pywb documents it, `[!][=|~]field:expression`: no modifier, the field contains the
 * expression; `=`, it is the expression; `~`, the regular expression matches at its start (python's re.match);
 * `!` negates. A request's filters must all pass.
 */
export function parseFilter(spec: string): (l: CdxLine) => boolean {
  const m = /^(!?)([=~]?)([A-Za-z]+):([\s\S]*)$/.exec(spec);
  if (!m) throw new UserError(`filter '${spec}' is not [!][=|~]field:expression, e.g. filter=status:404, filter==mime:text/html, filter=!~url:.*\\.php$`);
  if (spec.length > MAX_FILTER_LENGTH) throw new UserError(`filter is longer than ${MAX_FILTER_LENGTH} characters`);
  const [, not, how, name, expr] = m as unknown as [string, string, string, string, string];
  const field = fieldNamed(name, `filter '${spec}'`);
  let test: (v: string) => boolean;
  if (how === '=') test = (v) => v === expr;
  else if (how === '~') {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${expr})`, 's');
    } catch (e) {
      throw new UserError(`filter '${spec}': '${expr}' is not a regular expression (${(e as Error).message})`);
    }
    test = (v) => re.test(v);
  } else test = (v) => v.includes(expr);
  return not ? (l) => !test(l[field]) : (l) => test(l[field]);
}

/** Lines in the order `sort` asks: as indexed, newest first (`reverse`), or nearest to `closest` first (the earlier on a tie). */
export function sortLines(lines: CdxLine[], sort: 'reverse' | 'closest' | undefined, closest?: number): CdxLine[] {
  if (sort === 'reverse') return lines.reverse();
  if (sort === 'closest') {
    const dist = (l: CdxLine) => Math.abs(parseTimestamp(l.timestamp)! - closest!);
    return lines.sort((a, b) => dist(a) - dist(b) || (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
  }
  return lines;
}

/** The lines in one output format, with only the `fl` fields when given (the link format has its own). */
export function formatLines(lines: CdxLine[], output: Exclude<CdxOutput, 'link'>, fl?: CdxField[]): string {
  if (output === 'text') return lines.map((l) => (fl ?? CDX_FIELDS).map((f) => l[f]).join(' ') + '\n').join('');
  if (output === 'json') return lines.map((l) => JSON.stringify(fl ? Object.fromEntries(fl.map((f) => [f, l[f]])) : l) + '\n').join('');
  if (!fl) return cdxjText(lines);
  // CDXJ keeps its two leading columns when asked for, and the other fields as its JSON block.
  return lines.map((l) => {
    const head = fl.filter((f) => f === 'urlkey' || f === 'timestamp').map((f) => l[f]);
    const rest = fl.filter((f) => f !== 'urlkey' && f !== 'timestamp');
    return [...head, ...(rest.length ? [JSON.stringify(Object.fromEntries(rest.map((f) => [f, l[f]])))] : [])].join(' ') + '\n';
  }).join('');
}

/** Lines per page when the request gives no `limit` (the Wayback CDX server's default), and the most a page holds. */
export const DEFAULT_LIMIT = 10_000;
export const MAX_LIMIT = 100_000;
