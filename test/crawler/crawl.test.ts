import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawler/crawl.ts';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { openStore } from '../../src/store/index.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { crawlLog, documents, tempDir, warcFiles } from '../helpers.ts';
import { indexVersions } from '../query/helpers.ts';
import { runQuery, type SparqlJsonResults } from '../../src/query/index.ts';

describe('crawling the bundled Web of Data', () => {
  let web: WebOfData;
  let dataDir: string;
  let summary: Awaited<ReturnType<ReturnType<typeof crawl>['run']>>;
  const seenDocs: string[] = [];

  beforeAll(async () => {
    web = await startWebOfData();
    dataDir = tempDir();
    const c = crawl({ seeds: [web.seed], dataDir, depth: 4, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] });
    for await (const doc of c) seenDocs.push(doc.url);
    summary = c.summary!;
  });
  afterAll(() => web.close());

  it('yields each document through the API and sums them up', () => {
    expect(summary.documents).toBeGreaterThanOrEqual(13);
    // every document with an HTTP answer reaches the consumer, the 404 too
    expect(seenDocs.length).toBe(summary.documents);
    expect(summary.skipped.robots).toBe(1);
    expect(summary.triples).toBeGreaterThan(50);
    expect(summary.stoppedBy).toBeUndefined();
    expect(summary.queued).toBe(0);
  });

  it('extracts triples from every RDF serialisation it met', () => {
    const byType = new Map<string, number>();
    for (const e of crawlLog(dataDir)) if (e.media_type) byType.set(e.media_type, (byType.get(e.media_type) ?? 0) + e.triples);
    for (const t of ['text/turtle', 'application/n-triples', 'application/rdf+xml', 'application/ld+json', 'application/trig', 'text/html']) {
      expect(byType.get(t), t).toBeGreaterThan(0);
    }
  });

  it('honours robots.txt: the disallowed path is never requested', () => {
    expect(web.requests.some((r) => r.path.startsWith('/private/'))).toBe(false);
    expect(web.requests.filter((r) => r.path === '/robots.txt').length).toBe(1);
    expect(crawlLog(dataDir).some((e) => e.error === 'robots.txt: disallowed')).toBe(true);
  });

  it('records a 303 as see-other: the resource and the describing document are both known', () => {
    const entry = crawlLog(dataDir).find((e) => e.url.endsWith('/id/alice'))!;
    expect(entry).toMatchObject({ status: 303, reason: 'redirected', triples: 0 });
    expect(JSON.parse(entry.headers)).toContainEqual(['location', expect.stringMatching(/\/people\/alice$/)]);
    const doc = documents(dataDir).find((d) => d.url === `${web.url}/people/alice`);
    expect(doc?.state).toBe('fetched');
    // and the document is not fetched a second time through the links that point at it
    expect(web.requests.filter((r) => r.path === '/people/alice').length).toBe(1);
  });

  it('archives the resource IRI as its 303 and the document under its own URL, each once', async () => {
    const store = await openStore(dataDir);
    await store.init();
    const byResource = await store.versions(`${web.url}/id/alice`);
    const byDocument = await store.versions(`${web.url}/people/alice`);
    await store.close();
    expect(byResource).toMatchObject([{ status: 303, reason: 'redirected' }]);
    expect(byDocument).toMatchObject([{ url: `${web.url}/people/alice`, status: 200, reason: 'fetched' }]);
  });

  it('keeps the triples parsed before a syntax error and records a diagnostic', () => {
    const entry = crawlLog(dataDir).find((e) => e.url.endsWith('/broken.ttl'))!;
    expect(entry.triples).toBe(1);
    expect(JSON.parse(entry.diagnostics).join(' ')).toMatch(/error/i);
  });

  it('writes WARC files that warcio reads: request, response and conversion records', async () => {
    const types = new Map<string, number>();
    for (const f of warcFiles(dataDir)) {
      expect(f.endsWith('.open')).toBe(false);
      for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
        types.set(rec.warcType, (types.get(rec.warcType) ?? 0) + 1);
        // A request record is the request as sent: one Host header, naming the host asked.
        if (rec.warcType === 'request') expect(rec.httpHeaders!.headers.get('host')).toBe(new URL(rec.warcTargetURI!).host);
        await rec.readFully();
      }
    }
    expect(types.get('response')).toBeGreaterThanOrEqual(13);
    expect(types.get('request')).toBe((types.get('response') ?? 0) + (types.get('revisit') ?? 0));
    expect(types.get('conversion')).toBeGreaterThanOrEqual(12);
  });

  it('exports N-Quads with each document in its own named graph', async () => {
    const store = await openStore(dataDir);
    await store.init();
    let out = '';
    const r = await exportArchive(store, dataDir, 'nquads', (s) => (out += s));
    await store.close();
    expect(r.quads).toBe(summary.triples);
    expect(out).toContain(`<${web.url}/people/alice#me> <http://xmlns.com/foaf/0.1/knows> <${web.url}/people/bob#me> <${web.url}/people/alice> .`);
  });

  it('exports one consolidated Turtle file, Prolog facts and PROV-O provenance', async () => {
    const { Parser } = await import('n3');
    const store = await openStore(dataDir);
    await store.init();
    let ttl = '';
    let prolog = '';
    let prov = '';
    await exportArchive(store, dataDir, 'turtle', (s) => (ttl += s));
    await exportArchive(store, dataDir, 'prolog', (s) => (prolog += s));
    await exportArchive(store, dataDir, 'nquads', (s) => (prov += s), { provenance: true });
    await store.close();
    expect(new Parser().parse(ttl).length).toBeGreaterThan(50);
    expect(prolog).toContain(`triple('http://xmlns.com/foaf/0.1/knows', '${web.url}/people/alice#me', '${web.url}/people/bob#me').`);
    expect(prov).toMatch(new RegExp(`<${web.url}/people/alice> <http://www.w3.org/ns/prov#generatedAtTime> "[^"]+"\\^\\^<http://www.w3.org/2001/XMLSchema#dateTime> <https://w3id.org/datamonitor/ns#provenance> \\.`));
  });

  it('labels blank nodes in an export as SPARQL and diff do, so that an export joins with query results', async () => {
    const store = await openStore(dataDir);
    await store.init();
    let first = '';
    let second = '';
    await exportArchive(store, dataDir, 'nquads', (s) => (first += s));
    await exportArchive(store, dataDir, 'nquads', (s) => (second += s));
    await store.close();
    expect(second).toBe(first);
    const exported = new Set([...first.matchAll(/_:([A-Za-z0-9_]+)/g)].map((m) => m[1]));
    expect(exported.size).toBeGreaterThan(0);
    const index = await indexVersions(dataDir);
    try {
      const q = 'SELECT DISTINCT ?b WHERE { { ?b ?p ?o } UNION { ?s ?p ?b } FILTER(isBlank(?b)) }';
      const answered = (JSON.parse((await runQuery(index.archive, q)).body) as SparqlJsonResults).results!.bindings.map((b) => b.b.value);
      expect(new Set(answered)).toEqual(exported);
    } finally {
      await index.close();
    }
  });
});
