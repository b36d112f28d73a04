import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { replacedBytesDiagnostic } from './diagnostics.ts';
import type { Diagnostic } from './types.ts';

/**
 * Labels that browsers decode as another encoding (the WHATWG Encoding Standard): an ISO-8859-1 page
 * in the wild almost always means windows-1252, whose 0x80-0x9F range holds curly quotes and the euro sign.
 */
const LABEL_ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252', 'iso8859-1': 'windows-1252', 'latin1': 'windows-1252', 'l1': 'windows-1252',
  'latin-1': 'windows-1252', 'ascii': 'windows-1252', 'us-ascii': 'windows-1252', 'cp1252': 'windows-1252',
  'x-cp1252': 'windows-1252', 'iso_8859-1': 'windows-1252', 'cp819': 'windows-1252', 'ibm819': 'windows-1252',
  'utf8': 'utf-8', 'unicode-1-1-utf-8': 'utf-8', 'x-sjis': 'shift_jis', 'ms_kanji': 'shift_jis',
  'x-euc-jp': 'euc-jp', 'gb2312': 'gbk', 'x-gbk': 'gbk', 'ks_c_5601-1987': 'euc-kr',
};

/** The encoding named by a byte order mark, and the mark's length. */
export function bomEncoding(body: Uint8Array): { encoding: string; length: number } | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  return undefined;
}

/** Normalises a charset label; undefined when it is empty or iconv-lite cannot decode it. */
export function normaliseCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const clean = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!clean) return undefined;
  const name = LABEL_ALIASES[clean] ?? clean;
  return iconv.encodingExists(name) ? name : undefined;
}

/**
 * Bytes to text in a normalised encoding; TextDecoder is the fast path for UTF-8 (no copy through iconv's tables).
 * Invalid UTF-8 becomes U+FFFD; with `diagnostics`, how many sequences were replaced is said there, so
 * that a user knows the literals are not what the bytes said.
 */
export function decodeWith(body: Uint8Array, encoding: string, diagnostics?: Diagnostic[]): string {
  if (encoding === 'utf-8') {
    const text = new TextDecoder('utf-8').decode(body);
    // isUtf8 is one SIMD pass: valid documents (nearly all) pay nothing more.
    if (diagnostics && !isUtf8(body)) {
      const replaced = countReplaced(text, body);
      if (replaced > 0) diagnostics.push(replacedBytesDiagnostic(replaced));
    }
    return text;
  }
  return iconv.decode(Buffer.from(body.buffer, body.byteOffset, body.length), encoding);
}

/** U+FFFD in the text that were not U+FFFD (EF BF BD) in the bytes: the sequences the decoder replaced. */
function countReplaced(text: string, body: Uint8Array): number {
  let inText = 0;
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) inText++;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.length);
  const marker = Buffer.from([0xef, 0xbf, 0xbd]);
  let inBytes = 0;
  for (let i = bytes.indexOf(marker); i >= 0; i = bytes.indexOf(marker, i + 3)) inBytes++;
  return inText - inBytes;
}

/** The encoding declared in an XML declaration (`<?xml version="1.0" encoding="..."?>`), if any. */
export function xmlDeclaredEncoding(body: Uint8Array): string | undefined {
  // The declaration is ASCII-compatible in every encoding we can act on, so look at raw bytes.
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 200)).toString('latin1');
  const match = /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/.exec(head);
  return match ? match[1] : undefined;
}

/**
 * Decodes a document body to text. Precedence (as browsers do): a byte order mark, then the
 * charset given (from HTTP or a format's own declaration), then UTF-8. Unknown charsets fall
 * back to UTF-8; undecodable bytes become U+FFFD, never an exception (counted in `diagnostics`
 * when given). The BOM is removed.
 */
export function decodeText(body: Uint8Array, charset?: string, diagnostics?: Diagnostic[]): string {
  const bom = bomEncoding(body);
  if (bom) return decodeWith(body.subarray(bom.length), bom.encoding, diagnostics);
  const text = decodeWith(body, normaliseCharset(charset) ?? 'utf-8', diagnostics);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
