import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { acceptedMediaTypes, extract, extractorFor } from '../../src/extract/registry.ts';
import { errors, extractText, lines } from './helpers.ts';

const EX = 'http://example.org/';
const RDFNS = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';

describe('one small document per format', () => {
  it('Turtle, with relative IRIs resolved against the document URL', async () => {
    const r = await extractText('text/turtle; charset=utf-8', '@prefix ex: <http://example.org/> .\n<#me> ex:knows ex:you ; ex:name "Me"@en .');
    expect(errors(r)).toEqual([]);
    expect(lines(r.quads)).toEqual([`${EX}doc#me ${EX}knows ${EX}you`, `${EX}doc#me ${EX}name Me`]);
  });
  it('N-Triples', async () => {
    const r = await extractText('application/n-triples', `<${EX}a> <${EX}p> "x" .\n<${EX}a> <${EX}p> _:b .\n`);
    expect(r.quads).toHaveLength(2);
    expect(r.quads[1].object.termType).toBe('BlankNode');
  });
  it('N-Quads keep their graph', async () => {
    const r = await extractText('application/n-quads', `<${EX}a> <${EX}p> <${EX}o> <${EX}g> .\n`);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p ${EX}o ${EX}g`]);
  });
  it('TriG', async () => {
    const r = await extractText('application/trig', `@prefix ex: <${EX}> . ex:g { ex:a ex:p ex:o } ex:b ex:p ex:o .`);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p ${EX}o ${EX}g`, `${EX}b ${EX}p ${EX}o`]);
  });
  it('RDF/XML', async () => {
    const r = await extractText('application/rdf+xml', `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}">
  <ex:Person rdf:about="#me"><ex:name>Me</ex:name></ex:Person>
</rdf:RDF>`);
    expect(errors(r)).toEqual([]);
    expect(lines(r.quads)).toEqual([`${EX}doc#me ${EX}name Me`, `${EX}doc#me ${RDFNS}type ${EX}Person`]);
  });
  it('JSON-LD with an inline context', async () => {
    const r = await extractText('application/ld+json', JSON.stringify({ '@context': { ex: EX }, '@id': 'ex:a', 'ex:p': { '@id': 'ex:b' } }));
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p ${EX}b`]);
  });
  it('media type aliases and parameters pick the right extractor; unknown types give nothing', async () => {
    expect(extractorFor('application/x-turtle')?.name).toBe('turtle');
    expect(extractorFor('Text/Turtle;charset=UTF-8')?.name).toBe('turtle');
    expect(extractorFor('text/n3')?.name).toBe('n3');
    expect(extractorFor('application/json')?.name).toBe('json-ld');
    expect(extractorFor('image/png')).toBeUndefined();
    expect(acceptedMediaTypes()).toEqual(expect.arrayContaining(['text/turtle', 'application/rdf+xml', 'application/ld+json', 'application/n-quads']));
    const r = await extractText('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(r).toEqual({ quads: [], links: [], diagnostics: [] });
  });
});

describe('parse errors are diagnostics and earlier triples are kept', () => {
  it('Turtle: the error has its line', async () => {
    const r = await extractText('text/turtle', `@prefix ex: <${EX}> .\nex:a ex:p ex:o1 .\nex:a ex:p ex:o2 .\nex:a ex:p ex:o3 ex:oops .\nex:a ex:p ex:o4 .\n`);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p ${EX}o1`, `${EX}a ${EX}p ${EX}o2`]);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0].line).toBe(4);
  });
  it('N-Quads', async () => {
    const r = await extractText('application/n-quads', `<${EX}a> <${EX}p> <${EX}o> .\n<${EX}a> <${EX}p> .\n<${EX}b> <${EX}p> <${EX}o> .\n`);
    expect(r.quads).toHaveLength(1);
    expect(errors(r)[0].line).toBe(2);
  });
  it('RDF/XML: a truncated document keeps what was complete', async () => {
    const r = await extractText('application/rdf+xml', `<rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}">
<rdf:Description rdf:about="${EX}a"><ex:p>1</ex:p></rdf:Description>
<rdf:Description rdf:about="${EX}b"><ex:p>2</ex:p>`);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p 1`, `${EX}b ${EX}p 2`]);
    expect(errors(r).length).toBeGreaterThan(0);
  });
  it('RDF/XML: an invalid IRI stops the document with its line', async () => {
    const r = await extractText('application/rdf+xml', `<rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}">
<rdf:Description rdf:about="${EX}a"><ex:p>1</ex:p></rdf:Description>
<rdf:Description rdf:about="http://bad iri/"><ex:p>2</ex:p></rdf:Description>
<rdf:Description rdf:about="${EX}c"><ex:p>3</ex:p></rdf:Description></rdf:RDF>`);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p 1`]);
    expect(errors(r)[0].line).toBe(3);
  });
  it('maxQuads bounds what is kept, with a warning', async () => {
    const body = `<${EX}a> <${EX}p> <${EX}o> .\n`.repeat(50);
    const r = await extractText('application/n-triples', body, { maxQuads: 10 });
    expect(r.quads).toHaveLength(10);
    expect(r.diagnostics.map((d) => d.level)).toEqual(['warning']);
  });
});

