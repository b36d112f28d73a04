import fs from 'node:fs';
import { WARCParser, type StatusAndHeaders } from 'warcio';
import type { FetchResponse, Header } from '../fetch/types.ts';
import { capture, type CaptureContext } from './capture.ts';
import { ArchivedContexts, CONTEXT_LIMITS } from './contexts.ts';
import { hostOf, normalizeUrl } from '../frontier/normalize.ts';
import { openStore, type MetadataStore } from '../store/index.ts';
import { parseContentType } from '../util/content-type.ts';
import { recoverOpenFiles, WarcWriter } from '../archive/warc-writer.ts';
import { parseHttpResponse, readRecord } from '../archive/warc-reader.ts';

export interface ImportSummary {
  files: number;
  /** Response and revisit records read, and those archived as a version (new, changed or unchanged). */
  responses: number;
  revisits: number;
  imported: number;
  new: number;
  changed: number;
  unchanged: number;
  errors: number;
  skipped: {
    /** Not newer than the archive's last capture of the URL: versions are kept in time order (give files oldest first). */
    notNewer: number;
    /** No http(s) target URI or no HTTP response in the record. */
    notHttp: number;
    /** A revisit whose payload (by digest) is not among the responses imported before it in this run. */
    revisitWithoutPayload: number;
  };
  /** Files that could not be read to the end, and why (what was read before is kept). */
  unreadable: string[];
  seconds: number;
}

/** Headers that describe the transfer, not the content: the imported body is stored decoded. */
const TRANSFER_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

/**
 * Imports the HTTP responses of WARC files made elsewhere (Heritrix, wget, Browsertrix, another
 * datamonitor) into an archive, through the same capture step as a crawl: each response is extracted,
 * its graph canonicalised, compared with the URL's last version, and archived with its conversion
 * record, so `query`, `diff`, `serve` and `verify` see it like a crawled one. Bodies are stored
 * decoded (transfer and content encodings removed, the headers that described them dropped), so the
 * new records' payload digests are of the decoded bytes. A revisit record (a deduplicating crawler's
 * "same payload as before") is archived with the payload of the response it names by digest, when
 * that response came earlier in the same import. A URL's versions are kept in time order:
 * a response not newer than the archive's last capture of its URL is skipped (give the files oldest
 * first). Nothing is fetched: JSON-LD remote contexts are taken from the imported files themselves (a
 * first pass collects every JSON response they hold, see `ArchivedContexts`), so a crawl's own WARC files,
 * which archive each context it fetched, import to the same triples.
 */
export async function importWarcs(files: string[], o: { dataDir: string; store?: MetadataStore; onProgress?: (s: ImportSummary) => void }): Promise<ImportSummary> {
  const t0 = Date.now();
  const s: ImportSummary = { files: 0, responses: 0, revisits: 0, imported: 0, new: 0, changed: 0, unchanged: 0, errors: 0, skipped: { notNewer: 0, notHttp: 0, revisitWithoutPayload: 0 }, unreadable: [], seconds: 0 };
  fs.mkdirSync(o.dataDir, { recursive: true });
  const store = o.store ?? (await openStore(o.dataDir));
  await store.init();
  await recoverOpenFiles(o.dataDir, (rel) => store.warcEnd(rel));
  const contexts = await archivedContexts(files);
  const warc = new WarcWriter(o.dataDir);
  const ctx: CaptureContext = { store, warc, mime: [], maxQuads: 5_000_000, loadDocument: contexts.load };
  // Where this run archived each source payload (by the source record's payload digest), for the
  // revisit records that deduplicating crawlers (Heritrix) write instead of repeating a payload.
  const payloads = new Map<string, { url: string; time: number }>();
  const archive = async (url: string, time: number, http: StatusAndHeaders, body: Buffer): Promise<boolean> => {
    const prev = await store.getDocument(url);
    if (prev?.lastFetched !== undefined && prev.lastFetched >= time) {
      s.skipped.notNewer++;
      return false;
    }
    if (!prev) await store.addDocuments([{ url, host: hostOf(url), depth: 0 }]);
    const doc = await capture(url, { response: responseOf(url, time, http, body) }, ctx, prev);
    s.imported++;
    if (doc.change === 'error') s.errors++;
    else s[doc.change]++;
    o.onProgress?.(s);
    return true;
  };
  try {
    for (const file of files) {
      s.files++;
      try {
        for await (const record of new WARCParser(fs.createReadStream(file))) {
          const type = record.warcType;
          if (type !== 'response' && type !== 'revisit') continue;
          s[type === 'response' ? 'responses' : 'revisits']++;
          const url = normalizeUrl(record.warcTargetURI ?? '');
          const http = record.httpHeaders;
          const time = Date.parse(record.warcDate ?? '');
          if (!url || !http || !Number.isFinite(time)) {
            s.skipped.notHttp++;
            continue;
          }
          const digest = record.warcPayloadDigest ?? undefined;
          if (type === 'response') {
            const body = Buffer.from(await record.readFully(true));
            if ((await archive(url, time, http, body)) && digest && !payloads.has(digest)) payloads.set(digest, { url, time });
            continue;
          }
          const original = digest ? payloads.get(digest) : undefined;
          const body = original && (await archivedBody(o.dataDir, store, original.url, original.time));
          if (!body) {
            s.skipped.revisitWithoutPayload++;
            continue;
          }
          await archive(url, time, http, body);
        }
      } catch (e) {
        s.unreadable.push(`${file}: ${(e as Error).message}`);
      }
    }
  } finally {
    await warc.close();
    await store.flush();
    if (!o.store) await store.close();
  }
  s.seconds = (Date.now() - t0) / 1000;
  return s;
}

