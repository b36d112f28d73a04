import { afterEach, describe, expect, it } from 'vitest';
import diagnostics from 'node:diagnostics_channel';
import { crawl } from '../../src/crawler/crawl.ts';
import { scanWarc } from '../../src/archive/warc-scan.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { mementosOf } from '../../src/server/mementos.ts';
import { openStore } from '../../src/store/index.ts';
import { DEFAULT_ACCEPT } from '../../src/fetch/accept.ts';
import { advertisedAlternates, contentLocation, FRUITLESS_LIMIT, variesOnAccept } from '../../src/crawler/variants/discover.ts';
import { comparedGraph, difference } from '../../src/crawler/variants/compare.ts';
import { extract } from '../../src/extract/registry.ts';
import { startVariantSite, type VariantKind, type VariantSite } from '../../src/testkit/variant-site.ts';
import { crawlLog, LOADED_TIMEOUT_MS, tempDir, warcFiles } from '../helpers.ts';

/** The WARC records of a data directory: type, target, the request's Accept, the response's Content-Type and Content-Location. */
function records(dataDir: string) {
  const out: Array<{ type: string; uri: string; accept?: string; contentType?: string; contentLocation?: string }> = [];
  for (const file of warcFiles(dataDir)) {
    for (const r of scanWarc(file)) {
      if ('error' in r) throw new Error(r.error);
      const head = r.block.toString('latin1').split('\r\n\r\n')[0]!;
      const field = (name: string) => new RegExp(`^${name}: *(.*)$`, 'im').exec(head)?.[1]?.trim();
      out.push({ type: r.headers.get('warc-type')!, uri: r.headers.get('warc-target-uri')!, accept: field('accept'), contentType: field('content-type'), contentLocation: field('content-location') });
    }
  }
  return out;
}

const KINDS: VariantKind[] = ['honest', 'drops', 'ignores', 'lies', 'linked', 'honest', 'page', 'plain'];

