/**
 * `/cdx` answered from the store a page at a time: the match becomes URL ranges on the store's URL index
 * (exact, prefix, host), or, for `domain`, one such host query per SURT host found in the log; the limit is
 * applied in SQL, and a resume key (the last capture's URL, time and log id) continues where a page ended.
 */
import type { CaptureCursor, CaptureQuery, ReadModel } from '../store/types.ts';
import { UserError } from '../util/errors.ts';
import { cdxLine, hostKey, matcher, queryTarget, sortCdxLines, surt, timestampBounds, type CdxLine, type CdxQuery } from './cdx.ts';
import { timestampOf } from './mementos.ts';

export interface CdxPageQuery extends CdxQuery {
  limit: number;
  /** From a previous page's `resumeKey`. */
  resumeKey?: string;
}

export interface CdxPage {
  lines: CdxLine[];
  /** Set when more lines match than `limit`: pass it as `resumeKey` for the next page. */
  resumeKey?: string;
}

/** The URLs of one SURT host that a query reads: exact URLs or URL prefixes, all with the same host key. */
interface HostRanges {
  hostKey: string;
  urls?: string[];
  prefixes?: string[];
}

export function encodeResumeKey(c: CaptureCursor): string {
  return Buffer.from(JSON.stringify([c.url, c.time, c.id])).toString('base64url');
}

export function decodeResumeKey(key: string): CaptureCursor {
  try {
    const [url, time, id] = JSON.parse(Buffer.from(key, 'base64url').toString('utf8')) as unknown[];
    if (typeof url === 'string' && typeof time === 'number' && typeof id === 'number') return { url, time, id };
  } catch {
    // said below
  }
  throw new UserError(`resumeKey '${key}' is not one this server gave: pass the key a previous /cdx page ended with`);
}

const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The first ms whose 14-digit timestamp is >= lo, or the last whose timestamp is <= hi (timestamps grow with time). */
function boundaryMs(ts: string, side: 'from' | 'to'): number {
  let a = 0;
  let b = LAST_MS;
  if (side === 'from') {
    if (timestampOf(b) < ts) return LAST_MS + 1;
    while (a < b) {
      const m = Math.floor((a + b) / 2);
      if (timestampOf(m) >= ts) b = m;
      else a = m + 1;
    }
    return a;
  }
  if (timestampOf(a) > ts) return -1;
  while (a < b) {
    const m = Math.ceil((a + b) / 2);
    if (timestampOf(m) <= ts) a = m;
    else b = m - 1;
  }
  return a;
}

/** Where a URL's SURT host can be: both schemes, the host with and without `www.` (surt drops it), the same port. */
function originsOf(u: URL): string[] {
  const bare = u.hostname.replace(/^www\d*\./, '');
  const hosts = [...new Set([bare, `www.${bare}`, u.hostname])];
  const port = u.port ? `:${u.port}` : '';
  return ['http', 'https'].flatMap((scheme) => hosts.map((h) => `${scheme}://${h}${port}`));
}

async function hostRanges(store: ReadModel, q: CdxQuery): Promise<HostRanges[]> {
  const { url, type } = queryTarget(q);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const key = hostKey(surt(url));
  const rest = u.pathname + u.search;
  if (type === 'exact') return [{ hostKey: key, urls: originsOf(u).map((o) => o + rest) }];
  if (type === 'prefix') return [{ hostKey: key, prefixes: originsOf(u).map((o) => o + rest) }];
  if (type === 'host') return [{ hostKey: key, prefixes: originsOf(u).map((o) => `${o}/`) }];
  // domain: no range covers a host's subdomains, so the hosts come from a scan of the url index, each read as a host.
  const bare = key.replace(/:\d+$/, '');
  const byHost = new Map<string, string[]>();
  for (const origin of await store.logOrigins()) {
    const hk = hostKey(surt(`${origin}/`));
    const h = hk.replace(/:\d+$/, '');
    if (h !== bare && !h.startsWith(`${bare},`)) continue;
    byHost.set(hk, [...(byHost.get(hk) ?? []), `${origin}/`]);
  }
  // SURT keys sort by host key up to its `)` first.
  return [...byHost].map(([hostKey, prefixes]) => ({ hostKey, prefixes })).sort((a, b) => (a.hostKey + ')' < b.hostKey + ')' ? -1 : 1));
}