/**
 * The JSON responses of the files, as contexts for the documents of the import. A file that cannot be read
 * to the end gives what was read; the main pass reports it.
 */
async function archivedContexts(files: string[]): Promise<ArchivedContexts> {
  const contexts = new ArchivedContexts();
  for (const file of files) {
    try {
      for await (const record of new WARCParser(fs.createReadStream(file))) {
        if (record.warcType !== 'response' || !record.httpHeaders) continue;
        const url = normalizeUrl(record.warcTargetURI ?? '');
        if (!url) continue;
        const status = Number(record.httpHeaders.statusCode);
        contexts.offerRedirect(url, status, record.httpHeaders.headers.get('location') ?? undefined);
        const { mediaType } = parseContentType(record.httpHeaders.headers.get('content-type') ?? undefined);
        // A record too big to hold a context is not read into memory here.
        if (/json/.test(mediaType) && record.warcContentLength <= CONTEXT_LIMITS.maxBytes + 64 * 1024) contexts.offer(url, status, mediaType, Buffer.from(await record.readFully(true)));
      }
    } catch {
      // reported by the main pass
    }
  }
  return contexts;
}

/** The decoded body this archive holds for `url` captured at `time` (a response record: imports store bodies decoded). */
async function archivedBody(dataDir: string, store: MetadataStore, url: string, time: number): Promise<Buffer | undefined> {
  const e = (await store.versions(url)).find((v) => v.time === time && v.url === url);
  if (!e?.warcFile || e.warcOffset === undefined || e.warcLength === undefined) return undefined;
  const rec = readRecord(dataDir, e.warcFile, e.warcOffset, e.warcLength);
  return rec.headers.get('warc-type') === 'response' ? parseHttpResponse(rec.block).body : undefined;
}

/** What the capture step needs of a response, from a WARC record's HTTP head and its decoded body. */
function responseOf(url: string, time: number, http: StatusAndHeaders, body: Buffer): FetchResponse {
  const headers: Header[] = [];
  for (const [name, value] of http.headers as Iterable<[string, string]>) if (!TRANSFER_HEADERS.has(name.toLowerCase())) headers.push([name, value]);
  const contentType = headers.find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const status = Number(http.statusCode);
  return {
    requestUrl: url, finalUrl: url, hops: [], status, statusText: http.statusText ?? '', httpVersion: (http.protocol ?? 'HTTP/1.1').replace(/^HTTP\//, ''),
    requestHeaders: [], headers, rawBody: body, body, truncated: false,
    ...parseContentType(contentType),
    startedAt: new Date(time), durationMs: 0, notModified: status === 304,
  };
}
