import iconv from 'iconv-lite';

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

/**
 * Labels that browsers decode as windows-1252 (the WHATWG Encoding Standard): an ISO-8859-1 page
 * in the wild almost always means windows-1252, whose 0x80-0x9F range holds curly quotes and the euro sign.
 */
const LABEL_ALIASES: Record<string, string> = {
  'iso-8859-1': 'windows-1252', 'iso8859-1': 'windows-1252', 'latin1': 'windows-1252', 'l1': 'windows-1252',
  'latin-1': 'windows-1252', 'ascii': 'windows-1252', 'us-ascii': 'windows-1252', 'cp1252': 'windows-1252',
  'x-cp1252': 'windows-1252', 'iso_8859-1': 'windows-1252', 'cp819': 'windows-1252', 'ibm819': 'windows-1252',
  'utf8': 'utf-8', 'unicode-1-1-utf-8': 'utf-8', 'x-sjis': 'shift_jis', 'ms_kanji': 'shift_jis',
  'x-euc-jp': 'euc-jp', 'gb2312': 'gbk', 'x-gbk': 'gbk', 'ks_c_5601-1987': 'euc-kr',
};

/** Normalises a charset label; undefined when iconv-lite cannot decode it. */
export function normaliseCharset(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const clean = label.trim().replace(/^["']|["']$/g, '').toLowerCase();
  if (!clean) return undefined;
  const name = LABEL_ALIASES[clean] ?? clean;
  return iconv.encodingExists(name) ? name : undefined;
}

/** The charset parameter of a Content-Type header value, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType && /;\s*charset\s*=\s*("?)([^";,\s]+)\1/i.exec(contentType);
  return match ? match[2] : undefined;
}

function bomCharset(body: Buffer): { charset: string; length: number } | undefined {
  if (body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: 'utf-8', length: 3 };
  if (body.length >= 2 && body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', length: 2 };
  if (body.length >= 2 && body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', length: 2 };
  return undefined;
}

/** <meta charset="x"> or <meta http-equiv="content-type" content="...; charset=x"> in the first bytes. */
function metaCharset(head: string): string | undefined {
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?([^"'\s/>;]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}

function xmlDeclarationCharset(head: string): string | undefined {
  const match = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([^"']+)["']/.exec(head);
  return match ? match[1] : undefined;
}

function decodeWith(body: Buffer, charset: string): string {
  // TextDecoder is the fast path for UTF-8 (no copy through iconv's tables).
  if (charset === 'utf-8') return new TextDecoder('utf-8').decode(body);
  return iconv.decode(body, charset);
}

/**
 * Decodes an HTML or XML document. Precedence: byte-order mark, then the HTTP header charset,
 * then <meta charset> (HTML) / the XML declaration (XML), then a guess. The BOM wins over the header
 * as in the WHATWG Encoding Standard and every browser: a file saved with a BOM is what its author wrote.
 */
export function decodeDocument(body: Buffer, opts: { headerCharset?: string; xml?: boolean } = {}): DecodedDocument {
  const warnings: string[] = [];
  const bom = bomCharset(body);
  const declaredHeader = opts.headerCharset;
  const header = normaliseCharset(declaredHeader);
  if (declaredHeader && !header) warnings.push(`unknown charset "${declaredHeader}" in the HTTP header: ignored`);
  if (bom) {
    if (header && header !== bom.charset) warnings.push(`HTTP header says ${header} but the byte-order mark says ${bom.charset}: using the BOM`);
    return { text: decodeWith(body.subarray(bom.length), bom.charset), charset: bom.charset, source: 'bom', warnings };
  }
  if (header) return { text: stripBomChar(decodeWith(body, header)), charset: header, source: 'header', warnings };

  // Charset declarations are ASCII, so a latin1 view of the first bytes finds them in any ASCII-compatible encoding.
  const head = body.subarray(0, PRESCAN_BYTES).toString('latin1');
  const declared = opts.xml ? xmlDeclarationCharset(head) ?? metaCharset(head) : metaCharset(head) ?? xmlDeclarationCharset(head);
  if (declared) {
    const name = normaliseCharset(declared);
    // A document declaring UTF-16 in ASCII bytes is not UTF-16 (the WHATWG rule): read it as UTF-8.
    const usable = name && !name.startsWith('utf-16') ? name : undefined;
    if (usable) return { text: decodeWith(body, usable), charset: usable, source: opts.xml && xmlDeclarationCharset(head) ? 'xml-declaration' : 'meta', warnings };
    warnings.push(`unusable charset "${declared}" declared in the document: ignored`);
  }
  return guess(body, warnings);
}

/** No declaration: UTF-8 if the bytes are valid UTF-8 (or mostly are), else the legacy Western default. */
function guess(body: Buffer, warnings: string[]): DecodedDocument {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), charset: 'utf-8', source: 'default', warnings };
  } catch {
    const lenient = new TextDecoder('utf-8').decode(body);
    // Any well-formed multi-byte character means the author wrote UTF-8 and some bytes got mixed in.
    if (/[\u0080-\ufffc\ufffe\uffff]/.test(lenient)) {
      warnings.push('invalid UTF-8 byte sequences (mixed encodings?) replaced by U+FFFD');
      return { text: lenient, charset: 'utf-8', source: 'guess', warnings };
    }
    warnings.push('no charset declared and the bytes are not UTF-8: decoded as windows-1252');
    return { text: iconv.decode(body, 'windows-1252'), charset: 'windows-1252', source: 'guess', warnings };
  }
}

function stripBomChar(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