/** Rows read from the store at a time while a filter drops some of them (one page's worth when none does). */
const MIN_BATCH = 256;

/**
 * The most captures read from the store at once, and the most lines a streamed page holds at once: a page
 * of 100,000 lines used to hold its 100,000 log entries (with their headers) and then the whole response
 * text, so a server's memory grew with the page asked for (bench/SCALE.md: 2.05x RSS from 10 k to 100 k
 * documents for the CDX and dashboard reads; test/server/cdx-bounded.test.ts runs them with a capped heap).
 */
export const CDX_CHUNK = 1000;

/** A kept line and where its capture is in store order (what a resume key names). */
interface Kept {
  line: CdxLine;
  cursor: CaptureCursor;
}

/**
 * The captures that match and pass `keep`, from the query's start (its resume key) on, in store order, a
 * batch of at most CDX_CHUNK at a time; `wanted()` says how many more the caller still takes (a small page
 * reads a small batch). Only the lines and their cursors are held, never the log entries.
 */
async function* keptCaptures(store: ReadModel, q: CdxPageQuery, keep: (l: CdxLine) => boolean, wanted: () => number): AsyncGenerator<Kept[]> {
  const { lo, hi } = timestampBounds(q);
  const base: Omit<CaptureQuery, 'limit'> = {
    fromTime: lo ? boundaryMs(lo, 'from') : undefined,
    toTime: q.to ? boundaryMs(hi, 'to') : undefined,
  };
  const cursor = q.resumeKey ? decodeResumeKey(q.resumeKey) : undefined;
  const cursorHost = cursor && hostKey(surt(cursor.url)) + ')';
  const match = matcher(q);
  for (const r of await hostRanges(store, q)) {
    if (cursorHost && r.hostKey + ')' < cursorHost) continue;
    let after = cursorHost && r.hostKey + ')' === cursorHost ? cursor : undefined;
    for (;;) {
      const batch = Math.min(CDX_CHUNK, Math.max(wanted(), MIN_BATCH));
      const rows = await store.captures({ ...base, urls: r.urls, prefixes: r.prefixes, after, limit: batch });
      const out: Kept[] = [];
      for (const { entry, lastGoodChecksum } of rows) {
        const line = cdxLine(entry, entry.status === 304 || (entry.checksum !== undefined && lastGoodChecksum === entry.checksum));
        if (match(line.urlkey) && keep(line)) out.push({ line, cursor: { url: entry.url, time: entry.time, id: entry.id! } });
      }
      const last = rows.at(-1)?.entry;
      if (out.length) yield out;
      if (rows.length < batch || !last) break;
      after = { url: last.url, time: last.time, id: last.id! };
    }
  }
}

/**
 * One page of `/cdx`: at most `limit` captures in CDXJ order (SURT key, then timestamp) that pass `keep`
 * (the request's filters) and, when more may follow, the key to resume from. Captures are read in store order
 * and filtered before they are counted, so a page holds `limit` kept lines whenever that many exist and the
 * resume key is that of the last kept capture. A page that holds every match is the same as `cdxLines` over the
 * whole log, apart from URLs whose letter case differs from the query's in an exact or prefix match (ranges
 * compare URLs as written; SURT keys are lower-cased) and URLs of `www2.`-style hosts other than the one asked for.
 * It holds the page's lines: for pages of any size, `cdxPageStream`.
 */