describe('wrong or generic media types are sniffed', () => {
  const rdfxml = `<?xml version="1.0"?><rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}"><rdf:Description rdf:about="${EX}a"><ex:p>1</ex:p></rdf:Description></rdf:RDF>`;
  it('RDF/XML served as text/plain, as application/xml and as text/turtle', async () => {
    for (const type of ['text/plain', 'application/xml', 'text/turtle', 'application/octet-stream']) {
      const r = await extractText(type, rdfxml);
      expect(lines(r.quads), type).toEqual([`${EX}a ${EX}p 1`]);
      expect(errors(r), type).toEqual([]);
    }
  });
  it('Turtle served as application/octet-stream and as text/html', async () => {
    for (const type of ['application/octet-stream', 'text/html']) {
      const r = await extractText(type, `# a comment\n@prefix ex: <${EX}> .\nex:a ex:p ex:o .`);
      expect(lines(r.quads), type).toEqual([`${EX}a ${EX}p ${EX}o`]);
      expect(r.diagnostics[0].message).toContain('sniffed');
    }
  });
  it('N-Triples as text/plain, JSON-LD as text/plain; Turtle starting with [] stays Turtle', async () => {
    expect((await extractText('text/plain', `<${EX}a> <${EX}p> "x" .\n`)).quads).toHaveLength(1);
    expect((await extractText('text/plain', `{"@id": "${EX}a", "${EX}p": "x"}`)).quads).toHaveLength(1);
    expect((await extractText('text/turtle', `[] <${EX}p> "x" .`)).quads).toHaveLength(1);
  });
  it('text/plain prose gives nothing and no error', async () => {
    expect(await extractText('text/plain', 'Just some words.')).toEqual({ quads: [], links: [], diagnostics: [] });
  });
});

describe('charset', () => {
  it('an ISO-8859-1 Turtle literal is decoded by the HTTP charset', async () => {
    const body = iconv.encode(`<${EX}a> <${EX}name> "Müller, Señor, café" .`, 'latin1');
    expect(body.includes(0xfc)).toBe(true);
    const r = await extract8859(body);
    expect(r.quads[0].object.value).toBe('Müller, Señor, café');
  });
  it('an RDF/XML encoding declaration is honoured when HTTP gives no charset', async () => {
    const body = iconv.encode(`<?xml version="1.0" encoding="ISO-8859-1"?><rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}"><rdf:Description rdf:about="${EX}a"><ex:p>Zürich</ex:p></rdf:Description></rdf:RDF>`, 'latin1');
    const r = await extractText('application/rdf+xml', body);
    expect(r.quads[0].object.value).toBe('Zürich');
  });
  it('RDF formats read the charset labels browsers know, as HTML does (x-cp1252 is windows-1252)', async () => {
    const body = iconv.encode(`<${EX}a> <${EX}name> "“quoted” €5" .`, 'windows-1252');
    for (const charset of ['x-cp1252', 'latin-1']) {
      const r = await extract({ url: `${EX}doc`, mediaType: 'text/turtle', charset, body, headers: {} }, { maxQuads: 100 });
      expect(r.quads[0].object.value).toBe('“quoted” €5');
    }
  });
});

function extract8859(body: Buffer) {
  return extract({ url: `${EX}doc`, mediaType: 'text/turtle', charset: 'ISO-8859-1', body, headers: {} }, { maxQuads: 100 });
}

describe('10 MB single-line documents end with a bounded result, never a crash', () => {
  const MB10 = 10 * 1024 * 1024;
  it('Turtle: many triples on one line stop at maxQuads', async () => {
    const r = await extractText('text/turtle', `@prefix ex: <${EX}> . ${'ex:s ex:p ex:o . '.repeat(MB10 / 17)}`, { maxQuads: 1000 });
    expect(r.quads).toHaveLength(1000);
    expect(r.diagnostics[0].message).toContain('maxQuads');
  });
  it('Turtle: one unterminated 10 MB literal is a diagnostic', async () => {
    const r = await extractText('text/turtle', `<${EX}s> <${EX}p> "${'x'.repeat(MB10)}`);
    expect(r.quads).toEqual([]);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0].message.length).toBeLessThan(400);
  });
  it('RDF/XML: a 10 MB line of elements stops at maxQuads', async () => {
    const r = await extractText('application/rdf+xml', `<rdf:RDF xmlns:rdf="${RDFNS}" xmlns:ex="${EX}">${`<rdf:Description rdf:about="${EX}s"><ex:p>v</ex:p></rdf:Description>`.repeat(MB10 / 80)}</rdf:RDF>`, { maxQuads: 1000 });
    expect(r.quads).toHaveLength(1000);
    expect(r.diagnostics.some((d) => d.message.includes('maxQuads'))).toBe(true);
  });
  it('JSON-LD: one 10 MB string value on one line', async () => {
    const r = await extractText('application/ld+json', `{"@id": "${EX}s", "${EX}p": "${'x'.repeat(MB10)}"`);
    expect(r.quads).toEqual([]);
    expect(errors(r)).toHaveLength(1);
  });
});
