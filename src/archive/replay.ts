import { readRecord } from './warc-reader.ts';
import { httpPayload } from './http-payload.ts';
import { decodeBody } from '../fetch/decode.ts';
import { extract } from '../extract/registry.ts';
import type { ExtractResult } from '../extract/types.ts';
import { parseContentType } from '../util/content-type.ts';
import { headerValue } from '../util/headers.ts';
import type { CrawlLog, CrawlLogEntry } from '../store/types.ts';
import { latestEntries } from './export.ts';

/**
 * Reads archived responses back and extracts them again, as the crawler did when it fetched them:
 * what offline tools (the ordering lab, re-indexing) see of the archive.
 */
export interface ReplayedDocument {
  entry: CrawlLogEntry;
  url: string;
  result: ExtractResult;
}

/** The newest full response (not a revisit) of every document that answered 2xx, read from the log a page at a time. */
export async function latestResponses(store: CrawlLog): Promise<CrawlLogEntry[]> {
  const out: CrawlLogEntry[] = [];
  for await (const e of latestEntries(store, 'response')) out.push(e);
  return out;
}

export async function replayDocument(dataDir: string, entry: CrawlLogEntry): Promise<ReplayedDocument> {
  const rec = readRecord(dataDir, entry.warcFile as string, entry.warcOffset as number, entry.warcLength as number);
  // Dechunked: an imported record may hold the body as it was sent.
  const http = httpPayload(rec.block);
  const decoded = await decodeBody(http.body, headerValue(http.headers, 'content-encoding'), 64 * 1024 * 1024);
  const { charset } = parseContentType(headerValue(http.headers, 'content-type'));
  const headers: Record<string, string> = {};
  for (const [k, v] of http.headers) headers[k.toLowerCase()] = v;
  const url = entry.finalUrl ?? entry.url;
  const result = await extract({ url, mediaType: entry.mediaType ?? '', charset, body: decoded.body, headers }, { maxQuads: 5_000_000 });
  return { entry, url, result };
}
