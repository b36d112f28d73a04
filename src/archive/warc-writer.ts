import fs from 'node:fs';
import { timestampOf } from './timestamp.ts';
import path from 'node:path';
import zlib from 'node:zlib';
import { randomBytes } from 'node:crypto';
import type { FetchResponse } from '../fetch/types.ts';
import { httpHeadText, recordId, serializeRecord, sha1Digest } from './warc-record.ts';


/**
 * Appends exchanges to WARC files laid out as `warc/YYYY/MM/DD/HH/<host>/` (seed 000). Each record
 * is its own gzip member, so any record can be read from its offset alone. A file is written under
 * a `.open` name and renamed when closed; after a crash, `recover` cuts an open file back to the
 * last record the committed crawl log points to, so no reader ever meets half a record.
 */

export interface ArchivedExchange {
  /** Path relative to the data directory, under its final (closed) name. */
  file: string;
  offset: number;
  length: number;
  recordId: string;
  rdfOffset?: number;
  rdfLength?: number;
}

/**
 * An exchange in the flat form its records are built from: a few strings and the body, so what is
 * copied to the writer's thread is flat strings and one buffer, not a FetchResponse's header arrays.
 */
export interface WireExchange {
  url: string;
  time: number;
  /** Request line and headers, ending with the blank line. */
  requestHead: string;
  /** Status line and headers, ending with the blank line. */
  responseHead: string;
  body: Uint8Array;
  truncated: boolean;
  notModified: boolean;
  remoteAddress?: string;
  payloadDigest: string;
  revisitOf?: { uri: string; time: number };
  nquads?: string;
  fetchedFor?: FetchedFor;
}

export function toWire(ex: ExchangeInput, copyBody = false): WireExchange {
  const r = ex.response;
  const u = new URL(r.finalUrl);
  return {
    url: r.finalUrl,
    time: r.startedAt.getTime(),
    // The request as sent: the fetcher's own headers carry Host (a request without one gets it here).
    requestHead: httpHeadText(`GET ${u.pathname}${u.search} HTTP/1.1`, r.requestHeaders.some(([k]) => k.toLowerCase() === 'host') ? r.requestHeaders : [['Host', u.host], ...r.requestHeaders]),
    responseHead: httpHeadText(`HTTP/${r.httpVersion || '1.1'} ${r.status} ${r.statusText}`.trimEnd(), r.headers),
    // A copy owns its memory, so it can be moved to another thread instead of cloned.
    body: copyBody ? new Uint8Array(r.rawBody) : r.rawBody,
    truncated: r.truncated,
    notModified: r.notModified,
    remoteAddress: r.remoteAddress,
    payloadDigest: ex.payloadDigest,
    revisitOf: ex.revisitOf && { uri: ex.revisitOf.uri, time: ex.revisitOf.date.getTime() },
    nquads: ex.nquads,
    fetchedFor: ex.fetchedFor,
  };
}

/** What the pipeline needs of a WARC writer (inline, or on its own thread). */
export interface ArchiveWriter {
  writeExchange(ex: ExchangeInput): Promise<ArchivedExchange>;
  close(): Promise<void>;
}

export interface ExchangeInput {
  response: FetchResponse;
  payloadDigest: string;
  /** The bytes did not change since this earlier capture: write a revisit record instead. */
  revisitOf?: { uri: string; date: Date };
  /** Canonical N-Quads of this version, written as a conversion record. */
  nquads?: string;
  /** A response fetched for a document rather than as one: said in its record (FETCHED_FOR_HEADER). */
  fetchedFor?: FetchedFor;
}

/**
 * What a response fetched for a document rather than as one is: a remote JSON-LD context, a detached
 * proof, another representation of the document (`--variants`). The crawl logs it as such and makes no
 * version of it; the record says so in this header, so that an import or rebuild of the WARC files
 * does the same instead of taking it for a capture of its URL (src/crawler/import-warc.ts).
 */
export type FetchedFor = 'robots' | 'context' | 'proof' | 'variant';
export const FETCHED_FOR_HEADER = 'WARC-Datamonitor-Fetched-For';

interface OpenFile {
  rel: string;
  /** -1 while parked (its descriptor closed to stay under maxOpenFiles; reopened on its host's next record). */
  fd: number;
  size: number;
  /** Serialises appends to one file (and its descriptor's closing and reopening). */
  tail: Promise<unknown>;
  /** The hour directory: a file of an hour past is never written again. */
  hour: string;
}

const REVISIT_IDENTICAL = 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest';
const REVISIT_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

function safeHost(host: string): string {
  return host.replace(/[^A-Za-z0-9.-]/g, '_');
}

/** The fastest deflate level: every page is compressed once, on the crawl's path, and archives trade a little size for it. */
const GZIP = { level: 1, memLevel: 9 };

/** Counts files across every writer in this process, so two writers never pick one name. */
let fileSeq = 0;

