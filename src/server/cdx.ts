/**
 * A CDXJ index of the archive in the pywb style: one line per capture,
 * `SURT timestamp {"url","mime","status","digest","length","offset","filename"}`, sorted by key then time,
 * with pywb's query parameters (url, matchType exact|prefix|host|domain, from, to, output cdxj|json|link) and the
 * Wayback CDX server's paging (limit, showResumeKey, resumeKey).
 */
import type { FastifyInstance } from 'fastify';
import type { CrawlLogEntry } from '../store/types.ts';
import { formatLinkFormat } from '../federation/link-format.ts';
import { baseUrl, type ServerContext } from './context.ts';
import { httpDate, parseTimestamp, timestampOf } from './mementos.ts';
import { cdxPage } from './cdx-query.ts';

/**
 * Sort-friendly URI Reordering Transform, as python's `surt` (pywb's) writes it: scheme and `www.` dropped,
 * host labels reversed and comma-joined, a non-default port kept, `)` before the path, query arguments
 * sorted, everything lower case.
 */
export function surt(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.toLowerCase();
  }
  const host = u.hostname.toLowerCase().replace(/^www\d*\./, '').replace(/^\[|\]$/g, '');
  const labels = host.split('.').filter(Boolean).reverse().join(',');
  const port = u.port ? `:${u.port}` : '';
  const query = u.search.length > 1 ? '?' + u.search.slice(1).split('&').sort().join('&') : '';
  return `${labels}${port})${u.pathname}${query}`.toLowerCase();
}

export type MatchType = 'exact' | 'prefix' | 'host' | 'domain';
export type CdxOutput = 'cdxj' | 'json' | 'link';

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

/** Lines per page when the request gives no `limit` (the Wayback CDX server's default), and the most a page holds. */
export const DEFAULT_LIMIT = 10_000;
export const MAX_LIMIT = 100_000;

const MATCH_TYPES: MatchType[] = ['exact', 'prefix', 'host', 'domain'];
const OUTPUTS: CdxOutput[] = ['cdxj', 'json', 'link'];

export function registerCdxRoute(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/cdx', async (req, reply) => {
    const p = req.query as Record<string, string | undefined>;
    const bad = (msg: string) => reply.code(400).type('text/plain').send(msg + '\n');
    if (!p.url) return bad('give url=, e.g. /cdx?url=http://example.org/doc&matchType=exact&output=cdxj');
    const matchType = (p.matchType ?? p.matchtype) as MatchType | undefined;
    if (matchType && !MATCH_TYPES.includes(matchType)) return bad(`matchType '${matchType}' is not one of ${MATCH_TYPES.join(', ')}`);
    const output = (p.output ?? 'cdxj') as CdxOutput;
    if (!OUTPUTS.includes(output)) return bad(`output '${output}' is not one of ${OUTPUTS.join(', ')}`);
    for (const [name, v] of [['from', p.from], ['to', p.to]] as const) if (v !== undefined && !/^\d{1,14}$/.test(v)) return bad(`${name} '${v}' is not a timestamp prefix (1 to 14 digits, yyyyMMddHHmmss)`);
    const limit = p.limit === undefined ? DEFAULT_LIMIT : Number(p.limit);
    if (!(Number.isInteger(limit) && limit >= 0)) return bad(`limit '${p.limit}' is not a whole number`);
    // A page at a time, limited in SQL: the rest of a longer answer is one resumeKey away.
    const { lines, resumeKey } = await cdxPage(ctx.store, { url: p.url, matchType, from: p.from, to: p.to, limit: Math.min(limit, MAX_LIMIT), resumeKey: p.resumeKey || undefined });
    if (resumeKey) reply.header('x-resume-key', resumeKey);
    const showKey = resumeKey && p.showResumeKey === 'true';
    // The resume key after an empty line, as the Wayback CDX server prints it with showResumeKey=true.
    if (output === 'json') return reply.type('application/x-ndjson').send(lines.map((l) => JSON.stringify(l) + '\n').join('') + (showKey ? `\n${JSON.stringify({ resumeKey })}\n` : ''));
    if (output === 'link') {
      const base = baseUrl(req);
      const links = lines.map((l) => ({ uri: `${base}/memento/${l.timestamp}/${l.url}`, params: { rel: 'memento', datetime: httpDate(parseTimestamp(l.timestamp)!) } }));
      return reply.type('application/link-format').send(links.length ? formatLinkFormat(links) : '');
    }
    return reply.type('text/x-cdxj').send(cdxjText(lines) + (showKey ? `\n${resumeKey}\n` : ''));
  });
}
