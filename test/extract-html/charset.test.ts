import { describe, it, expect } from 'vitest';
import iconv from 'iconv-lite';
import { decodeDocument } from '../../src/extract/html/charset.ts';
import { run } from './helpers.ts';

const latin1Page = (meta: string) => Buffer.concat([Buffer.from(`<html><head>${meta}<title>`, 'ascii'), Buffer.from([0x43, 0x61, 0x66, 0xe9]), Buffer.from('</title></head></html>')]);

describe('character sets', () => {
  it('decodes ISO-8859-1 named by <meta charset> and by <meta http-equiv>', async () => {
    expect((await run(latin1Page('<meta charset="iso-8859-1">'))).title).toBe('Café');
    expect((await run(latin1Page('<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'))).title).toBe('Café');
  });

  it('reads ISO-8859-1 as windows-1252, as browsers do (curly quotes in 0x80-0x9F)', () => {
    const decoded = decodeDocument(Buffer.from([0x93, 0x68, 0x69, 0x94]), { headerCharset: 'iso-8859-1' });
    expect(decoded.text).toBe('\u201chi\u201d');
    expect(decoded.source).toBe('header');
  });

  it('prefers the HTTP header over <meta>, and the BOM over both', async () => {
    const page = Buffer.concat([Buffer.from('<meta charset="utf-8"><title>'), iconv.encode('Grüße', 'windows-1252'), Buffer.from('</title>')]);
    expect((await run(page, { charset: 'windows-1252' })).title).toBe('Grüße');
    expect((await run(page, { headers: { 'content-type': 'text/html; charset="windows-1252"' } })).title).toBe('Grüße');
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<title>Grüße</title>')]);
    const r = await run(withBom, { charset: 'iso-8859-1' });
    expect(r.title).toBe('Grüße');
    expect(r.diagnostics.some((d) => d.message.includes('byte-order mark'))).toBe(true);
  });

  it('decodes UTF-16 with a BOM and legacy multi-byte encodings from the XML declaration', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<title>Ωmega</title>', 'utf16le')]);
    expect((await run(utf16)).title).toBe('Ωmega');
    const sjis = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="Shift_JIS"?><root><title>'), iconv.encode('日本語', 'shift_jis'), Buffer.from('</title></root>')]);
    expect((await run(sjis, { mediaType: 'application/xml' })).title).toBe('日本語');
  });

  it('guesses: valid UTF-8 stays UTF-8, undeclared non-UTF-8 is windows-1252, mixed bytes give a warning', async () => {
    expect((await run(Buffer.from('<title>naïve</title>'))).title).toBe('naïve');
    expect((await run(latin1Page(''))).title).toBe('Café');
    const mixed = Buffer.concat([Buffer.from('<title>naïve '), Buffer.from([0xe9]), Buffer.from('</title>')]);
    const r = await run(mixed);
    expect(r.title).toBe('naïve \ufffd');
    expect(r.diagnostics.some((d) => d.message.includes('mixed encodings'))).toBe(true);
  });

  it('ignores an unknown charset label with a warning', async () => {
    const r = await run(Buffer.from('<title>ok</title>'), { charset: 'x-no-such-charset' });
    expect(r.title).toBe('ok');
    expect(r.diagnostics.some((d) => d.message.includes('x-no-such-charset'))).toBe(true);
  });
});
