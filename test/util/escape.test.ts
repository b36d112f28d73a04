import { describe, expect, it } from 'vitest';
import { DomUtils, parseDocument } from 'htmlparser2';
import { escapeAttributeValue, escapeXml } from '../../src/util/escape.ts';

// Strings a page, a URL or a SPARQL result can carry; the last ones could end an attribute or open a tag.
const SAMPLES = ['plain', 'a & b', 'x < y > z', `it's "quoted"`, `'"'"`, '&amp; stays text', '<script>alert(1)</script>', `"><img src=x onerror=alert(1)>`, 'ünï©ødé'];

/** Parses `markup` as XML or as HTML and returns the one element's text and the values of its attributes a and b. */
function readBack(markup: string, xmlMode: boolean): { text: string; a?: string; b?: string } {
  const root = parseDocument(markup, { xmlMode, decodeEntities: true });
  const el = DomUtils.getElementsByTagName('p', root)[0]!;
  return { text: DomUtils.textContent(el), a: DomUtils.getAttributeValue(el, 'a'), b: DomUtils.getAttributeValue(el, 'b') };
}

describe('escapeXml, the one escaper for XML, HTML and SVG', () => {
  for (const xmlMode of [true, false]) {
    it(`round-trips every sample through an ${xmlMode ? 'XML' : 'HTML'} parser as text and as a value in either quote`, () => {
      for (const s of SAMPLES) {
        const e = escapeXml(s);
        expect(readBack(`<p a="${e}" b='${e}'>${e}</p>`, xmlMode), s).toEqual({ text: s, a: s, b: s });
      }
    });
  }

  it('leaves no character that could end an attribute or start markup', () => {
    for (const s of SAMPLES) expect(escapeXml(s)).not.toMatch(/[<>"']|&(?!(amp|lt|gt|quot|#39);)/);
  });

  it('escapeAttributeValue keeps each value whole in its own quote and changes nothing else', () => {
    for (const xmlMode of [true, false]) {
      for (const s of SAMPLES) {
        expect(readBack(`<p a="${escapeAttributeValue(s, '"')}" b='${escapeAttributeValue(s, "'")}'>x</p>`, xmlMode), s).toEqual({ text: 'x', a: s, b: s });
      }
    }
    // The other quote, and < >, stay as the page wrote them: rewriting a URL must not touch the rest.
    expect(escapeAttributeValue(`0; url='a<b>'`, '"')).toBe(`0; url='a<b>'`);
    expect(escapeAttributeValue(`say "hi"`, "'")).toBe(`say "hi"`);
  });
});
