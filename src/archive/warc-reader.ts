import fs from 'node:fs';
import zlib from 'node:zlib';
import { ArchiveReadError, warcPath } from './warc-files.ts';

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
  const file = warcPath(dataDir, rel);
  const corrupt = (why: string) =>
    new ArchiveReadError('corrupt-record', `the WARC record at ${rel} offset ${offset} (${length} bytes) cannot be read: ${why}; run \`datamonitor verify\` to check the archive`, rel);
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length <= 0 || length > MAX_RECORD_BYTES) throw corrupt('the crawl log gives no valid offset and length');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(length);
    const got = fs.readSync(fd, buf, 0, length, offset);
    if (got < length) throw corrupt(`the file ends ${length - got} bytes early`);
    let raw: Buffer;
    try {
      raw = zlib.gunzipSync(buf);
    } catch (e) {
      throw corrupt(`not a gzip member (${(e as Error).message})`);
    }
    const end = raw.indexOf('\r\n\r\n');
    if (end < 0 || !raw.subarray(0, 9).toString('latin1').startsWith('WARC/')) throw corrupt('no WARC header');
    const headers = new Map<string, string>();
    for (const line of raw.subarray(0, end).toString('utf8').split('\r\n').slice(1)) {
      const i = line.indexOf(':');
      if (i > 0) headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
    }
    const len = Number(headers.get('content-length') ?? raw.length - end - 4);
    return { headers, block: raw.subarray(end + 4, end + 4 + len) };
  } finally {
    fs.closeSync(fd);
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
