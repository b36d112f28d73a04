/**
 * The mementos of an archived URL (RFC 7089): each capture in the crawl log with a WARC record, named
 * `/memento/<timestamp>/<url>`, and the bytes and RDF each one stands for.
 */
import { readRecord, type HttpMessage } from '../archive/warc-reader.ts';
import { timestampOf } from '../archive/timestamp.ts';
import { httpPayload } from '../archive/http-payload.ts';
import { normalizeUrl } from '../frontier/normalize.ts';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import type { Link } from '../util/link-format.ts';

export interface Memento {
  entry: CrawlLogEntry;
  /** 14 digits (UTC, to the second); 17 (with milliseconds) when two captures of the URL share a second. */
  timestamp: string;
}

export { timestampOf };

/** A Wayback timestamp of 4 to 17 digits as epoch ms (missing parts are the start of the period). */
export function parseTimestamp(ts: string): number | undefined {
  if (!/^\d{4,17}$/.test(ts)) return undefined;
  const d = ts.padEnd(17, '0');
  const t = Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1 || 0, +d.slice(6, 8) || 1, +d.slice(8, 10), +d.slice(10, 12), +d.slice(12, 14), +d.slice(14, 17));
  return Number.isNaN(t) ? undefined : t;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const RFC1123 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * An Accept-Datetime value as epoch ms, or what is wrong with it. RFC 7089 allows only the RFC 1123 form
 * in GMT (`Thu, 01 Jan 2025 00:00:00 GMT`): no other date format, time zone or offset, and a real date
 * (its weekday included), since a value read loosely would send the client to a memento it did not ask for.
 */
export function parseAcceptDatetime(value: string | string[]): number | string {
  const shown = Array.isArray(value) ? value.join(', ') : value;
  const example = `e.g. Accept-Datetime: ${httpDate(Date.UTC(2025, 0, 2, 3, 4, 5))}`;
  if (Array.isArray(value)) return `give one Accept-Datetime, not ${value.length}: ${example}`;
  const m = RFC1123.exec(value.trim());
  if (!m) return `Accept-Datetime '${shown}' is not an RFC 1123 date in GMT as RFC 7089 requires (${example})`;
  const [, day, dd, mon, yyyy, hh, mi, ss] = m as unknown as string[];
  const t = Date.UTC(Number(yyyy), MONTHS.indexOf(mon!), Number(dd), Number(hh), Number(mi), Number(ss));
  const d = new Date(t);
  if (d.getUTCFullYear() !== Number(yyyy) || d.getUTCDate() !== Number(dd) || d.getUTCHours() !== Number(hh) || d.getUTCMinutes() !== Number(mi) || d.getUTCSeconds() !== Number(ss)) {
    return `Accept-Datetime '${shown}' is no real date and time (${example})`;
  }
  if (DAYS[d.getUTCDay()] !== day) return `Accept-Datetime '${shown}': ${dd} ${mon} ${yyyy} is a ${DAYS[d.getUTCDay()]}, not a ${day} (${example})`;
  return t;
}

export function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/** The normalised form of a URL asked about, as the crawl log keys it; undefined when it is not http(s). */
export function archivedUrlKey(url: string): string | undefined {
  return normalizeUrl(url);
}

/** Every memento of `url`, oldest first; an empty list when the archive never captured it. */
export async function mementosOf(store: CrawlLog, url: string): Promise<Memento[]> {
  // The other representations `crawl --variants` archived under the URL are in its CDX, not its mementos:
  // a TimeGate gives the document as the crawl took it, not whichever serialisation was fetched nearest in time.
  const entries = (await store.versions(url)).filter((e) => e.reason !== 'variant' && e.reason !== 'variant-mismatch');
  const seconds = new Map<string, number>();
  for (const e of entries) seconds.set(timestampOf(e.time), (seconds.get(timestampOf(e.time)) ?? 0) + 1);
  return entries.map((entry) => {
    const ts = timestampOf(entry.time);
    return { entry, timestamp: (seconds.get(ts) ?? 0) > 1 ? timestampOf(entry.time, true) : ts };
  });
}

/** The memento closest to `time` (the earlier one on a tie), as a TimeGate chooses. */
export function closestMemento(list: Memento[], time: number): Memento {
  let best = list[0]!;
  for (const m of list) if (Math.abs(m.entry.time - time) < Math.abs(best.entry.time - time)) best = m;
  return best;
}

export interface MementoUris {
  original: string;
  timegate: string;
  timemap: string;
  timemapJson: string;
  memento(m: Memento): string;
}

export function mementoUris(base: string, original: string): MementoUris {
  return {
    original,
    timegate: `${base}/timegate/${original}`,
    timemap: `${base}/timemap/link/${original}`,
    timemapJson: `${base}/timemap/json/${original}`,
    memento: (m) => `${base}/memento/${m.timestamp}/${original}`,
  };
}

const timemapLink = (u: MementoUris): Link => ({ uri: u.timemap, params: { rel: 'timemap', type: 'application/link-format' } });

/** Link header of a TimeGate answer: the original resource and the TimeMap. */
export function timegateLinks(u: MementoUris): Link[] {
  return [{ uri: u.original, params: { rel: 'original' } }, timemapLink(u)];
}

/**
 * Link header of a memento: original, timegate, timemap, then the mementos oldest first with their
 * relations first/prev/next/last (the memento itself among them); relation types of one URI are merged
 * (`rel="first prev memento"`), as RFC 8288 allows and RFC 7089 shows.
 */
