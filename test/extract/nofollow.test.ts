import { describe, expect, it } from 'vitest';
import { extract } from '../../src/extract/registry.ts';
import { documentLinks } from '../../src/extract/links.ts';
import type { ExtractResult, FoundLink } from '../../src/extract/types.ts';

const PAGE = 'http://shop.example/catalogue/page.html';

function extractDoc(mediaType: string, body: string, headers: Record<string, string> = {}, url = PAGE): Promise<ExtractResult> {
  return extract({ url, mediaType, body: Buffer.from(body), headers }, { maxQuads: 100_000 });
}

/** What the crawl would follow: the links not marked nofollow. */
const followed = (links: FoundLink[]) => [...new Set(links.filter((l) => !l.nofollow).map((l) => l.url))].sort();
const unfollowed = (links: FoundLink[]) => [...new Set(links.filter((l) => l.nofollow).map((l) => l.url))].sort();

/**
 * A page shaped like the wild: RDFa about a person (blank-node address, links to other hosts), a
 * JSON-LD block, navigation, comments with user links (rel="nofollow ugc"), a sponsored image map,
 * an alternate that is nofollow, and a target linked both ways.
 */
function shopPage(head = ''): string {
  return `<!doctype html>
<html><head><title>Catalogue</title>
<meta name="description" content="Things we sell">${head}
<link rel="alternate" type="text/turtle" href="/catalogue/page.ttl">
<link rel="alternate nofollow" type="application/rdf+xml" href="http://tracker.example/page.rdf">
<script type="application/ld+json">{"@context": {"schema": "http://schema.org/"}, "@id": "http://shop.example/#org",
  "@type": "schema:Organization", "schema:sameAs": {"@id": "http://wikidata.example/Q1"},
  "schema:address": {"schema:street": "1 Main St", "schema:city": "Town"}}</script>
</head><body vocab="http://xmlns.com/foaf/0.1/">
<div about="http://shop.example/people/ann" typeof="Person">
  <span property="name">Ann</span>
  <a rel="knows" href="http://people.example/bob">Bob</a>
  <div rel="based_near"><span property="name">Somewhere</span></div>
</div>
<nav><a href="/catalogue/2">next</a> <a href="http://partner.example/">partner</a></nav>
<section class="comments">
  <p>Great! <a href="http://spam.example/buy" rel="nofollow ugc">cheap pills</a></p>
  <p>See <a href="http://forum.example/t/1" rel="UGC NoFollow">this thread</a></p>
  <p>Also <a href="http://partner.example/" rel="nofollow">partner again</a></p>
</section>
<map name="m"><area href="http://ads.example/banner" rel="sponsored nofollow" alt="ad"></map>
</body></html>`;
}

describe('rel="nofollow"', () => {
  it('nofollow links are recorded as triples, marked nofollow, and their link triples are not followed', async () => {
    const r = await extractDoc('text/html', shopPage());
    const links = documentLinks(r);
    const nofollowTargets = ['http://ads.example/banner', 'http://forum.example/t/1', 'http://spam.example/buy', 'http://tracker.example/page.rdf'];
    // Recorded: the page's link triples still name them.
    const objects = new Set(r.quads.map((q) => q.object.value));
    for (const url of nofollowTargets) expect(objects.has(url), url).toBe(true);
    // Not followed from anywhere: neither as an anchor nor as an IRI of the link triple.
    for (const url of nofollowTargets) expect(followed(links), url).not.toContain(url);
    expect(unfollowed(links)).toEqual(nofollowTargets);
    // The rest of the page is followed as before, data included; a target also linked without nofollow is followed.
    expect(followed(links)).toEqual(expect.arrayContaining([
      'http://partner.example/', 'http://people.example/bob', 'http://shop.example/catalogue/2', 'http://shop.example/catalogue/page.ttl',
      'http://shop.example/people/ann', 'http://wikidata.example/Q1',
    ]));
  });

  it('a Link: header with rel="nofollow" is marked too', async () => {
    const r = await extractDoc('text/html', '<title>t</title>', { link: '<http://data.example/page.ttl>; rel="alternate nofollow"; type="text/turtle"' });
    const links = documentLinks(r);
    expect(unfollowed(links)).toEqual(['http://data.example/page.ttl']);
    expect(followed(links)).not.toContain('http://data.example/page.ttl');
  });
});