describe('crawl --variants: every representation a server offers', () => {
  let site: VariantSite | undefined;
  afterEach(async () => site?.close());

  const run = async (variants: boolean, delayMs = 20, extra: Record<string, unknown> = {}) => {
    site = await startVariantSite({ documents: KINDS.length, kind: (i) => KINDS[i]! });
    const dataDir = tempDir();
    const summary = await crawl({ seeds: [site.seed], dataDir, delayMs, allowPrivate: true, vocabularies: false, depth: 10, domains: ['127.0.0.1'], variants, ...extra }).run();
    return { summary, dataDir, site };
  };

  it('fetches each representation once, archives each with its Accept and Content-Location, and finds the one that disagrees', async () => {
    const { summary, dataDir, site } = await run(true);
    const log = crawlLog(dataDir);
    const recs = records(dataDir);
    const responses = (i: number) => recs.filter((r) => r.type === 'response' && r.uri === site.documentUrl(i));
    const requests = (i: number) => recs.filter((r) => r.type === 'request' && r.uri === site.documentUrl(i));

    // An honest negotiating server: the document as Turtle, then JSON-LD, RDF/XML and HTML+RDFa, each its
    // own response record under the document's URL, its Accept in the request record and its Content-Location.
    expect(responses(0).map((r) => r.contentLocation).sort()).toEqual(['/doc/0.html', '/doc/0.jsonld', '/doc/0.rdf', '/doc/0.ttl']);
    expect(requests(0).map((r) => r.accept)).toEqual([DEFAULT_ACCEPT, 'application/ld+json', 'application/rdf+xml', 'text/html']);
    const rows0 = log.filter((e) => e.url === site.documentUrl(0));
    expect(rows0.filter((e) => e.reason === 'variant' && e.warc_file).map((e) => e.media_type).sort()).toEqual(['application/ld+json', 'application/rdf+xml', 'text/html']);
    // They all agree with the Turtle: same canonical graph hash as the document's row.
    const docRow = rows0.find((e) => e.reason === 'fetched')!;
    for (const e of rows0.filter((x) => x.reason === 'variant' && x.warc_file)) expect(e.graph_hash).toBe(docRow.graph_hash);
    // Asked for types it does not have (N-Triples, N-Quads, TriG) it answers Turtle: the same bytes, not archived, and the asking stops.
    const server0 = site.requestsFor(0).map((r) => r.headers.accept);
    expect(server0).toHaveLength(1 + 3 + FRUITLESS_LIMIT + 1);
    expect(server0.slice(-FRUITLESS_LIMIT)).toEqual(['application/n-quads', 'application/trig', 'text/n3'].slice(0, FRUITLESS_LIMIT));

    // The server whose JSON-LD drops a triple: a variant-mismatch row naming the triple, a warning diagnostic.
    const mismatch = log.filter((e) => e.reason === 'variant-mismatch');
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]!.url).toBe(site.documentUrl(1));
    expect(mismatch[0]!.media_type).toBe('application/ld+json');
    const lines: string[] = JSON.parse(mismatch[0]!.diagnostics);
    expect(lines.join('\n')).toMatch(/variant-mismatch: the graph of application\/ld\+json .* 1 of its \d+ triples missing, 0 extra/);
    expect(lines.join('\n')).toContain(`- ${site.dropped(1).replace(/ \.$/, '')}`);
    expect(summary.variants).toMatchObject({ mismatch: 1 });

    // A server that ignores Accept (but says Vary: Accept): the same bytes each time, archived once.
    expect(responses(2)).toHaveLength(1);
    expect(site.requestsFor(2)).toHaveLength(1 + FRUITLESS_LIMIT);
    expect(log.filter((e) => e.url === site.documentUrl(2) && e.reason === 'variant').every((e) => !e.warc_file && /same bytes/.test(e.diagnostics))).toBe(true);

    // A server that labels its RDF/XML text/turtle: parsed as what it is, archived, and no false disagreement.
    const lie = log.find((e) => e.url === site.documentUrl(3) && e.reason === 'variant' && /Accept: application\/rdf\+xml/.test(e.diagnostics ?? ''))!;
    expect(lie.media_type).toBe('text/turtle');
    expect(lie.diagnostics).toMatch(/served as \\"text\/turtle\\", parsed as application\/rdf\+xml/);
    expect(lie.graph_hash).toBe(log.find((e) => e.url === site.documentUrl(3) && e.reason === 'fetched')!.graph_hash);

    // Alternates advertised by Link headers: each fetched once, asking for its type, as a document of its own.
    for (const ext of ['jsonld', 'rdf', 'html']) {
      const hits = site.requests.filter((r) => r.path === `/doc/4.${ext}`);
      expect(hits).toHaveLength(1);
      expect(hits[0]!.headers.accept).toMatch(/^(application\/ld\+json|application\/rdf\+xml|text\/html), \*\/\*;q=0\.1$/);
      expect(log.filter((e) => e.url === `${site.documentUrl(4)}.${ext}`).map((e) => e.reason).sort()).toEqual(['fetched', 'variant']);
    }
    // No Vary: Accept there: the document's own URL is asked once.
    expect(site.requests.filter((r) => r.path === '/doc/4')).toHaveLength(1);

    // An HTML+RDFa page naming its Turtle and JSON-LD with <link rel="alternate">: both fetched once, both agree with its RDFa.
    for (const i of [6, 7]) {
      for (const [ext, type] of [['ttl', 'text/turtle'], ['jsonld', 'application/ld+json']]) {
        const hits = site.requests.filter((r) => r.path === `/doc/${i}.${ext}`);
        expect(hits.map((r) => r.headers.accept)).toEqual([`${type}, */*;q=0.1`]);
      }
      expect(site.requests.filter((r) => r.path === `/doc/${i}`)).toHaveLength(1);
    }
    const rowsOf = (i: number) => log.filter((e) => e.reason === 'variant' && e.url.startsWith(`${site.documentUrl(i)}.`));
    expect(rowsOf(6).map((e) => e.diagnostics)).toEqual([null, null]);
    // A page for people with no RDF of its own: the first alternate is what the others are compared with.
    expect(rowsOf(7)).toHaveLength(2);
    expect(rowsOf(7).filter((e) => /the document carries no RDF/.test(e.diagnostics ?? ''))).toHaveLength(1);
    expect(new Set(rowsOf(7).map((e) => e.graph_hash)).size).toBe(1);
    expect(summary.variants!.documents).toBe(KINDS.length);
  }, 120_000);

  it('records the disagreement in the provenance export as dm:variantMismatch', async () => {
    const { dataDir, site } = await run(true);
    const store = await openStore(dataDir);
    let out = '';
    try {
      await exportArchive(store, dataDir, 'nquads', (s) => (out += s), { provenance: true });
      // The representations' records read back intact beside the documents'.
      const report = await verifyArchive(dataDir, store);
      expect(report.problemCount).toBe(0);
      expect(report.records).toBeGreaterThan(KINDS.length);
      // Memento gives the document as the crawl took it: one memento, the Turtle, not its other representations.
      expect((await mementosOf(store, site.documentUrl(0))).map((m) => m.entry.mediaType)).toEqual(['text/turtle']);
    } finally {
      await store.close();
    }
    const facts = out.split('\n').filter((l) => l.includes('variantMismatch'));
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatch(new RegExp(`^<${site.documentUrl(1)}> <https://w3id.org/datamonitor/ns#variantMismatch> <https://w3id.org/datamonitor/ns#fetch/\\d+> <https://w3id.org/datamonitor/ns#provenance> \\.$`));
    const act = /<(https:\/\/w3id\.org\/datamonitor\/ns#fetch\/\d+)>/.exec(facts[0]!)![1];
    expect(out).toContain(`<${act}> <https://w3id.org/datamonitor/ns#contentLocation> <${site.documentUrl(1)}.jsonld>`);
    expect(out).toContain(`<${act}> <https://w3id.org/datamonitor/ns#mediaType> "application/ld+json"`);
  }, 120_000);

  it('spaces the requests for representations by the delay, like any request to the host', async () => {
    // Timed as each request is written to its connection (undici's own report), not where the server in
    // this process reads it: a loaded machine (#14) reads one late and the next on time, which says nothing
    // of the spacing. The crawl spaces a request from when the last one was written, so no slack is needed.
    const sent: Array<{ path: string; time: number }> = [];
    const onSend = (message: unknown) => {
      const { request } = message as { request: { path: string } };
      sent.push({ path: request.path, time: Date.now() });
    };
    diagnostics.subscribe('undici:client:sendHeaders', onSend);
    let seen: VariantSite['requests'];
    try {
      seen = (await run(true, 250)).site.requests;
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', onSend);
    }
    const pages = sent.filter((r) => r.path !== '/robots.txt');
    expect(pages.length).toBeGreaterThan(KINDS.length * 2);
    expect(seen.filter((r) => r.path !== '/robots.txt').map((r) => r.path).sort()).toEqual(pages.map((r) => r.path).sort());
    const times = pages.map((r) => r.time);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(250);
  }, LOADED_TIMEOUT_MS);

  it('without --variants nothing changes: one request per document, the preferred representation only', async () => {
    const { summary, dataDir, site } = await run(false);
    expect(summary.variants).toBeUndefined();
    for (let i = 0; i < KINDS.length; i++) {
      const own = site.requests.filter((r) => r.path === `/doc/${i}`);
      expect(own).toHaveLength(1);
      expect(own[0]!.headers.accept).toBe(DEFAULT_ACCEPT);
    }
    const log = crawlLog(dataDir);
    expect(log.some((e) => e.reason === 'variant' || e.reason === 'variant-mismatch')).toBe(false);
    // A Turtle document's Link: rel="alternate" headers are not followed, as before; an HTML page's <link
    // rel="alternate"> to RDF is followed as a link, once, with the default Accept.
    expect(site.requests.filter((r) => r.path.startsWith('/doc/4.'))).toHaveLength(0);
    const alternates = site.requests.filter((r) => /^\/doc\/\d+\./.test(r.path));
    expect(alternates.map((r) => r.path).sort()).toEqual(['/doc/6.jsonld', '/doc/6.ttl', '/doc/7.jsonld', '/doc/7.ttl']);
    expect(alternates.every((r) => r.headers.accept === DEFAULT_ACCEPT)).toBe(true);
  }, 120_000);

  it('counts the requests for representations against --max-docs', async () => {
    const { summary, site } = await run(true, 0, { maxDocs: 4 });
    expect(summary.stoppedBy).toBe('max-docs');
    const pages = site.requests.filter((r) => r.path !== '/robots.txt');
    // Documents and the representations asked of them together stay within the limit.
    expect(pages.length).toBeLessThanOrEqual(4);
    expect(summary.variants!.requests).toBeGreaterThan(0);
  }, 120_000);
});

