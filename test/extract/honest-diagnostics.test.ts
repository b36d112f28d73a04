import { describe, expect, it } from 'vitest';
import { jsonSyntaxError } from '../../src/extract/jsonld.ts';
import { errors, extractText } from './helpers.ts';

/** A JSON-LD document shaped like the wild: a context, nested nodes, blank nodes, links to other hosts. */
function personJsonLd(n: number): string {
  const people = Array.from({ length: n }, (_, i) => `{
    "@id": "http://people.example/p${i}",
    "@type": "foaf:Person",
    "foaf:name": "Person ${i}",
    "foaf:knows": { "@id": "http://other.example/q${i}" },
    "ex:address": { "ex:street": "street ${i}", "ex:zip": "${String(i).padStart(5, '0')}" }
  }`);
  return `{
  "@context": { "foaf": "http://xmlns.com/foaf/0.1/", "ex": "http://example.org/ns#" },
  "@graph": [${people.join(',\n')}]
}`;
}

describe('invalid JSON in a JSON-LD document', () => {
  it('a valid document of dozens of triples gives no diagnostic (the check does not cry wolf)', async () => {
    const r = await extractText('application/ld+json', personJsonLd(12));
    expect(r.diagnostics).toEqual([]);
    expect(r.quads.length).toBe(12 * 6);
  });

  // Each of these was accepted without a word by the streaming parser (empty, cut-off literal,
  // trailing comma, two documents in a row, a leading zero).
  const lastLine = (text: string) => text.split('\n').length;
  const cut = personJsonLd(3).replace(/\}\s*$/, '') + ',\n"ex:flag": tru';
  const broken: Array<[string, string, number]> = [
    ['an empty body', '', 1],
    ['a cut-off literal', cut, lastLine(cut)],
    ['a trailing comma', personJsonLd(3).replace(/\]\s*\}\s*$/, ',]}'), lastLine(personJsonLd(3)) - 1],
    ['two documents in a row', personJsonLd(2) + '\n' + personJsonLd(1), lastLine(personJsonLd(2)) + 1],
    ['a leading zero', '{"@id": "http://a.example/x",\n "http://a.example/n": 007}', 2],
  ];
  for (const [what, text, line] of broken) {
    it(`${what}: a parse-error diagnostic naming JSON-LD and the line`, async () => {
      const r = await extractText('application/ld+json', text);
      const errs = errors(r);
      expect(errs).toHaveLength(1);
      expect(errs[0].reason).toBe('parse-error');
      expect(errs[0].message).toMatch(/^JSON-LD: invalid JSON at line \d+: expected /);
      expect(errs[0].line).toBe(line);
    });
  }

  it('keeps the quads before the break, as every format does', async () => {
    const r = await extractText('application/ld+json', personJsonLd(3).replace(/\]\s*\}\s*$/, ',]}'));
    expect(r.quads.length).toBe(3 * 6);
    expect(errors(r)).toHaveLength(1);
  });

  it('jsonSyntaxError accepts what JSON.parse accepts and rejects what it rejects', () => {
    const samples = ['[1, 2.5e3, -0, true, false, null, {"a": [ ]}, {}]', '"\\u00e9\\n\\"x\\""', ' {"a":{"b":[1,{"c":null}]}} ',
      '[1,]', '{"a" 1}', '"\\x"', '"a\u0001"', '-', '1.', '.5', '[1 2]', '{"a":1}}', 'truex', '"\\u12G4"'];
    for (const s of samples) {
      let ok = true;
      try {
        JSON.parse(s);
      } catch {
        ok = false;
      }
      expect(jsonSyntaxError(s) === undefined, s).toBe(ok);
    }
  });
});

describe('RDF/XML errors are reported as RDF/XML errors', () => {
  it('an invalid IRI says RDF/XML and the line, not "according to RDF Turtle"', async () => {
    const r = await extractText('application/rdf+xml', `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:foaf="http://xmlns.com/foaf/0.1/">
  <foaf:Person rdf:about="http://people.example/alice">
    <foaf:name>Alice</foaf:name>
    <foaf:knows><foaf:Person rdf:nodeID="b1"><foaf:name>Bob</foaf:name></foaf:Person></foaf:knows>
    <foaf:homepage rdf:resource="http://alice example/home"/>
  </foaf:Person>
</rdf:RDF>`);
    const errs = errors(r);
    expect(errs).toHaveLength(1);
    expect(errs[0].message).toMatch(/^RDF\/XML: /);
    expect(errs[0].message).toContain('invalid IRI');
    expect(errs[0].message).not.toContain('Turtle');
    expect(errs[0].line).toBe(6);
    expect(errs[0].reason).toBe('parse-error');
    expect(r.quads.length).toBeGreaterThan(0); // the triples before the bad IRI are kept
  });

  it('a Turtle syntax error names Turtle', async () => {
    const r = await extractText('text/turtle', '@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b .\n');
    expect(errors(r)[0].message).toMatch(/^Turtle: /);
    expect(errors(r)[0].reason).toBe('parse-error');
  });
});

describe('invalid UTF-8 is replaced with a diagnostic that counts it', () => {
  const turtle = (middle: Buffer) => Buffer.concat([
    Buffer.from('@prefix ex: <http://example.org/> .\nex:a ex:name "caf'), middle, Buffer.from('" ;\n  ex:knows [ ex:name "Bob" ] .\n'),
  ]);

  it('Turtle with two invalid sequences: one warning saying 2, the triples kept', async () => {
    const r = await extractText('text/turtle', turtle(Buffer.from([0xe9, 0x20, 0xff])));
    const warnings = r.diagnostics.filter((d) => /invalid UTF-8/.test(d.message));
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toContain('2 invalid UTF-8 byte sequences');
    expect(r.quads.length).toBe(3);
  });

  it('a U+FFFD written by the author (EF BF BD) is not counted', async () => {
    const r = await extractText('text/turtle', turtle(Buffer.from('\uFFFD')));
    expect(r.diagnostics).toEqual([]);
    const mixed = await extractText('text/turtle', turtle(Buffer.concat([Buffer.from('\uFFFD'), Buffer.from([0xc3])])));
    expect(mixed.diagnostics.map((d) => d.message)).toEqual(['1 invalid UTF-8 byte sequence replaced by U+FFFD']);
  });

  it('JSON-LD, RDF/XML and HTML with a declared charset say so too', async () => {
    const bad = Buffer.from([0xff]);
    const json = await extractText('application/ld+json', Buffer.concat([Buffer.from('{"@id": "http://a.example/x", "http://a.example/n": "'), bad, Buffer.from('"}')]));
    const xml = await extractText('application/rdf+xml', Buffer.concat([Buffer.from('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://a.example/"><rdf:Description rdf:about="http://a.example/x"><ex:n>'), bad, Buffer.from('</ex:n></rdf:Description></rdf:RDF>')]));
    const html = await extractText('text/html', Buffer.concat([Buffer.from('<!doctype html><meta charset="utf-8"><title>caf'), bad, Buffer.from('</title>')]));
    for (const r of [json, xml, html]) expect(r.diagnostics.map((d) => d.message)).toContain('1 invalid UTF-8 byte sequence replaced by U+FFFD');
  });
});