describe('META robots and X-Robots-Tag nofollow hold for every link of the page', () => {
  it('META robots nofollow: every link is marked, the IRIs of the data and the vocabularies included', async () => {
    const r = await extractDoc('text/html', shopPage('<meta name="robots" content="index, nofollow">'));
    const links = documentLinks(r);
    expect(links.length).toBeGreaterThan(10);
    expect(followed(links)).toEqual([]);
    expect(r.quads.length).toBeGreaterThan(10); // index: the triples are kept
  });

  it('META with our own robot name counts, another robot\'s name does not', async () => {
    const ours = documentLinks(await extractDoc('text/html', shopPage('<meta name="datamonitor" content="nofollow">')));
    expect(followed(ours)).toEqual([]);
    const theirs = documentLinks(await extractDoc('text/html', shopPage('<meta name="googlebot" content="nofollow">')));
    expect(followed(theirs)).toContain('http://people.example/bob');
  });

  const turtle = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix ex: <http://example.org/ns#> .
<http://data.example/people/ann> a foaf:Person ; foaf:name "Ann" ;
  foaf:knows <http://people.example/bob>, [ a foaf:Person ; foaf:name "Cy" ; foaf:homepage <http://cy.example/> ] ;
  ex:address [ ex:street "1 Main St" ; ex:city <http://places.example/town> ] .
<http://people.example/bob> foaf:knows <http://data.example/people/ann> .`;

  it('X-Robots-Tag: nofollow on a Turtle document marks every link', async () => {
    const r = await extractDoc('text/turtle', turtle, { 'x-robots-tag': 'nofollow' }, 'http://data.example/people/ann');
    expect(r.robots).toEqual({ noindex: false, nofollow: true });
    const links = documentLinks(r);
    expect(links.length).toBeGreaterThan(5);
    expect(followed(links)).toEqual([]);
    expect(r.quads.length).toBe(11);
  });

  it('X-Robots-Tag for another robot is not ours; for ours, or "none", it is', async () => {
    const google = await extractDoc('text/turtle', turtle, { 'x-robots-tag': 'googlebot: noindex, nofollow' });
    expect(followed(documentLinks(google))).toContain('http://people.example/bob');
    expect(google.quads.length).toBe(11);
    const ours = await extractDoc('text/turtle', turtle, { 'x-robots-tag': 'max-snippet: 20, datamonitor: noindex' });
    expect(ours.quads).toEqual([]);
    expect(ours.diagnostics.map((d) => d.message)).toContain('X-Robots-Tag noindex: no triples kept');
    const none = await extractDoc('text/html', shopPage(), { 'x-robots-tag': 'none' });
    expect(none.quads).toEqual([]);
    expect(followed(documentLinks(none))).toEqual([]);
  });
});

describe('vocabulary links', () => {
  it('a plain HTML page asks for no vocabulary: the HTML-as-triples terms are ours', async () => {
    const r = await extractDoc('text/html', `<!doctype html><html><head><title>News</title>
      <meta name="description" content="d"><meta name="author" content="me"><meta name="keywords" content="a, b">
      <meta name="robots" content="index"><meta name="viewport" content="width=device-width">
      <link rel="stylesheet" href="/s.css"><link rel="license" href="http://licenses.example/by">
      <link rel="next" href="/2"></head>
      <body><a href="/a">A</a> <a href="http://other.example/b">B</a></body></html>`);
    const links = documentLinks(r);
    expect(links.filter((l) => l.kind === 'vocabulary')).toEqual([]);
    expect(followed(links)).toEqual(expect.arrayContaining(['http://other.example/b', 'http://shop.example/a', 'http://licenses.example/by']));
  });

  it("the page's own data still leads to its vocabularies (RDFa and JSON-LD, even when they use dcterms)", async () => {
    const r = await extractDoc('text/html', shopPage().replace('<span property="name">Ann</span>', '<span property="http://purl.org/dc/terms/title">Ann</span>'));
    const vocabularies = documentLinks(r).filter((l) => l.kind === 'vocabulary').map((l) => l.url).sort();
    expect(vocabularies).toEqual([
      'http://purl.org/dc/terms/', 'http://schema.org/', 'http://schema.org/Organization', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
      'http://xmlns.com/foaf/0.1/', 'http://xmlns.com/foaf/0.1/Person',
    ]);
  });

  it('class IRIs are vocabulary links, never plain links (so --no-vocabularies drops them), also when seen first as a node', async () => {
    const r = await extractDoc('text/turtle', `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
      @prefix owl: <http://www.w3.org/2002/07/owl#> .
      <http://data.example/note> <http://purl.org/dc/terms/subject> foaf:Person .
      <http://data.example/ann> a foaf:Person, <http://classes.example/Member> ; foaf:knows [ a foaf:Agent ] .
      <http://classes.example/Member> a owl:Class .`, {}, 'http://data.example/doc');
    const links = documentLinks(r);
    const kinds = new Map(links.map((l) => [l.url, l.kind]));
    for (const cls of ['http://xmlns.com/foaf/0.1/Person', 'http://xmlns.com/foaf/0.1/Agent', 'http://classes.example/Member', 'http://www.w3.org/2002/07/owl#Class']) {
      expect(kinds.get(cls), cls).toBe('vocabulary');
    }
    expect(links.filter((l) => l.kind === 'iri').map((l) => l.url).sort()).toEqual(['http://data.example/ann', 'http://data.example/note']);
    // Each URL once.
    expect(new Set(links.map((l) => l.url)).size).toBe(links.length);
  });
});
