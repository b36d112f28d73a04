import { describe, it, expect } from 'vitest';
import { run, lines, objects, DM, DCT, XHV } from './helpers.ts';

const DOC = 'http://www.foo.com/current.html';

describe('the page as triples (docs/vocabulary.md)', () => {
  it('maps title and META description/keywords/author/robots to Dublin Core and dm:', async () => {
    const r = await run(`<html><head><title> RDF  Crawler </title>
      <META NAME="description" CONTENT="A draft specification for an RDF Crawler tool.">
      <META NAME="keywords" CONTENT="RDF,crawler, metainformation">
      <meta name="author" content="Jane Doe"><meta name="robots" content="INDEX,FOLLOW">
      <meta name="generator" content="vim"></head></html>`, { url: DOC });
    expect(r.title).toBe('RDF Crawler');
    expect(objects(r, DOC, `${DCT}title`)).toEqual(['RDF Crawler']);
    expect(objects(r, DOC, `${DCT}description`)).toEqual(['A draft specification for an RDF Crawler tool.']);
    expect(objects(r, DOC, `${DCT}subject`)).toEqual(['RDF', 'crawler', 'metainformation']);
    expect(objects(r, DOC, `${DCT}creator`)).toEqual(['Jane Doe']);
    expect(objects(r, DOC, `${DM}robots`)).toEqual(['index,follow']);
    const [meta] = objects(r, DOC, `${DM}meta`);
    expect(objects(r, meta, `${DM}name`)).toEqual(['generator']);
    expect(objects(r, meta, `${DM}content`)).toEqual(['vim']);
  });

  it('records LINK rel forwards and rev backwards (seed 003: Glossary, Subsection)', async () => {
    const r = await run(`<head><LINK REL="Glossary" HREF="foo.html"> <LINK REV="Subsection" HREF="bar.html">
      <link rel="http://example.org/rel/custom canonical" href="/c"></head>`, { url: DOC });
    expect(lines(r)).toContain(`<${DOC}> <${XHV}glossary> <http://www.foo.com/foo.html>`);
    expect(lines(r)).toContain(`<http://www.foo.com/bar.html> <${XHV}subsection> <${DOC}>`);
    expect(lines(r)).toContain(`<${DOC}> <http://example.org/rel/custom> <http://www.foo.com/c>`);
    expect(lines(r)).toContain(`<${DOC}> <http://www.iana.org/assignments/relation/canonical> <http://www.foo.com/c>`);
  });

  it('does not state an XHTML relation twice when RDFa (XHTML profile) already did', async () => {
    const r = await run(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><link rel="next" href="p2.html"/></head><body/></html>`,
      { url: DOC, mediaType: 'application/xhtml+xml' });
    expect(lines(r).filter((l) => l.includes(`${XHV}next`))).toEqual([`<${DOC}> <${XHV}next> <http://www.foo.com/p2.html>`]);
  });

  it('records each anchor as dm:linksTo plus a dm:anchor node with its text', async () => {
    const r = await run(`<p><a href="y1.html">Authors</a>; <a href="y2.html">Copyright</a>; <a href="y1.html">Authors</a>
      <a href="#top">top</a> <a href="javascript:void(0)">js</a></p>`, { url: 'http://www.foo.com/x.html' });
    expect(objects(r, 'http://www.foo.com/x.html', `${DM}linksTo`)).toEqual(['http://www.foo.com/y1.html', 'http://www.foo.com/y2.html']);
    const anchors = objects(r, 'http://www.foo.com/x.html', `${DM}anchor`);
    expect(anchors).toHaveLength(2);
    expect(anchors.map((a) => `${objects(r, a, `${DM}target`)[0]} ${objects(r, a, `${DM}text`)[0]}`))
      .toEqual(['http://www.foo.com/y1.html Authors', 'http://www.foo.com/y2.html Copyright']);
  });
});

describe('links for the crawler', () => {
  it('returns anchors with anchor text and surrounding words, resolved against <base href>', async () => {
    const before = 'one two three four five six seven eight nine ten eleven twelve';
    const r = await run(`<head><base href="http://mirror.example/docs/"></head><body><p>${before} <a href="sub/page.html">the <b>Page</b></a> alpha beta</p><p>gamma</p></body>`);
    const link = r.links.find((l) => l.kind === 'anchor')!;
    expect(link.url).toBe('http://mirror.example/docs/sub/page.html');
    expect(link.anchorText).toBe('the Page');
    expect(link.context).toBe('three four five six seven eight nine ten eleven twelve the Page alpha beta gamma');
  });

  it('respects xml:base for links in XML', async () => {
    const r = await run(`<feed xml:base="http://x.example/a/"><entry xml:base="b/"><link rel="alternate" type="text/turtle" href="data.ttl"/></entry></feed>`,
      { mediaType: 'application/xml' });
    expect(r.links).toEqual([{ url: 'http://x.example/a/b/data.ttl', kind: 'alternate', rel: 'alternate' }]);
  });

  it('follows <link rel=alternate> to RDF and rel=meta, not stylesheets', async () => {
    const r = await run(`<head><link rel="alternate" type="text/turtle" href="/data.ttl">
      <link rel="alternate" type="application/ld+json; charset=utf-8" href="/data.jsonld">
      <link rel="meta" href="meta.rdf"><link rel="MetaInfo" type="text/rdf" href="xfiles.rdf">
      <link rel="stylesheet" href="s.css"><link rel="alternate" hreflang="de" href="/de/"></head>`, { url: DOC });
    expect(r.links.filter((l) => l.kind === 'alternate').map((l) => l.url)).toEqual([
      'http://www.foo.com/data.ttl', 'http://www.foo.com/data.jsonld', 'http://www.foo.com/meta.rdf', 'http://www.foo.com/xfiles.rdf',
    ]);
    expect(objects(r, 'http://www.foo.com/data.ttl', `${DCT}format`)).toEqual(['text/turtle']);
  });

  it('follows and records HTTP Link: headers to RDF', async () => {
    const r = await run('<p>hi</p>', {
      url: DOC,
      headers: { link: '<meta.rdf>; rel="meta"; type="application/rdf+xml", </s.css>; rel=stylesheet, <http://o.example/d.ttl>; rel="alternate"; type="text/turtle"; title="a, b"' },
    });
    expect(r.links).toEqual([
      { url: 'http://www.foo.com/meta.rdf', kind: 'header', rel: 'meta' },
      { url: 'http://o.example/d.ttl', kind: 'header', rel: 'alternate' },
    ]);
    expect(lines(r)).toContain(`<${DOC}> <${XHV}alternate> <http://o.example/d.ttl>`);
    expect(lines(r)).toContain(`<${DOC}> <${XHV}meta> <http://www.foo.com/meta.rdf>`);
  });

  it('marks rel=nofollow anchors as links not to follow but keeps them as triples', async () => {
    const r = await run('<a href="/ad" rel="nofollow sponsored">ad</a><a href="/ok">ok</a>', { url: DOC });
    expect(r.links.filter((l) => !l.nofollow).map((l) => l.url)).toEqual(['http://www.foo.com/ok']);
    expect(r.links.filter((l) => l.nofollow).map((l) => l.url)).toEqual(['http://www.foo.com/ad']);
    expect(r.nofollowTargets).toEqual(['http://www.foo.com/ad']);
    expect(objects(r, DOC, `${DM}linksTo`)).toContain('http://www.foo.com/ad');
  });

  it('META robots noindex keeps no triples, nofollow follows no links', async () => {
    const page = (content: string) => `<head><meta name="robots" content="${content}"></head><body><a href="/x">x</a><p about="#a" property="http://ex.org/p">v</p></body>`;
    const noindex = await run(page('NOINDEX,FOLLOW'));
    expect(noindex.robots).toEqual({ noindex: true, nofollow: false });
    expect(noindex.quads).toEqual([]);
    expect(noindex.links).toHaveLength(1);
    const nofollow = await run(page('index, nofollow'));
    expect(nofollow.robots).toEqual({ noindex: false, nofollow: true });
    expect(nofollow.links.map((l) => [l.url, l.nofollow])).toEqual([['http://example.org/x', true]]);
    expect(nofollow.quads.length).toBeGreaterThan(0);
    const none = await run(page('none'));
    expect(none.robots).toEqual({ noindex: true, nofollow: true });
  });

  it('gives the page text without title, scripts and styles', async () => {
    const r = await run('<title>T</title><style>p{}</style><script>var x = 1;</script><h1>Head</h1><p>Body &amp; more</p>');
    expect(r.text).toBe('Head Body & more');
    expect(r.title).toBe('T');
  });
});
