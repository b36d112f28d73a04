/**
 * URL normalisation for the seen test: two spellings of one URL must meet, while triples keep the
 * exact IRIs. WHATWG URL already lower-cases scheme and host, drops default ports and resolves dot
 * segments; we add percent-encoding case, unreserved-character decoding, fragment and user-info
 * removal and, as Heritrix's canonicalisation rules do (StripSessionIDs, StripSessionCFIDs),
 * session-id removal.
 */

/**
 * The longest URL the crawl will queue: 2,083 characters, Internet Explorer's limit and Heritrix's
 * MAX_URL_LENGTH. Longer ones are almost always traps (a query string that grows on every hop).
 */
export const MAX_URL_LENGTH = 2083;

/**
 * Query parameters that carry a session, not a resource: a URL per visitor would make every page
 * new again. Java (jsessionid), PHP (PHPSESSID), ASP (ASPSESSIONIDxxxxxxxx), ColdFusion (CFID,
 * CFTOKEN) and the generic `sessionid`; names compared case-insensitively.
 */
const SESSION_PARAMS = /^(?:jsessionid|phpsessid|sessionid|aspsessionid[a-z]{8}|cfid|cftoken)$/i;
/** `sid` is also an ordinary name (a station, a section): only a long opaque token is a session, as Heritrix requires. */
const SID_PARAM = /^sid=[0-9a-z]{16,}$/i;
/** Cheap test before a query is split: most queries have none of these. */
const MAYBE_SESSION = /sess|sid=|cfid|cftoken/i;
/** Java's path parameter: /shop;jsessionid=0A1B2C?x=1. */
const JSESSIONID_PATH = /;jsessionid=[^/;?#]*/gi;

function isSessionParam(part: string): boolean {
  const eq = part.indexOf('=');
  const name = eq < 0 ? part : part.slice(0, eq);
  return SESSION_PARAMS.test(name) || SID_PARAM.test(part);
}

/** The query without its session-id parameters (the others keep their order and spelling). */
function stripSessionParams(search: string): string {
  const parts = search.slice(1).split('&');
  const kept = parts.filter((part) => !isSessionParam(part));
  if (kept.length === parts.length) return search;
  return kept.length ? `?${kept.join('&')}` : '';
}

/** Too long to queue (see MAX_URL_LENGTH)? */
export function isUrlTooLong(url: string, max = MAX_URL_LENGTH): boolean {
  return url.length > max;
}

const PERCENT = /%([0-9a-fA-F]{2})/g;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

function normalisePercent(part: string): string {
  if (!part.includes('%')) return part;
  return part.replace(PERCENT, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/** Returns the normalised form of an http(s) URL, or undefined when it is not a fetchable URL. */
export function normalizeUrl(input: string, base?: string): string | undefined {
  // The fragment goes before parsing: its first '#' ends any URL (WHATWG URL), and clearing it on the
  // parsed URL (u.hash = '') parses the whole URL again. An empty fragment too: 'http://h/p#' keeps its '#'.
  const hashAt = input.indexOf('#');
  if (hashAt >= 0) input = input.slice(0, hashAt);
  let u: URL;
  try {
    u = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  // URL setters re-parse the whole URL: only call them when something changes (most links need none).
  // User info names a way in, not a resource (RFC 9110 §4.2.4: deprecated in http(s) URIs), and its
  // password must reach no WARC record, log row or summary: dropped, so http://u:pw@h/x is http://h/x.
  if (u.username || u.password) {
    u.username = '';
    u.password = '';
  }
  if (u.pathname.includes(';')) {
    const path = u.pathname.replace(JSESSIONID_PATH, '');
    if (path !== u.pathname) u.pathname = path;
  }
  if (u.pathname.includes('%')) u.pathname = normalisePercent(u.pathname);
  if (u.search && MAYBE_SESSION.test(u.search)) {
    const search = stripSessionParams(u.search);
    if (search !== u.search) u.search = search;
  }
  if (u.search.includes('%')) u.search = normalisePercent(u.search);
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.slice(0, -1);
  return u.href;
}

// Two hosts of a URL, on purpose: `hostOf` keeps the port, `hostnameOf` does not. Both are string
// scans, not `new URL()`, because they run on every extracted link; on a URL from normalizeUrl they
// equal WHATWG URL's `host` and `hostname` (test/frontier/host.test.ts).

/** Where the host starts and the authority ends: after `//` and any user info, before `/`, `?` or `#`. */
function authorityBounds(url: string): [start: number, end: number] {
  const slashes = url.indexOf('//');
  let start = slashes < 0 ? 0 : slashes + 2;
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) { end = i; break; }
  }
  const at = url.lastIndexOf('@', end - 1);
  if (at >= start) start = at + 1;
  return [start, end];
}

/**
 * The host with its port, as a normalized URL writes it (`h`, `h:8080`; a default port is already
 * gone): the key of the store's host rows, the host filters and the per-host crawl statistics,
 * where http://h/ and http://h:8080/ are different servers. Not lower-cased: normalizeUrl has done it.
 */
export function hostOf(url: string): string {
  const [start, end] = authorityBounds(url);
  return url.slice(start, end);
}

/**
 * The host name alone, lower-cased, without user info or port (`[::1]` keeps its brackets); ''
 * when there is none. What partitions the crawl among processes and spaces requests to one
 * machine: h:80 and h:8080 are one machine to be polite to.
 */
export function hostnameOf(url: string): string {
  const [start, end] = authorityBounds(url);
  let hostEnd = end;
  if (url.charCodeAt(start) === 91 /* [ IPv6 */) {
    const close = url.indexOf(']', start);
    if (close >= 0 && close < end) hostEnd = close + 1;
  } else {
    const colon = url.indexOf(':', start);
    if (colon >= 0 && colon < end) hostEnd = colon;
  }
  return url.slice(start, hostEnd).toLowerCase();
}

/**
 * The origin of a URL (RFC 6454: scheme, host, port), the unit of robots.txt (RFC 9309), back-off and
 * failure counts: trouble at https://h/ says nothing about http://h/.
 */
export function originOf(url: string): string {
  const start = url.indexOf('//') + 2;
  return url.slice(0, start) + hostOf(url);
}
