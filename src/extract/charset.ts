import iconv from 'iconv-lite';

/**
 * Labels that browsers (WHATWG Encoding) read as windows-1252: servers say ISO-8859-1
 * when they mean cp1252, and cp1252 is a superset for every printable byte.
 */
const WINDOWS_1252_ALIASES = new Set(['iso-8859-1', 'iso8859-1', 'latin1', 'l1', 'us-ascii', 'ascii', 'iso_8859-1', 'cp819', 'ibm819']);
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8']);

/** The encoding named by a byte order mark, and the mark's length. */
function bomEncoding(body: Uint8Array): { encoding: string; length: number } | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return undefined;
}

/** Normalises a charset label; undefined when it is empty or unknown to the decoder. */
export function normaliseCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const lower = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!lower) return undefined;
  if (UTF8_LABELS.has(lower)) return 'utf-8';
  if (WINDOWS_1252_ALIASES.has(lower)) return 'windows-1252';
  return iconv.encodingExists(lower) ? lower : undefined;
}

/** The charset parameter of a Content-Type header value, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const match = /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(contentType);
  return match ? match[2] : undefined;
}

/** The encoding declared in an XML declaration (`<?xml version="1.0" encoding="..."?>`), if any. */
export function xmlDeclaredEncoding(body: Uint8Array): string | undefined {
  // The declaration is ASCII-compatible in every encoding we can act on, so look at raw bytes.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 200)).toString('latin1');
  const match = /^(?:\uFEFF|\xEF\xBB\xBF)?<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(head);
  return match ? match[1] : undefined;
}

/**
 * Decodes a document body to text. Precedence (as browsers do): a byte order mark, then the
 * charset given (from HTTP or a format's own declaration), then UTF-8. Unknown charsets fall
 * back to UTF-8; undecodable bytes become U+FFFD, never an exception. The BOM is removed.
 */
export function decodeText(body: Uint8Array, charset?: string): string {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.length);
  const bom = bomEncoding(buffer);
  if (bom) {
    const rest = buffer.subarray(bom.length);
    return bom.encoding === 'utf-8' ? rest.toString('utf8') : iconv.decode(rest, bom.encoding, { stripBOM: false });
  }
  const encoding = normaliseCharset(charset) ?? 'utf-8';
  if (encoding === 'utf-8') return buffer.toString('utf8');
  return iconv.decode(buffer, encoding, { stripBOM: true });
}
