import { describe, expect, it } from 'vitest';
import { acceptedMediaTypes, chooseExtractor, extract, extractorFor } from '../../src/extract/registry.ts';

describe('the registry always has its HTML extractors', () => {
  // First in this file, before any extract() call. They used to be imported on the first extract() call, and an import that failed left the crawl
  // running with no HTML, RDFa or microdata extraction and only a warning on the console.
  it('serves HTML, XHTML and SVG from the moment it is imported, before any extract()', () => {
    for (const type of ['text/html', 'application/xhtml+xml', 'image/svg+xml']) expect(extractorFor(`${type}; charset=utf-8`)?.name, type).toBe('html');
    expect(extractorFor('application/xml')?.name).toBe('xml-embedded');
    expect(acceptedMediaTypes()).toEqual(expect.arrayContaining(['text/html', 'application/xhtml+xml']));
    expect(chooseExtractor({ mediaType: 'application/octet-stream', body: Buffer.from('<!DOCTYPE html><html><body><p>x</p></body></html>') })?.extractor.name).toBe('html');
  });
});

describe('the registry routes XML by its root element', () => {
  it('sends an rdf:RDF embedded in other XML to the embedded-RDF extractor, not the RDF/XML parser', async () => {
    const body = Buffer.from(`<?xml version="1.0"?>
<doc xmlns="http://example.org/doc#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <title>A report</title>
  <rdf:RDF><rdf:Description rdf:about="http://example.org/report"><dc:title>A report</dc:title></rdf:Description></rdf:RDF>
</doc>`);
    const r = await extract({ url: 'http://example.org/report.xml', mediaType: 'application/xml', body, headers: {} }, { maxQuads: 1000 });
    expect(r.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
    expect(r.quads.map((q) => [q.subject.value, q.predicate.value, q.object.value])).toContainEqual(['http://example.org/report', 'http://purl.org/dc/elements/1.1/title', 'A report']);
  });

  it('still reads a document whose root is rdf:RDF as RDF/XML, whatever type it was served as', async () => {
    const body = Buffer.from(`<?xml version="1.0"?><!-- a comment --><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/"><rdf:Description rdf:about="http://example.org/a"><dc:title>x</dc:title></rdf:Description></rdf:RDF>`);
    const r = await extract({ url: 'http://example.org/a', mediaType: 'text/xml', body, headers: {} }, { maxQuads: 1000 });
    expect(r.quads).toHaveLength(1);
  });
});
