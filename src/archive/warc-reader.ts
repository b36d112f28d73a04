import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

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

function openPath(dataDir: string, rel: string): string {
  const abs = path.join(dataDir, rel);
  // A file still being written keeps its `.open` name until the writer closes it.
  return fs.existsSync(abs) ? abs : abs + '.open';
}

/** Reads and un-gzips the record at `offset` (each record is its own gzip member). */
export function readRecord(dataDir: string, rel: string, offset: number, length: number): StoredRecord {
  const fd = fs.openSync(openPath(dataDir, rel), 'r');
  try {
    const buf = Buffer.alloc(length);
    fs.readSync(fd, buf, 0, length, offset);
    const raw = zlib.gunzipSync(buf);
    const end = raw.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`no WARC header at ${rel}@${offset}`);
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
