import { createHash, randomUUID } from 'node:crypto';
import type { Header } from '../fetch/types.ts';
import { base32 } from '../util/base32.ts';

/**
 * WARC 1.1 records, serialised by hand: the format is a few header lines, and doing it here with
 * Node's native sha1 costs a fraction of warcio's serializer (measured in bench/RESULTS.md), which
 * matters at thousands of pages per second. warcio reads what we write (tested).
 */

/** `sha1:BASE32`, the digest form WARC tools expect. */
export function sha1Digest(data: Buffer | string): string {
  return 'sha1:' + base32(createHash('sha1').update(data).digest());
}

export function recordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

export interface RecordSpec {
  type: 'warcinfo' | 'request' | 'response' | 'revisit' | 'conversion' | 'metadata' | 'resource';
  id?: string;
  date: Date;
  targetUri?: string;
  contentType?: string;
  headers?: [string, string][];
  block: Buffer;
}

function headerSafe(v: string): string {
  return v.replace(/[\r\n]+/g, ' ');
}

/** One record as bytes (uncompressed). */
export function serializeRecord(spec: RecordSpec): { bytes: Buffer; id: string } {
  const id = spec.id ?? recordId();
  let head = `WARC/1.1\r\nWARC-Type: ${spec.type}\r\nWARC-Record-ID: ${id}\r\nWARC-Date: ${spec.date.toISOString()}\r\n`;
  if (spec.targetUri) head += `WARC-Target-URI: ${headerSafe(spec.targetUri)}\r\n`;
  for (const [k, v] of spec.headers ?? []) head += `${k}: ${headerSafe(v)}\r\n`;
  if (spec.contentType) head += `Content-Type: ${spec.contentType}\r\n`;
  if (spec.type !== 'warcinfo') head += `WARC-Block-Digest: ${sha1Digest(spec.block)}\r\n`;
  head += `Content-Length: ${spec.block.length}\r\n\r\n`;
  return { bytes: Buffer.concat([Buffer.from(head, 'utf8'), spec.block, CRLF2]), id };
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** The HTTP message head (status or request line plus headers) as it goes into a record block. */
export function httpHeadText(firstLine: string, headers: Header[]): string {
  let s = firstLine + '\r\n';
  for (const [k, v] of headers) s += `${k}: ${headerSafe(v)}\r\n`;
  return s + '\r\n';
}
