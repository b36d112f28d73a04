import fs from 'node:fs';
import zlib from 'node:zlib';

/**
 * Walks a WARC file record by record and hands out each record's bytes exactly as the file holds them,
 * with where it is (offset and length in the file). warcio's parser decodes as it goes and skips what it
 * cannot read with a console warning; an import that must keep records byte for byte, and say which one
 * was damaged without losing the others, needs the raw bytes and the boundaries, so this reads them itself.
 *
 * A file may be plain, gzipped per record (the usual `.warc.gz`), or one gzip stream of many records;
 * the kind is told per record, so a mix reads too. Reads are positioned and windowed: a record is held in
 * memory, never the file.
 */

export interface ScannedRecord {
  /** Offset and length in the file: of the record's gzip member when compressed, else of the record. */
  offset: number;
  length: number;
  /** The gzip member as the file holds it, when it holds exactly this record (copy it as it is). */
  member?: Buffer;
  /** The record uncompressed: WARC head, blank line, block, and the newlines that end it, as they were. */
  raw: Buffer;
  /** WARC header names lower-cased; the first value of a repeated name. */
  headers: Map<string, string>;
  block: Buffer;
}

export interface ScanError {
  offset: number;
  error: string;
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);
const WARC_START = Buffer.from('WARC/');
const HEAD_END = Buffer.from('\r\n\r\n');
/**
 * The first read at a record: most records are a few KB, so 64 KB holds one (a larger one is read again in
 * a window four times larger, and so on). A 1 MB first read cost a 1 MB read and buffer per record:
 * `export --format warc` of 10,000 documents peaked at 242 MB RSS and took 9x as long (bench/SCALE.md).
 */
const FIRST_WINDOW = 1 << 16;
/** A record inflating beyond this is reported, not held (a gzip bomb, or a member no reader could hold). */
const MAX_RECORD_BYTES = 2 ** 31 - 1;

/** The records of `file`, in order; a damaged stretch gives one ScanError and the walk goes on after it. */
export function* scanWarc(file: string): Generator<ScannedRecord | ScanError> {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const read = (pos: number, len: number): Buffer => {
      const buf = Buffer.alloc(Math.max(0, Math.min(len, size - pos)));
      let done = 0;
      while (done < buf.length) {
        const n = fs.readSync(fd, buf, done, buf.length - done, pos + done);
        if (n <= 0) break;
        done += n;
      }
      return buf.subarray(0, done);
    };
    /** The next offset at or after `from` where `needle` starts (at a line start for a WARC head), or size. */
    const find = (from: number, needle: Buffer, lineStart: boolean): number => {
      for (let pos = from; pos < size; pos += FIRST_WINDOW) {
        const chunk = read(pos, FIRST_WINDOW + needle.length);
        for (let i = chunk.indexOf(needle); i >= 0; i = chunk.indexOf(needle, i + 1)) {
          if (!lineStart || pos + i === 0 || (i > 0 ? chunk[i - 1] === 0x0a : read(pos - 1, 1)[0] === 0x0a)) return pos + i;
        }
      }
      return size;
    };
    let pos = 0;
    while (pos < size) {
      const lead = read(pos, 3);
      if (lead.length >= 2 && lead[0] === 0x1f && lead[1] === 0x8b) {
        const m = gzipMember(read, pos, size);
        if ('error' in m) {
          // Damage can make a member look unfinished to the file's end: if another member follows, it was damage.
          const next = find(pos + 1, GZIP_MAGIC, false);
          yield { offset: pos, error: m.truncated && next < size ? `the gzip member at ${pos} cannot be inflated to its end: its bytes are damaged` : m.error };
          pos = next;
          continue;
        }
        const records = splitRecords(m.content);
        const single = records.length === 1 && !('error' in records[0]!);
        for (const r of records) {
          if ('error' in r) yield { offset: pos, error: `in the gzip member at ${pos}: ${r.error}` };
          else yield { ...r, offset: pos, length: m.length, member: single ? m.bytes : undefined };
        }
        pos += m.length;
        continue;
      }
      if (lead[0] === 0x0d || lead[0] === 0x0a) {
        pos++; // newlines between records
        continue;
      }
      const r = plainRecord(read, pos, size);
      if ('error' in r) {
        yield { offset: pos, error: r.error };
        const next = Math.min(find(pos + 1, WARC_START, true), find(pos + 1, GZIP_MAGIC, false));
        pos = next;
        continue;
      }
      yield r;
      pos += r.length;
    }
  } finally {
    fs.closeSync(fd);
  }
}

type Read = (pos: number, len: number) => Buffer;