describe('variants: discovery and comparison', () => {
  const doc = 'http://data.example/doc/1';

  it('finds the alternates a response and its HTML advertise, once each, only in types an extractor reads', async () => {
    const html = `<!DOCTYPE html><html><head><title>One</title>
      <link rel="alternate" type="text/turtle" href="/doc/1.ttl">
      <link rel="alternate" type="application/ld+json" href="1.jsonld">
      <link rel="alternate" type="application/atom+xml" href="/feed">
      <link rel="alternate" hreflang="fr" href="/fr/doc/1">
      <link rel="stylesheet" type="text/css" href="/s.css"></head><body><p>One</p></body></html>`;
    const headers: [string, string][] = [
      ['Link', '</doc/1.ttl>; rel="alternate"; type="text/turtle", <http://mirror.example/doc/1.rdf>; rel="alternate"; type="application/rdf+xml"'],
      ['Link', '</doc/1>; rel="alternate"; type="text/html", </doc/1.nt>; rel="describedby"; type="application/n-triples"'],
      ['Vary', 'Accept-Encoding'],
      ['Vary', 'accept'],
      ['Content-Location', '1.html'],
    ];
    const { quads } = await extract({ url: doc, mediaType: 'text/html', body: Buffer.from(html), headers: { link: headers.filter(([n]) => n === 'Link').map(([, v]) => v).join(', ') } }, { maxQuads: 10_000 });
    expect(advertisedAlternates(doc, headers, quads)).toEqual([
      { url: 'http://data.example/doc/1.ttl', type: 'text/turtle' },
      { url: 'http://mirror.example/doc/1.rdf', type: 'application/rdf+xml' },
      { url: 'http://data.example/doc/1.jsonld', type: 'application/ld+json' },
    ]);
    expect(variesOnAccept(headers)).toBe(true);
    expect(variesOnAccept([['Vary', 'Accept-Encoding, Accept-Language']])).toBe(false);
    expect(variesOnAccept([['Vary', '*']])).toBe(true);
    expect(contentLocation(headers, doc)).toBe('http://data.example/doc/1.html');
    expect(contentLocation([['Content-Location', 'mailto:x@example.org']], doc)).toBeUndefined();
  });

  it('compares the author\'s data only, reads an alternate\'s own IRIs as the document\'s, and counts what differs', async () => {
    const turtle = `@prefix s: <http://schema.org/> .\n<#me> a s:Person ; s:name "Ada"@en ; s:knows [ s:name "Bob" ] ; s:url <> .\n`;
    const jsonld = JSON.stringify({ '@id': '#me', '@type': 'http://schema.org/Person', 'http://schema.org/name': { '@value': 'Ada', '@language': 'en' }, 'http://schema.org/knows': { 'http://schema.org/name': 'Bob' }, 'http://schema.org/url': { '@id': '' } });
    const html = `<!DOCTYPE html><html><head><title>Ada</title><link rel="alternate" type="text/turtle" href="${doc}.ttl"></head><body>
      <div about="#me" typeof="http://schema.org/Person"><span property="http://schema.org/name" lang="en">Ada</span>
      <div property="http://schema.org/knows" typeof=""><span property="http://schema.org/name">Bob</span></div>
      <span property="http://schema.org/url" resource=""></span></div><a href="/other">other</a></body></html>`;
    const graph = async (body: string, type: string, url: string) => {
      const r = await extract({ url, mediaType: type, body: Buffer.from(body), headers: {} }, { maxQuads: 10_000 });
      return comparedGraph(r.quads, type, r.pageQuadsFrom, url, doc);
    };
    const t = await graph(turtle, 'text/turtle', doc);
    const j = await graph(jsonld, 'application/ld+json', `${doc}.jsonld`);
    const h = await graph(html, 'text/html', doc);
    expect(t.triples).toBe(5);
    expect(j.hash).toBe(t.hash); // #me and <> resolved against /doc/1.jsonld are /doc/1's
    expect(h.hash).toBe(t.hash); // the page's title, link and anchor triples are not the data
    const fewer = await graph(turtle.replace(' ; s:name "Ada"@en', ''), 'text/turtle', doc);
    expect(difference(t, fewer)).toMatchObject({ missing: 1, extra: 0 });
    expect(difference(t, fewer).examples[0]).toMatch(/^- <http:\/\/data\.example\/doc\/1#me> <http:\/\/schema\.org\/name> "Ada"@en \.$/);
    const empty = await graph('<!DOCTYPE html><title>x</title><p>no data</p>', 'text/html', doc);
    expect(empty.carriesRdf).toBe(false);
  });
});