export function mementoLinks(u: MementoUris, list: Memento[], index: number): Link[] {
  const rels = new Map<number, string[]>([[index, []]]); // the memento itself too, as rel="memento"
  const add = (i: number, rel: string) => {
    if (i >= 0 && i < list.length) rels.set(i, [...(rels.get(i) ?? []), rel]);
  };
  add(0, 'first');
  add(index - 1, 'prev');
  add(index + 1, 'next');
  add(list.length - 1, 'last');
  const links: Link[] = [{ uri: u.original, params: { rel: 'original' } }, { uri: u.timegate, params: { rel: 'timegate' } }, timemapLink(u)];
  for (const i of [...rels.keys()].sort((a, b) => a - b)) {
    links.push({ uri: u.memento(list[i]!), params: { rel: [...rels.get(i)!, 'memento'].join(' '), datetime: httpDate(list[i]!.entry.time) } });
  }
  return links;
}

/** TimeMap (application/link-format): original, self, timegate, then every memento oldest first. */
export function timemapLinks(u: MementoUris, list: Memento[]): Link[] {
  const first = list[0]!.entry.time;
  const last = list[list.length - 1]!.entry.time;
  const links: Link[] = [
    { uri: u.original, params: { rel: 'original' } },
    { uri: u.timemap, params: { rel: 'self', type: 'application/link-format', from: httpDate(first), until: httpDate(last) } },
    { uri: u.timegate, params: { rel: 'timegate' } },
  ];
  list.forEach((m, i) => {
    const rel = list.length === 1 ? 'first last memento' : i === 0 ? 'first memento' : i === list.length - 1 ? 'last memento' : 'memento';
    links.push({ uri: u.memento(m), params: { rel, datetime: httpDate(m.entry.time) } });
  });
  return links;
}

/** A Link header value: the link-format serialisation on one line. */
export function linkHeader(links: Link[]): string {
  return links.map((l) => [`<${l.uri}>`, ...Object.entries(l.params).map(([k, v]) => `${k}="${v.replace(/["\\]/g, '\\$&')}"`)].join('; ')).join(', ');
}

/** TimeMap as JSON, in the shape pywb and the federation aggregator use. */
export function timemapJson(u: MementoUris, list: Memento[]) {
  const item = (m: Memento) => ({ datetime: new Date(m.entry.time).toISOString(), uri: u.memento(m), status: m.entry.status, mime: m.entry.mediaType ?? null, digest: m.entry.checksum ?? null });
  return {
    original_uri: u.original,
    timegate_uri: u.timegate,
    timemap_uri: { link_format: u.timemap, json_format: u.timemapJson },
    mementos: { first: item(list[0]!), last: item(list[list.length - 1]!), list: list.map(item) },
  };
}

function record(dataDir: string, e: CrawlLogEntry) {
  return readRecord(dataDir, e.warcFile as string, e.warcOffset as number, e.warcLength as number);
}

/**
 * The HTTP response a memento stands for. A revisit record has no payload: its bytes are those of the
 * latest earlier capture with the same payload digest that is a full response (of the URL the revisit
 * refers to, or of the same URL for a 304).
 */
export async function originalResponse(dataDir: string, store: CrawlLog, list: Memento[], index: number): Promise<HttpMessage> {
  const e = list[index]!.entry;
  // A version read from a stream (crawl --ldes) was fetched as no response of its own: its memento is its graph.
  if (e.warcOffset === undefined && e.rdfOffset !== undefined && e.rdfLength !== undefined) {
    const graph = readRecord(dataDir, e.warcFile as string, e.rdfOffset, e.rdfLength);
    return { status: e.status, statusText: 'OK', headers: [['Content-Type', 'application/n-quads']], body: graph.block };
  }
  const rec = record(dataDir, e);
  // httpPayload: an imported record may hold the body chunked as it was sent; a memento replays the payload.
  if (rec.headers.get('warc-type') !== 'revisit') return httpPayload(rec.block);
  const refersTo = rec.headers.get('warc-refers-to-target-uri');
  const pool = list.slice(0, index).map((m) => m.entry);
  if (refersTo && refersTo !== e.url && refersTo !== e.finalUrl) pool.push(...(await store.versions(refersTo)).filter((c) => c.time <= e.time));
  pool.sort((a, b) => b.time - a.time);
  for (const c of pool) {
    if (c.checksum !== e.checksum) continue;
    const earlier = record(dataDir, c);
    if (earlier.headers.get('warc-type') === 'response') return httpPayload(earlier.block);
  }
  throw new Error(`revisit record of ${e.url} at ${new Date(e.time).toISOString()}: the capture it refers to (${e.checksum}) is not in the archive`);
}

/**
 * The RDF graph of the document at a memento, as the canonical N-Quads of the WARC conversion record of
 * the latest version at or before it whose graph changed; '' after a 404/410 or when no RDF was found.
 */
export function versionNQuads(dataDir: string, list: Memento[], index: number): string | undefined {
  for (let i = index; i >= 0; i--) {
    const e = list[i]!.entry;
    if (e.rdfOffset !== undefined && e.rdfLength !== undefined) return readRecord(dataDir, e.warcFile as string, e.rdfOffset, e.rdfLength).block.toString('utf8');
    if (e.status === 404 || e.status === 410) return '';
  }
  return undefined;
}
