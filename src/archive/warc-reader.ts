import fs from 'node:fs';
import zlib from 'node:zlib';
import { ArchiveReadError, openWarc } from './warc-files.ts';

/** No record this archive writes is larger: a bigger length in the log is damage, not a record to allocate. */
const MAX_RECORD_BYTES = 2 ** 31 - 1;

/** One WARC record read back from its offset: its WARC headers and its block. */
export interface StoredRecord {
  headers: Map<string, string>;
  block: Buffer;
}

export interface HttpMessage {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Buffer;
}

/**
 * Reads and un-gzips the record at `offset` (each record is its own gzip member), from a file inside the
 * data directory only (warcPath). Failures are ArchiveReadErrors that name the file relative to the data directory.
 */
export function readRecord(dataDir: string, rel: string, offset: number, length: number): StoredRecord {
  checkRange(rel, offset, length);
  const fd = openWarc(dataDir, rel);
  try {
    const buf = Buffer.alloc(length);
    const got = fs.readSync(fd, buf, 0, length, offset);
    if (got < length) throw corruptRecord(rel, offset, length, `the file ends ${length - got} bytes early`);
    return decodeRecord(buf, rel, offset, length);
  } finally {
    fs.closeSync(fd);
  }
}

function corruptRecord(rel: string, offset: number, length: number, why: string): ArchiveReadError {
  return new ArchiveReadError('corrupt-record', `the WARC record at ${rel} offset ${offset} (${length} bytes) cannot be read: ${why}; run \`datamonitor verify\` to check the archive`, rel);
}

function checkRange(rel: string, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length <= 0 || length > MAX_RECORD_BYTES) {
    throw corruptRecord(rel, offset, length, 'the crawl log gives no valid offset and length');
  }
}

/** Un-gzips one record's bytes (a gzip member of its own) into its WARC headers and block. */
function decodeRecord(buf: Buffer, rel: string, offset: number, length: number): StoredRecord {
  let raw: Buffer;
  try {
    raw = zlib.gunzipSync(buf);
  } catch (e) {
    throw corruptRecord(rel, offset, length, `not a gzip member (${(e as Error).message})`);
  }
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0 || !raw.subarray(0, 9).toString('latin1').startsWith('WARC/')) throw corruptRecord(rel, offset, length, 'no WARC header');
  const headers = new Map<string, string>();
  for (const line of raw.subarray(0, end).toString('utf8').split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  const len = Number(headers.get('content-length') ?? raw.length - end - 4);
  return { headers, block: raw.subarray(end + 4, end + 4 + len) };
}

/** Files a RecordReader keeps open at once (a crawl writes one WARC file per host at a time). */
const OPEN_FILES = 32;
/** Read-ahead per file, adapted between these bounds to how many records one read served. */
const MIN_AHEAD = 16 << 10;
const FIRST_AHEAD = 64 << 10;
const MAX_AHEAD = 512 << 10;

interface OpenFile {
  fd: number;
  start: number;
  data: Buffer;
  /** Records served from `data` (hits after the read that filled it). */
  served: number;
  ahead: number;
}

/**
 * readRecord for many records in log order (the index catch-up): each file is resolved and opened once,
 * and read ahead, so that one read serves the records that follow it in the file instead of a system
 * call or three per record. A crawl writes one file per host, so log order visits several files in turn:
 * each open file keeps its own window, grown while reads ahead pay off, shrunk when they do not. Profiled
 * on a catch-up of 5,000 versions, path checks, opens and small reads were half of the time spent
 * reading records. Same checks and errors as readRecord. A file still being written (`.open`) stays
 * readable through its descriptor when the writer renames it.
 */
export class RecordReader {
  private readonly files = new Map<string, OpenFile>();

  constructor(private readonly dataDir: string) {}

  read(rel: string, offset: number, length: number): StoredRecord {
    checkRange(rel, offset, length);
    const f = this.open(rel);
    if (offset >= f.start && offset + length <= f.start + f.data.length) {
      try {
        const rec = decodeRecord(f.data.subarray(offset - f.start, offset - f.start + length), rel, offset, length);
        f.served++;
        return rec;
      } catch {
        // Bytes read ahead of a writer that then cut a failed record off and wrote again: read afresh.
      }
    }
    if (f.data.length > 0) f.ahead = f.served >= 4 ? Math.min(MAX_AHEAD, f.ahead * 2) : f.served === 0 ? Math.max(MIN_AHEAD, f.ahead / 4) : f.ahead;
    const data = Buffer.allocUnsafe(Math.max(length, f.ahead));
    const got = fs.readSync(f.fd, data, 0, data.length, offset);
    if (got < length) throw corruptRecord(rel, offset, length, `the file ends ${length - got} bytes early`);
    f.start = offset;
    f.data = data.subarray(0, got);
    f.served = 0;
    return decodeRecord(data.subarray(0, length), rel, offset, length);
  }

  private open(rel: string): OpenFile {
    let f = this.files.get(rel);
    if (f) {
      // Most recently used last: the first entry is the one to close when too many are open.
      this.files.delete(rel);
      this.files.set(rel, f);
      return f;
    }
    f = { fd: openWarc(this.dataDir, rel), start: 0, data: Buffer.alloc(0), served: 0, ahead: FIRST_AHEAD };
    if (this.files.size >= OPEN_FILES) {
      const [oldest, old] = this.files.entries().next().value as [string, OpenFile];
      this.files.delete(oldest);
      fs.closeSync(old.fd);
    }
    this.files.set(rel, f);
    return f;
  }

  close(): void {
    for (const f of this.files.values()) fs.closeSync(f.fd);
    this.files.clear();
  }
}

/** Splits an HTTP response block into status, headers and payload. */
export function parseHttpResponse(block: Buffer): HttpMessage {
  const end = block.indexOf('\r\n\r\n');
  const head = block.subarray(0, end < 0 ? block.length : end).toString('latin1').split('\r\n');
  const m = /^HTTP\/[\d.]+\s+(\d{3})\s*(.*)$/.exec(head[0] ?? '');
  const headers: [string, string][] = [];
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.push([line.slice(0, i), line.slice(i + 1).trim()]);
  }
  return { status: m ? Number(m[1]) : 0, statusText: m?.[2] ?? '', headers, body: end < 0 ? Buffer.alloc(0) : block.subarray(end + 4) };
}
