/**
 * URL normalisation for the seen test: two spellings of one URL must meet, while triples keep the
 * exact IRIs. WHATWG URL already lower-cases scheme and host, drops default ports and resolves dot
 * segments; we add percent-encoding case, unreserved-character decoding and fragment removal.
 */

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
  let u: URL;
  try {
    u = base === undefined ? new URL(input) : new URL(input, base);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (!u.hostname) return undefined;
  // URL setters re-parse the whole URL: only call them when something changes (most links need none).
  if (input.includes('#')) u.hash = ''; // an empty fragment too: 'http://h/p#' has hash '' but keeps its '#'
  if (u.pathname.includes('%')) u.pathname = normalisePercent(u.pathname);
  if (u.search.includes('%')) u.search = normalisePercent(u.search);
  if (u.hostname.endsWith('.')) u.hostname = u.hostname.slice(0, -1);
  return u.href;
}

/** The host part used for politeness (hostname plus a non-default port). */
export function hostOf(url: string): string {
  const start = url.indexOf('//') + 2;
  let end = url.indexOf('/', start);
  if (end < 0) end = url.length;
  const authority = url.slice(start, end);
  const at = authority.lastIndexOf('@');
  return at >= 0 ? authority.slice(at + 1) : authority;
}

/**
 * The origin of a URL (RFC 6454: scheme, host, port), the unit of robots.txt (RFC 9309), back-off and
 * failure counts: trouble at https://h/ says nothing about http://h/.
 */
export function originOf(url: string): string {
  const start = url.indexOf('//') + 2;
  return url.slice(0, start) + hostOf(url);
}