export class WarcWriter implements ArchiveWriter {
  /** Files holding a descriptor, least recently used first. */
  private open = new Map<string, OpenFile>();
  /**
   * Files of this hour whose descriptor was closed to stay under maxOpenFiles, still `.open`, appended to
   * again when their host comes back. A crawl of more hosts than that cap visits them in turn: finishing
   * (fsync, rename) the least recently used file instead, as this writer once did, made a new file, an
   * fsync and a warcinfo record for almost every page (9,616 files for 10,000 documents on 100 hosts, and
   * half of the writer thread's time in fsync: bench/SCALE-RUN.md).
   */
  private parked = new Map<string, OpenFile>();
  private hour = '';
  private readonly stamp: string;

  constructor(
    readonly dataDir: string,
    private readonly opts: { maxFileBytes?: number; maxOpenFiles?: number; software?: string } = {},
  ) {
    this.stamp = timestampOf(Date.now());
  }

  private fileFor(date: Date, host: string): OpenFile {
    const hour = path.join('warc', String(date.getUTCFullYear()), pad(date.getUTCMonth() + 1), pad(date.getUTCDate()), pad(date.getUTCHours()));
    const dir = path.join(hour, safeHost(host));
    if (hour !== this.hour) {
      // Time moved on (a crawl's clock does not go back by the hour): the parked files of other hours are done.
      this.hour = hour;
      for (const [k, f] of [...this.parked]) if (f.hour !== hour) this.closeFile(k, f);
    }
    let f = this.open.get(dir) ?? this.parked.get(dir);
    if (f && f.size >= (this.opts.maxFileBytes ?? 1 << 30)) {
      this.closeFile(dir, f);
      f = undefined;
    }
    if (f && this.open.has(dir)) {
      // LRU: re-insert so the least recently used file is first in the map.
      this.open.delete(dir);
      this.open.set(dir, f);
      return f;
    }
    this.makeRoom();
    if (f) {
      const back = f;
      this.parked.delete(dir);
      back.tail = back.tail.finally(() => {
        back.fd = fs.openSync(path.join(this.dataDir, back.rel + '.open'), 'r+');
      });
      this.open.set(dir, back);
      return back;
    }
    fs.mkdirSync(path.join(this.dataDir, dir), { recursive: true });
    const rel = path.join(dir, `datamonitor-${this.stamp}-${process.pid}-${fileSeq++}-${randomBytes(3).toString('hex')}.warc.gz`);
    // 'wx': an archive file is never appended to by a second writer.
    const fd = fs.openSync(path.join(this.dataDir, rel + '.open'), 'wx');
    const info = serializeRecord({
      type: 'warcinfo',
      date: new Date(),
      contentType: 'application/warc-fields',
      block: Buffer.from(`software: ${this.opts.software ?? 'datamonitor'}\r\nformat: WARC File Format 1.1\r\nconformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n`),
    });
    const gz = zlib.gzipSync(info.bytes);
    f = { rel, fd, size: 0, tail: Promise.resolve(), hour };
    appendAt(f, gz);
    this.open.set(dir, f);
    return f;
  }

  /** Below maxOpenFiles: the least recently used file gives up its descriptor (parked; finished if of a past hour). */
  private makeRoom(): void {
    if (this.open.size < (this.opts.maxOpenFiles ?? 64)) return;
    const [oldDir, old] = this.open.entries().next().value as [string, OpenFile];
    if (old.hour !== this.hour) {
      this.closeFile(oldDir, old);
      return;
    }
    this.open.delete(oldDir);
    this.parked.set(oldDir, old);
    old.tail = old.tail.finally(() => {
      fs.closeSync(old.fd);
      old.fd = -1;
    });
  }

  /** Finishes a file: its bytes on disk (fsync), its descriptor closed, its final name. */
  private closeFile(key: string, f: OpenFile): void {
    if (this.open.get(key) === f) this.open.delete(key);
    if (this.parked.get(key) === f) this.parked.delete(key);
    void f.tail.finally(() => {
      const abs = path.join(this.dataDir, f.rel);
      // A parked file is opened again for its fsync: fsync writes out the file's pages, whichever descriptor wrote them.
      const fd = f.fd >= 0 ? f.fd : fs.openSync(abs + '.open', 'r+');
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      f.fd = -1;
      fs.renameSync(abs + '.open', abs);
    });
  }

  writeExchange(ex: ExchangeInput): Promise<ArchivedExchange> {
    return this.writeWire(toWire(ex));
  }

