import { describe, expect, it } from 'vitest';
import { formatLinkFormat, parseLinkFormat, parseLinkHeader } from '../../src/util/link-format.ts';
import { contextFromLinkHeader } from '../../src/extract/jsonld.ts';
import { extract } from '../../src/extract/registry.ts';

const CONTEXT_REL = 'http://www.w3.org/ns/json-ld#context';

describe('one reader of RFC 8288 link values for Link headers and TimeMaps', () => {
  it('reads a Link header as the extractors want it: rel tokens and the type essence, lower-cased', () => {
    const header = '<meta.rdf>; REL="Meta Alternate"; type="Application/RDF+XML; charset=utf-8", </s.css>; rel=stylesheet;rel=ignored, <d.ttl>; title="a, <b>; c"; rel="alternate"; type=text/turtle';
    expect(parseLinkHeader(header)).toEqual([
      { target: 'meta.rdf', rels: ['meta', 'alternate'], type: 'application/rdf+xml' },
      { target: '/s.css', rels: ['stylesheet'] },
      { target: 'd.ttl', rels: ['alternate'], type: 'text/turtle' },
    ]);
  });

  it('skips what is not a link in a fetched header and reads on, never throwing', () => {
    expect(parseLinkHeader('garbage, <http://a/ok>; rel=next, <http://a/bad>; rel="unterminated')).toEqual([{ target: 'http://a/ok', rels: ['next'] }]);
    expect(parseLinkHeader(undefined)).toEqual([]);
    expect(parseLinkHeader('')).toEqual([]);
  });

  it('reads back what it writes', () => {
    const links = [{ uri: 'http://a/1', params: { rel: 'first memento', datetime: 'Wed, 01 Jan 2020 00:00:00 GMT', title: 'say "hi"; \\ ok' } }];
    expect(parseLinkFormat(formatLinkFormat(links))).toEqual({ links, errors: [] });
  });

  it("takes a JSON-LD context from the link that names it, not from a quoted '<' in another link's title", () => {
    // The JSON-LD extractor had its own reader, which split the header at every ", <" even inside quotes.
    const header = `<http://ctx.example/wrong>; title="see, <http://ctx.example/evil>"; rel="${CONTEXT_REL}x", <http://ctx.example/right>; rel="${CONTEXT_REL}"`;
    expect(contextFromLinkHeader(header)).toBe('http://ctx.example/right');
    const tricky = `<http://ctx.example/a>; title="x, <http://ctx.example/evil>"; rel="${CONTEXT_REL}"`;
    expect(contextFromLinkHeader(tricky)).toBe('http://ctx.example/a');
    // Relation types compare case-insensitively (RFC 8288 §2.1).
    expect(contextFromLinkHeader(`<http://ctx.example/c>; rel="HTTP://WWW.W3.ORG/ns/json-ld#context"`)).toBe('http://ctx.example/c');
  });

  it('a Link header on an HTML page still gives its alternate RDF to the crawl', async () => {
    const r = await extract({ url: 'http://site.example/p', mediaType: 'text/html', body: Buffer.from('<title>t</title>'), headers: { link: '<d.ttl>; title="x, <nope.ttl>"; rel="alternate"; type="text/turtle"' } }, { maxQuads: 100 });
    expect(r.links.map((l) => l.url)).toContain('http://site.example/d.ttl');
    expect(r.links.map((l) => l.url)).not.toContain('http://site.example/nope.ttl');
  });
});
