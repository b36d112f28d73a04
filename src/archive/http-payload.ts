import { parseHttpResponse, type HttpMessage } from './warc-reader.ts';
import { headerValue } from '../util/headers.ts';

/**
 * The payload of an HTTP message as a WARC record holds it. Records made elsewhere may keep the message
 * as it crossed the wire, chunked (`Transfer-Encoding: chunked`); the payload is the entity with the
 * chunking removed and any Content-Encoding kept (what WARC-Payload-Digest is of, and the bytes a crawl
 * archives as `rawBody`).
 */

/** The chunked body `buf` with its framing removed; undefined when `buf` is not whole, valid chunking. */
export function dechunk(buf: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let p = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', p);
    if (eol < 0) return undefined;
    const size = parseInt(buf.subarray(p, eol).toString('latin1').split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0 || !/^[0-9a-f]+$/i.test(buf.subarray(p, eol).toString('latin1').split(';')[0]!.trim())) return undefined;
    p = eol + 2;
    if (size === 0) break;
    if (p + size + 2 > buf.length || buf[p + size] !== 0x0d || buf[p + size + 1] !== 0x0a) return undefined;
    parts.push(buf.subarray(p, p + size));
    p += size + 2;
  }
  // Trailer fields, if any, end with a blank line; a body cut right after the last chunk is accepted.
  return Buffer.concat(parts);
}

/** The message of a response block, its body the payload (dechunked when it is chunked). */
export function httpPayload(block: Buffer): HttpMessage & { chunked: boolean } {
  const m = parseHttpResponse(block);
  if (/chunked/i.test(headerValue(m.headers, 'transfer-encoding') ?? '')) {
    const body = dechunk(m.body);
    // A crawler that dechunked but kept the header: the body is already the payload.
    if (body) return { ...m, body, chunked: true };
  }
  return { ...m, chunked: false };
}
