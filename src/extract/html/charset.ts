import iconv from 'iconv-lite';
import { bomEncoding, decodeWith as decodeCounting, normaliseCharset, xmlDeclaredEncoding } from '../charset.ts';
import type { Diagnostic } from '../types.ts';

/** Where the character set of a document came from. */
export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml-declaration' | 'guess' | 'default';

export interface DecodedDocument {
  text: string;
  /** The encoding actually used (a WHATWG/iconv-lite name, lower case). */
  charset: string;
  source: CharsetSource;
  warnings: string[];
}

/** How far into the document a <meta charset> or XML declaration is looked for (WHATWG prescans 1024 bytes; be lenient). */
const PRESCAN_BYTES = 4096;

/** <meta charset="x"> or <meta http-equiv="content-type" content="...; charset=x"> in the first bytes. */
function metaCharset(head: string): string | undefined {
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}


/**
 * Decodes an HTML or XML document. Precedence: byte-order mark, then the HTTP header charset,
 * then <meta charset> (HTML) / the XML declaration (XML), then a guess. The BOM wins over the header
 * as in the WHATWG Encoding Standard and every browser: a file saved with a BOM is what its author wrote.
 */
export function decodeDocument(body: Buffer, opts: { headerCharset?: string; xml?: boolean } = {}): DecodedDocument {
  const warnings: string[] = [];
  // Replaced invalid UTF-8 is counted into the warnings, whichever way the charset was found.
  const decodeWith = (bytes: Uint8Array, encoding: string): string => {
    const found: Diagnostic[] = [];
    const text = decodeCounting(bytes, encoding, found);
    for (const d of found) warnings.push(d.message);
    return text;
  };
  const bom = bomEncoding(body);
  const declaredHeader = opts.headerCharset;
  const header = normaliseCharset(declaredHeader);
  if (declaredHeader && !header) warnings.push(`unknown charset "${declaredHeader}" in the HTTP header: ignored`);
  if (bom) {
    if (header && header !== bom.encoding) warnings.push(`HTTP header says ${header} but the byte-order mark says ${bom.encoding}: using the BOM`);
    return { text: decodeWith(body.subarray(bom.length), bom.encoding), charset: bom.encoding, source: 'bom', warnings };
  }
  if (header) return { text: stripBomChar(decodeWith(body, header)), charset: header, source: 'header', warnings };

  // Charset declarations are ASCII, so a latin1 view of the first bytes finds them in any ASCII-compatible encoding.
  const head = body.subarray(0, PRESCAN_BYTES).toString('latin1');
  const xmlDeclared = xmlDeclaredEncoding(body);
  const declared = opts.xml ? xmlDeclared ?? metaCharset(head) : metaCharset(head) ?? xmlDeclared;
  if (declared) {
    const name = normaliseCharset(declared);
    // A document declaring UTF-16 in ASCII bytes is not UTF-16 (the WHATWG rule): read it as UTF-8.
    const usable = name && !name.startsWith('utf-16') ? name : undefined;
    if (usable) return { text: decodeWith(body, usable), charset: usable, source: opts.xml && xmlDeclared ? 'xml-declaration' : 'meta', warnings };
    warnings.push(`unusable charset "${declared}" declared in the document: ignored`);
  }
  return guess(body, warnings);
}

/** No declaration: UTF-8 if the bytes are valid UTF-8 (or mostly are), else the legacy Western default. */
function guess(body: Buffer, warnings: string[]): DecodedDocument {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), charset: 'utf-8', source: 'default', warnings };
  } catch {
    const replaced: Diagnostic[] = [];
    const lenient = decodeCounting(body, 'utf-8', replaced);
    // Any well-formed multi-byte character means the author wrote UTF-8 and some bytes got mixed in.
    if (/[\u0080-\ufffc\ufffe\uffff]/.test(lenient)) {
      warnings.push(`${replaced[0]?.message ?? 'invalid UTF-8 byte sequences replaced by U+FFFD'} (mixed encodings?)`);
      return { text: lenient, charset: 'utf-8', source: 'guess', warnings };
    }
    warnings.push('no charset declared and the bytes are not UTF-8: decoded as windows-1252');
    return { text: iconv.decode(body, 'windows-1252'), charset: 'windows-1252', source: 'guess', warnings };
  }
}

function stripBomChar(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