/** One gzip member at `pos`: its bytes, length and content, or why it cannot be read. */
function gzipMember(read: Read, pos: number, size: number): { bytes: Buffer; length: number; content: Buffer } | { error: string; truncated: boolean } {
  for (let window = FIRST_WINDOW; ; window *= 4) {
    const buf = read(pos, window);
    const atEnd = pos + buf.length >= size;
    const start = gzipHeaderLength(buf);
    if (start === undefined) {
      if (atEnd) return { error: `the file ends inside the gzip header at ${pos}: the record was cut short (truncated file)`, truncated: true };
      continue;
    }
    if (start < 0) return { error: `a damaged gzip header at ${pos}`, truncated: false };
    try {
      const { buffer, engine } = zlib.inflateRawSync(buf.subarray(start), { info: true, maxOutputLength: MAX_RECORD_BYTES }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      const length = start + engine.bytesWritten + 8; // CRC32 and ISIZE follow the deflate stream
      if (length > buf.length) {
        if (atEnd) return { error: `the file ends inside the gzip member at ${pos}: the record was cut short (truncated file)`, truncated: true };
        continue;
      }
      // zlib.crc32 came with Node 20.15; older 20.x skip the check.
      if (typeof zlib.crc32 === 'function' && buf.readUInt32LE(length - 8) !== zlib.crc32(buffer)) return { error: `the gzip member at ${pos} fails its CRC check: its bytes are damaged`, truncated: false };
      return { bytes: buf.subarray(0, length), length, content: buffer };
    } catch (e) {
      const msg = (e as Error).message;
      if (/unexpected end of file/i.test(msg)) {
        if (atEnd) return { error: `the file ends inside the gzip member at ${pos}: the record was cut short (truncated file)`, truncated: true };
        continue;
      }
      return { error: `the gzip member at ${pos} cannot be inflated (${msg}): its bytes are damaged`, truncated: false };
    }
  }
}

/** Length of the gzip header at the start of `buf` (RFC 1952), -1 when it is not one, undefined when cut short. */
function gzipHeaderLength(buf: Buffer): number | undefined {
  if (buf.length < 10) return undefined;
  if (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return -1;
  const flags = buf[3]!;
  let p = 10;
  if (flags & 4) {
    if (buf.length < p + 2) return undefined;
    p += 2 + buf.readUInt16LE(p);
  }
  for (const bit of [8, 16]) {
    if (!(flags & bit)) continue;
    const z = buf.indexOf(0, p);
    if (z < 0) return undefined;
    p = z + 1;
  }
  if (flags & 2) p += 2;
  return p <= buf.length ? p : undefined;
}

interface Parsed {
  raw: Buffer;
  headers: Map<string, string>;
  block: Buffer;
}

/** The records in an inflated gzip member (one, by the standard; a whole-file stream holds many). */
function splitRecords(content: Buffer): Array<Parsed | { error: string }> {
  const out: Array<Parsed | { error: string }> = [];
  let p = 0;
  while (p < content.length) {
    while (p < content.length && (content[p] === 0x0d || content[p] === 0x0a)) p++;
    if (p >= content.length) break;
    const r = parseRecord(content, p);
    if ('error' in r) {
      out.push(r);
      break;
    }
    out.push(r);
    p += r.raw.length;
  }
  // The newlines after the last record belong to it (a member holds them).
  const last = out.at(-1);
  if (last && !('error' in last) && p > 0) {
    const start = last.raw.byteOffset - content.byteOffset;
    last.raw = content.subarray(start);
  }
  return out;
}

/** Parses the record at `p` of `buf`: head, block, and up to four newline bytes that end it. */
function parseRecord(buf: Buffer, p: number): Parsed | { error: string } {
  const end = buf.indexOf(HEAD_END, p);
  if (buf.subarray(p, p + 5).compare(WARC_START) !== 0) return { error: 'not a WARC record (no "WARC/" version line)' };
  if (end < 0) return { error: 'a WARC head without its blank line: the record was cut short' };
  const headers = headerMap(buf.subarray(p, end));
  const cl = Number(headers.get('content-length'));
  if (!headers.has('content-length') || !Number.isInteger(cl) || cl < 0) return { error: `no valid Content-Length (${headers.get('content-length') ?? 'none'}): the record's end cannot be told` };
  const blockStart = end + 4;
  if (blockStart + cl > buf.length) return { error: `Content-Length says ${cl} bytes, ${buf.length - blockStart} follow: the record was cut short` };
  let q = blockStart + cl;
  for (let i = 0; i < 4 && (buf[q] === 0x0d || buf[q] === 0x0a); i++) q++;
  return { raw: buf.subarray(p, q), headers, block: buf.subarray(blockStart, blockStart + cl) };
}

function headerMap(head: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  const lines = head.toString('utf8').split('\r\n');
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.indexOf(':');
    if (c <= 0) continue;
    const k = line.slice(0, c).trim().toLowerCase();
    if (!headers.has(k)) headers.set(k, line.slice(c + 1).trim());
  }
  return headers;
}

/** An uncompressed record at `pos`, read in growing windows. */
function plainRecord(read: Read, pos: number, size: number): ScannedRecord | { error: string } {
  let window = 64 * 1024;
  let head = read(pos, window);
  while (head.indexOf(HEAD_END) < 0 && pos + head.length < size && window < 16 << 20) head = read(pos, (window *= 4));
  const end = head.indexOf(HEAD_END);
  if (head.subarray(0, 5).compare(WARC_START) !== 0) return { error: `not a WARC record at ${pos} (no "WARC/" version line)` };
  if (end < 0) return { error: `a WARC head at ${pos} without its blank line: the record was cut short` };
  const cl = Number(headerMap(head.subarray(0, end)).get('content-length'));
  if (!Number.isInteger(cl) || cl < 0) return { error: `the record at ${pos} has no valid Content-Length: its end cannot be told` };
  const need = end + 4 + cl + 4;
  if (pos + end + 4 + cl > size) return { error: `the record at ${pos} says ${cl} bytes of block, the file holds ${size - pos - end - 4}: it was cut short (truncated file)` };
  const buf = read(pos, need);
  const r = parseRecord(buf, 0);
  if ('error' in r) return { error: `the record at ${pos}: ${r.error}` };
  // In a plain file a wrong Content-Length would swallow the next record or start the next one inside
  // this one: the block must be followed by the blank line that ends a record (or the file's end).
  const after = end + 4 + cl;
  if (after < buf.length && buf[after] !== 0x0d && buf[after] !== 0x0a) return { error: `the record at ${pos} does not end where its Content-Length (${cl}) says: its length is wrong` };
  return { ...r, offset: pos, length: r.raw.length };
}