export async function cdxPage(store: ReadModel, q: CdxPageQuery, keep: (l: CdxLine) => boolean = () => true): Promise<CdxPage> {
  const kept: Kept[] = [];
  // One more than asked for tells whether another page follows.
  const wanted = q.limit + 1;
  for await (const batch of keptCaptures(store, q, keep, () => wanted - kept.length)) {
    kept.push(...batch.slice(0, wanted - kept.length));
    if (kept.length >= wanted) break;
  }
  const page = kept.slice(0, q.limit);
  const last = page.at(-1)?.cursor;
  return { lines: sortCdxLines(page.map((k) => k.line)), resumeKey: kept.length > q.limit && last ? encodeResumeKey(last) : undefined };
}

export interface CdxPageStream {
  /** As `cdxPage`'s, known before the first line (it goes out as a header). */
  resumeKey?: string;
  /** The page's lines, a chunk of at most CDX_CHUNK at a time, each in CDXJ order. */
  chunks: AsyncIterable<CdxLine[]>;
}

/**
 * The page `cdxPage` gives, in bounded memory whatever `limit` is: a page that fits in one chunk is read once
 * and held; a longer one is read twice, first only to find where it ends (and so its resume key, which the
 * response's header carries before the body), then chunk by chunk to the same end. The chunks are each in CDXJ
 * order and follow one another in store order, which is CDXJ order except within a host whose URLs mix http and
 * https, `www.` and none, or letter case: there the order holds within each chunk of CDX_CHUNK lines, as it held
 * within each page before (a page was never sorted against the next one either).
 */
export async function cdxPageStream(store: ReadModel, q: CdxPageQuery, keep: (l: CdxLine) => boolean = () => true): Promise<CdxPageStream> {
  if (q.limit <= CDX_CHUNK) {
    const page = await cdxPage(store, q, keep);
    return { resumeKey: page.resumeKey, chunks: (async function* () { if (page.lines.length) yield page.lines; })() };
  }
  // Pass 1: count to limit + 1, keeping only the cursor of the page's last line.
  let n = 0;
  let end: CaptureCursor | undefined;
  let more = false;
  for await (const batch of keptCaptures(store, q, keep, () => q.limit + 1 - n)) {
    for (const k of batch) {
      if (n === q.limit) {
        more = true;
        break;
      }
      n++;
      end = k.cursor;
    }
    if (more) break;
  }
  const stop = end;
  // Pass 2: the same walk to the same end (rows a crawl appends meanwhile may come in before it; never more than limit).
  async function* chunks(): AsyncGenerator<CdxLine[]> {
    let sent = 0;
    for await (const batch of keptCaptures(store, q, keep, () => Math.min(CDX_CHUNK, q.limit - sent))) {
      const out: CdxLine[] = [];
      let done = false;
      for (const k of batch) {
        out.push(k.line);
        sent++;
        if (sent >= q.limit || (stop && k.cursor.id === stop.id && k.cursor.url === stop.url)) {
          done = true;
          break;
        }
      }
      if (out.length) yield sortCdxLines(out);
      if (done) return;
    }
  }
  return { resumeKey: more && stop ? encodeResumeKey(stop) : undefined, chunks: chunks() };
}

/**
 * Every capture that matches and passes `keep`, read a page at a time, for the orders that need the whole
 * answer (reverse, closest, the last N); refused with a UserError past `max` lines, which would not fit in memory.
 */
export async function cdxAll(store: ReadModel, q: CdxQuery, keep: (l: CdxLine) => boolean, max: number): Promise<CdxLine[]> {
  const all: CdxLine[] = [];
  let resumeKey: string | undefined;
  do {
    const page = await cdxPage(store, { ...q, limit: Math.min(max + 1 - all.length, 10_000), resumeKey }, keep);
    all.push(...page.lines);
    resumeKey = page.resumeKey;
    if (all.length > max) {
      throw new UserError(`more than ${max} captures match: sort=reverse, sort=closest and a negative limit read the whole answer; narrow it with from=/to=, an exact matchType or filter=`);
    }
  } while (resumeKey);
  return sortCdxLines(all);
}