  async writeWire(w: WireExchange): Promise<ArchivedExchange> {
    const date = new Date(w.time);
    const responseId = recordId();
    const request = serializeRecord({
      type: 'request',
      date,
      targetUri: w.url,
      contentType: 'application/http;msgtype=request',
      headers: [['WARC-Concurrent-To', responseId]],
      block: Buffer.from(w.requestHead, 'latin1'),
    });
    const head = Buffer.from(w.responseHead, 'latin1');
    const common: [string, string][] = [['WARC-Payload-Digest', w.payloadDigest]];
    if (w.remoteAddress) common.push(['WARC-IP-Address', w.remoteAddress]);
    if (w.fetchedFor) common.push([FETCHED_FOR_HEADER, w.fetchedFor]);
    let main;
    if (w.notModified || w.revisitOf) {
      const headers: [string, string][] = [...common, ['WARC-Profile', w.notModified ? REVISIT_NOT_MODIFIED : REVISIT_IDENTICAL]];
      if (w.revisitOf) headers.push(['WARC-Refers-To-Target-URI', w.revisitOf.uri], ['WARC-Refers-To-Date', new Date(w.revisitOf.time).toISOString()]);
      main = serializeRecord({ type: 'revisit', id: responseId, date, targetUri: w.url, contentType: 'application/http;msgtype=response', headers, block: head });
    } else {
      const headers = w.truncated ? [...common, ['WARC-Truncated', 'length'] as [string, string]] : common;
      main = serializeRecord({ type: 'response', id: responseId, date, targetUri: w.url, contentType: 'application/http;msgtype=response', headers, block: Buffer.concat([head, w.body]) });
    }
    const conversion = w.nquads === undefined ? undefined : serializeRecord({
      type: 'conversion',
      date,
      targetUri: w.url,
      contentType: 'application/n-quads',
      headers: [['WARC-Refers-To', responseId]],
      block: Buffer.from(w.nquads, 'utf8'),
    });
    // Synchronous gzip: a record is a few kilobytes, too little work to be worth zlib's thread-pool
    // set-up and hand-over, and a threaded crawl already runs this writer off its main thread.
    const gReq = zlib.gzipSync(request.bytes, GZIP);
    const gMain = zlib.gzipSync(main.bytes, GZIP);
    const gConv = conversion ? zlib.gzipSync(conversion.bytes, GZIP) : undefined;
    const f = this.fileFor(date, new URL(w.url).host);
    const write = f.tail.then(() => {
      const offset = f.size + gReq.length;
      appendAt(f, gConv ? Buffer.concat([gReq, gMain, gConv]) : Buffer.concat([gReq, gMain]));
      const out: ArchivedExchange = { file: f.rel, offset, length: gMain.length, recordId: responseId };
      if (gConv) {
        out.rdfOffset = offset + gMain.length;
        out.rdfLength = gConv.length;
      }
      return out;
    });
    f.tail = write.catch(() => undefined);
    return write;
  }

  async close(): Promise<void> {
    const files = [...this.open.entries(), ...this.parked.entries()];
    for (const [k, f] of files) this.closeFile(k, f);
    await Promise.all(files.map(([, f]) => f.tail));
    // closeFile's finally runs after tail; wait one more turn for the renames.
    await new Promise((r) => setImmediate(r));
  }
}

/** Files left `.open` by a crash: cut each back to the end of its last logged record, then close it. */
/**
 * Appends whole records at the file's known end, or nothing: a write cut short (a full disk writes
 * part of a buffer, then fails) is cut off again, so the next record starts where this one would have
 * and every offset the log holds stays a record's start.
 */
function appendAt(f: OpenFile, buf: Buffer): void {
  let done = 0;
  try {
    while (done < buf.length) {
      const n = fs.writeSync(f.fd, buf, done, buf.length - done, f.size + done);
      if (n <= 0) throw Object.assign(new Error(`no progress writing ${f.rel}`), { code: 'EIO' });
      done += n;
    }
  } catch (e) {
    try {
      fs.ftruncateSync(f.fd, f.size);
    } catch {
      // the file is cut at the committed log's end on the next start (recoverOpenFiles)
    }
    throw e;
  }
  f.size += buf.length;
}

export async function recoverOpenFiles(dataDir: string, warcEnds: (rels: string[]) => Promise<Map<string, number>>): Promise<{ repaired: string[]; removed: string[] }> {
  const repaired: string[] = [];
  const removed: string[] = [];
  const root = path.join(dataDir, 'warc');
  if (!fs.existsSync(root)) return { repaired, removed };
  const open = (fs.readdirSync(root, { recursive: true }) as string[]).filter((e) => e.endsWith('.warc.gz.open')).map((e) => path.join('warc', e.slice(0, -'.open'.length)));
  // A writer per host keeps as many files open: their ends in one pass over the log.
  const ends = open.length > 0 ? await warcEnds(open) : new Map<string, number>();
  for (const rel of open) {
    const abs = path.join(dataDir, rel);
    const end = ends.get(rel) ?? 0;
    if (end === 0) {
      fs.rmSync(abs + '.open');
      removed.push(rel);
      continue;
    }
    fs.truncateSync(abs + '.open', end);
    fs.renameSync(abs + '.open', abs);
    repaired.push(rel);
  }
  return { repaired, removed };
}

export { sha1Digest };
