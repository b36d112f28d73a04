import { describe, it, expect } from 'vitest';
import { run, lines, objects } from './helpers.ts';

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const DC = 'http://purl.org/dc/elements/1.1/';

describe('RDFa, microdata and script data blocks in HTML', () => {
  it('extracts RDFa 1.1 with the HTML profile and the document base', async () => {
    const r = await run(`<!DOCTYPE html><html prefix="dc: ${DC}"><head><base href="http://other.example/base/"></head>
      <body><p about="photo1.jpg" property="dc:creator">Mark Birbeck</p></body></html>`);
    expect(lines(r)).toContain(`<http://other.example/base/photo1.jpg> <${DC}creator> "Mark Birbeck"`);
  });

  it('extracts RDFa from SVG and from generic XML', async () => {
    const svg = await run(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:dc="${DC}"><metadata about="#me" property="dc:title">A yellow rectangle</metadata></svg>`,
      { mediaType: 'image/svg+xml', url: 'http://example.org/pic.svg' });
    expect(objects(svg, 'http://example.org/pic.svg#me', `${DC}title`)).toEqual(['A yellow rectangle']);
    const xml = await run(`<?xml version="1.0"?><root xml:base="http://base.example/x/" prefix="dc: ${DC}"><item about="a" property="dc:title">T</item></root>`,
      { mediaType: 'application/xml' });
    expect(objects(xml, 'http://base.example/x/a', `${DC}title`)).toEqual(['T']);
  });

  it('extracts microdata', async () => {
    const r = await run(`<div itemscope itemtype="http://schema.org/Person" itemid="http://example.org/jane"><span itemprop="name">Jane Doe</span></div>`);
    expect(objects(r, 'http://example.org/jane', `${RDF}type`)).toEqual(['http://schema.org/Person']);
    expect(objects(r, 'http://example.org/jane', 'http://schema.org/name')).toEqual(['Jane Doe']);
  });

  it('extracts JSON-LD script blocks against the document base, each block with its own blank nodes', async () => {
    const block = (value: string) => `<script type="application/ld+json">{"@id": "_:b0", "http://ex.org/p": {"@id": "rel/${value}"}}</script>`;
    const r = await run(`<html><head><base href="http://b.example/">${block('one')}${block('two')}</head></html>`);
    const quads = r.quads.filter((q) => q.predicate.value === 'http://ex.org/p');
    expect(quads.map((q) => q.object.value).sort()).toEqual(['http://b.example/rel/one', 'http://b.example/rel/two']);
    expect(quads[0].subject.termType).toBe('BlankNode');
    expect(quads[0].subject.equals(quads[1].subject)).toBe(false);
  });

  it('extracts Turtle script blocks and reports a broken JSON-LD block as a diagnostic', async () => {
    const r = await run(`<script type="text/turtle">@prefix ex: <http://ex.org/> . ex:a ex:b "c" .</script>
      <script type="application/ld+json">{"@id": </script><p>still here</p>`);
    expect(lines(r)).toContain('<http://ex.org/a> <http://ex.org/b> "c"');
    expect(r.diagnostics.some((d) => d.level === 'error' && d.message.includes('JSON-LD'))).toBe(true);
    expect(r.text).toContain('still here');
  });

  it('never fetches a remote JSON-LD context by itself; uses the crawler loader when given', async () => {
    const page = `<script type="application/ld+json">{"@context": "http://127.0.0.1:9/ctx.jsonld", "@id": "http://ex.org/a", "name": "A"}</script>`;
    const without = await run(page);
    expect(objects(without, 'http://ex.org/a', 'http://schema.org/name')).toEqual([]);
    expect(without.diagnostics.some((d) => d.message.includes('JSON-LD'))).toBe(true);
    const asked: string[] = [];
    const withLoader = await run(page, { ctx: { loadDocument: async (url) => { asked.push(url); return { '@context': { name: 'http://schema.org/name' } }; } } });
    expect(asked).toEqual(['http://127.0.0.1:9/ctx.jsonld']);
    expect(objects(withLoader, 'http://ex.org/a', 'http://schema.org/name')).toEqual(['A']);
  });
});

describe('RDF/XML embedded in HTML and XML', () => {
  it('parses an rdf:RDF element in the body, keeping the case of its names', async () => {
    const r = await run(`<html><body><p>x</p><rdf:RDF xmlns:rdf="${RDF}" xmlns:foaf="http://xmlns.com/foaf/0.1/">
      <foaf:Person rdf:about="http://example.org/ora"><foaf:firstName>Ora</foaf:firstName></foaf:Person></rdf:RDF><p>after</p></body></html>`);
    expect(objects(r, 'http://example.org/ora', 'http://xmlns.com/foaf/0.1/firstName')).toEqual(['Ora']);
    expect(objects(r, 'http://example.org/ora', `${RDF}type`)).toEqual(['http://xmlns.com/foaf/0.1/Person']);
    // RDF/XML is not RDFa: nothing of the island leaks out as RDFa or page text.
    expect(r.text).not.toContain('Ora');
  });

  it('parses rdf:RDF inside an HTML comment with namespaces declared outside it (seed 003)', async () => {
    const r = await run(`<html xmlns:dc="${DC}"><head><!--
      <rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="http://www.foo.com/current.html" dc:title="Hidden"/></rdf:RDF>
      --></head></html>`);
    expect(objects(r, 'http://www.foo.com/current.html', `${DC}title`)).toEqual(['Hidden']);
  });

  it('reads the 1999 unqualified about= of old pages, with a warning', async () => {
    const r = await run(`<rdf:RDF xmlns:rdf="${RDF}" xmlns:htmlmeta="http://traditional.html.meta.properties#">
      <rdf:Description about="http://www.foo.com/current.html" htmlmeta:robots="noindex,follow"/></rdf:RDF>`);
    expect(objects(r, 'http://www.foo.com/current.html', 'http://traditional.html.meta.properties#robots')).toEqual(['noindex,follow']);
    expect(r.diagnostics.some((d) => d.message.includes('unqualified'))).toBe(true);
  });

  it('parses rdf:RDF embedded in other XML with the ancestors\' namespaces and xml:base', async () => {
    const r = await run(`<?xml version="1.0"?><doc xmlns:ex="http://ex.org/ns#" xmlns:rdf="${RDF}" xml:base="http://base.example/d/">
      <section><rdf:RDF><rdf:Description rdf:about="thing"><ex:label>Thing</ex:label></rdf:Description></rdf:RDF></section></doc>`,
      { mediaType: 'application/xml' });
    expect(objects(r, 'http://base.example/d/thing', 'http://ex.org/ns#label')).toEqual(['Thing']);
  });

  it('keeps DTD entities of an XML document whose rdf:RDF uses them, and bounds entity expansion', async () => {
    const ok = await run(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [ <!ENTITY ex "http://ex.org/ns#"> ]>
      <rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="&ex;a"><rdf:value>v</rdf:value></rdf:Description></rdf:RDF>`,
      { mediaType: 'application/xml' });
    expect(objects(ok, 'http://ex.org/ns#a', `${RDF}value`)).toEqual(['v']);
    const laughs = ['<!ENTITY l0 "lollollollollollollollollollol">'];
    for (let i = 1; i < 10; i++) laughs.push(`<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`);
    const bomb = await run(`<?xml version="1.0"?><!DOCTYPE rdf:RDF [ ${laughs.join(' ')} ]>
      <rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="http://ex.org/a"><rdf:value>&l9;</rdf:value></rdf:Description></rdf:RDF>`,
      { mediaType: 'application/xml' });
    expect(bomb.quads.every((q) => q.object.value.length < 1_000_000)).toBe(true);
    expect(bomb.diagnostics.some((d) => d.level === 'error')).toBe(true);
  });

  it('reports a broken island and keeps the rest of the page', async () => {
    const r = await run(`<html prefix="dc: ${DC}"><body><rdf:RDF xmlns:rdf="${RDF}"><rdf:Description rdf:about="x" rdf:nodeID="y"/></rdf:RDF>
      <p about="http://ex.org/ok" property="dc:title">fine</p></body></html>`);
    expect(r.diagnostics.some((d) => d.level === 'error' && d.message.includes('embedded RDF/XML'))).toBe(true);
    expect(objects(r, 'http://ex.org/ok', `${DC}title`)).toEqual(['fine']);
  });
});
