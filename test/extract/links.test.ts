import { describe, expect, it } from 'vitest';
import { linksFromQuads, namespaceOf } from '../../src/extract/links.ts';
import { extractText } from './helpers.ts';

describe('linksFromQuads', () => {
  it('IRIs in subject/object position and vocabularies of predicates and classes, once each', async () => {
    const r = await extractText('text/turtle', `
      @prefix foaf: <http://xmlns.com/foaf/0.1/> .
      @prefix schema: <http://schema.org/> .
      <http://a.example/me> a foaf:Person, schema:Person ;
        foaf:knows <http://b.example/you>, <mailto:x@y.z> ;
        foaf:name "Me" ;
        <http://purl.org/dc/terms/creator> <http://a.example/me> .
      <http://b.example/you> <http://www.w3.org/2004/02/skos/core#related> _:x .`);
    const links = linksFromQuads(r.quads);
    expect(links.filter((l) => l.kind === 'iri').map((l) => l.url).sort()).toEqual([
      'http://a.example/me',
      'http://b.example/you',
    ]);
    // Classes are vocabulary, like the namespaces: --no-vocabularies drops them all.
    expect(links.filter((l) => l.kind === 'vocabulary').map((l) => l.url).sort()).toEqual([
      'http://purl.org/dc/terms/',
      'http://schema.org/',
      'http://schema.org/Person',
      'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
      'http://www.w3.org/2004/02/skos/core#',
      'http://xmlns.com/foaf/0.1/',
      'http://xmlns.com/foaf/0.1/Person',
    ]);
  });
  it('namespaceOf cuts after the last # or /, never inside the scheme', () => {
    expect(namespaceOf('http://xmlns.com/foaf/0.1/name')).toBe('http://xmlns.com/foaf/0.1/');
    expect(namespaceOf('http://www.w3.org/2004/02/skos/core#related')).toBe('http://www.w3.org/2004/02/skos/core#');
    expect(namespaceOf('http://example.org')).toBeUndefined();
  });
});
