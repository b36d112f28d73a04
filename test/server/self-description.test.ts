import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { isomorphic } from 'rdf-isomorphic';
import { SparqlEndpointFetcher } from 'fetch-sparql-endpoint';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { cli, crawlLog, LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';
import { openVersionStore } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import { T0 } from '../query/helpers.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { buildServer, startServer as startArchiveServer } from '../../src/server/index.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';
import { listening, protocolArchive } from './sparql-fixture.ts';

/**
 * The archive's VoID description and its SPARQL service description, over an archive crawled from two sites
 * on 127.0.0.1 (two hosts: two ports), checked against what `datamonitor query` counts in the same archive.
 */
const VOID = 'http://rdfs.org/ns/void#';
const SD = 'http://www.w3.org/ns/sparql-service-description#';
const DCAT = 'http://www.w3.org/ns/dcat#';
const DCTERMS = 'http://purl.org/dc/terms/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

const A_V1 = '@prefix ex: <http://example.org/> .\nex:alice a ex:Person ; ex:name "Alice" .\n';
const A_V2 = '@prefix ex: <http://example.org/> .\nex:alice a ex:Person ; ex:name "Alice B." ; ex:knows ex:bob .\nex:bob a ex:Person .\n';
const B = '@prefix ex: <http://example.org/> .\nex:acme ex:member ex:alice ; ex:label [ ex:text "ACME" ] .\n';
const C = '<http://example.org/carol> <http://example.org/name> "Carol" .\n';

function parse(text: string, format: string, baseIRI: string): Quad[] {
  return new N3.Parser({ format, baseIRI }).parse(text) as Quad[];
}

/** The objects of (subject, predicate) in a graph, as their values. */
function objects(quads: Quad[], subject: string, predicate: string): string[] {
  return quads.filter((q) => q.subject.value === subject && q.predicate.value === predicate).map((q) => q.object.value);
}
const one = (quads: Quad[], subject: string, predicate: string): string => {
  const found = objects(quads, subject, predicate);
  expect(found, `${subject} ${predicate}`).toHaveLength(1);
  return found[0]!;
};

const pgBase = await pgBaseUrl();

/** `datamonitor query --json` in its own process, as a user runs it (`--db`: the crawl store's URL): its bindings. */
async function query(dataDir: string, sparql: string, db?: string): Promise<Array<Record<string, string>>> {
  const r = await cli(['query', '--data', dataDir, ...(db ? ['--db', db] : []), '--json', sparql]);
  expect(r.code, r.err).toBe(0);
  return (JSON.parse(r.out).results.bindings as Array<Record<string, { value: string }>>).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
}

/** What the archive holds now by `datamonitor query`: triples of the union, and documents and triples per host. */
async function counted(dataDir: string, db?: string): Promise<{ triples: number; graphs: string[]; hosts: Map<string, { documents: number; triples: number }> }> {
  const [total] = await query(dataDir, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', db);
  const perGraph = await query(dataDir, 'SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g', db);
  const hosts = new Map<string, { documents: number; triples: number }>();
  for (const row of perGraph) {
    const host = new URL(row.g!).host;
    const h = hosts.get(host) ?? { documents: 0, triples: 0 };
    hosts.set(host, { documents: h.documents + 1, triples: h.triples + Number(row.n) });
  }
  return { triples: Number(total!.n), graphs: perGraph.map((r) => r.g!), hosts };
}

describe('an archive that describes itself: VoID and the SPARQL service description', () => {
  let dataDir: string;
  let one1: TestServer;
  let two: TestServer;
  let app: FastifyInstance;
  let base: string;
  let aBody = A_V1;
  let goneStatus = 200;
  let extra = false;

  const crawlBoth = (paths: string[]) =>
    crawl({ seeds: paths, dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'], robots: false }).run();

  beforeAll(async () => {
    dataDir = tempDir('dm-void-');
    one1 = await startServer((_req, res, url) => {
      if (url.pathname === '/a.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(aBody);
      if (url.pathname === '/b.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(B);
      if (url.pathname === '/gone.ttl' && goneStatus === 200) return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/gone> a <http://example.org/Thing> .\n');
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    two = await startServer((_req, res, url) => {
      if (url.pathname === '/c.nt') return res.writeHead(200, { 'content-type': 'application/n-triples' }).end(C);
      if (url.pathname === '/d.nt' && extra) return res.writeHead(200, { 'content-type': 'application/n-triples' }).end('<http://example.org/dan> <http://example.org/name> "Dan" .\n');
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    await crawlBoth([`${one1.url}/a.ttl`, `${one1.url}/b.ttl`, `${one1.url}/gone.ttl`, `${two.url}/c.nt`]);
    aBody = A_V2;
    goneStatus = 404;
    await crawlBoth([`${one1.url}/a.ttl`, `${one1.url}/gone.ttl`]);
    const served = await listening(dataDir);
    app = served.app;
    base = served.url;
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await one1?.close();
    await two?.close();
  });

  const get = async (path: string, accept?: string) => {
    const res = await fetch(`${base}${path}`, { headers: accept === undefined ? {} : { accept } });
    return { status: res.status, type: res.headers.get('content-type') ?? '', vary: res.headers.get('vary') ?? '', cors: res.headers.get('access-control-allow-origin'), body: await res.text() };
  };

  it('VoID at /.well-known/void: the archive and each host with the counts `datamonitor query` gives, the capture span, the real endpoint', async () => {
    const res = await get('/.well-known/void', 'text/turtle');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/turtle/);
    expect(res.cors).toBe('*'); // a Linked Data tool in a browser on another origin reads it
    const graph = parse(res.body, 'text/turtle', `${base}/.well-known/void`);
    const ds = `${base}/.well-known/void#archive`;
    expect(objects(graph, `${base}/.well-known/void`, 'http://xmlns.com/foaf/0.1/primaryTopic')).toEqual([ds]);
    expect(objects(graph, ds, RDF_TYPE)).toContain(`${VOID}Dataset`);
    expect(one(graph, ds, `${VOID}sparqlEndpoint`)).toBe(`${base}/sparql`);

    const truth = await counted(dataDir);
    expect(truth.hosts.size).toBe(2);
    expect(Number(one(graph, ds, `${VOID}triples`))).toBe(truth.triples);
    // gone.ttl was captured, then 404: no document now, but its captures are in the span.
    expect(Number(one(graph, ds, `${VOID}documents`))).toBe(3);
    const subsets = objects(graph, ds, `${VOID}subset`);
    expect(subsets).toHaveLength(2);
    for (const subset of subsets) {
      const host = one(graph, subset, `${DCTERMS}title`).replace(/^documents of /, '');
      expect(subset).toBe(`${base}/.well-known/void#host-${encodeURIComponent(host)}`);
      expect({ documents: Number(one(graph, subset, `${VOID}documents`)), triples: Number(one(graph, subset, `${VOID}triples`)) }, host).toEqual(truth.hosts.get(host));
    }

    // The span: the first and last capture the log holds (every capture here has RDF, or is the 404 deletion).
    const times = crawlLog(dataDir).map((e) => Number(e.time));
    const period = one(graph, ds, `${DCTERMS}temporal`);
    expect(Date.parse(one(graph, period, `${DCAT}startDate`))).toBe(Math.min(...times));
    expect(Date.parse(one(graph, period, `${DCAT}endDate`))).toBe(Math.max(...times));

    // The SPARQL endpoint it names is the server's: a SPARQL client library uses it as it is.
    const service = graph.find((q) => q.predicate.value === `${DCAT}endpointURL`)!;
    expect(service.object.value).toBe(`${base}/sparql`);
    const rows: any[] = [];
    for await (const row of await new SparqlEndpointFetcher().fetchBindings(one(graph, ds, `${VOID}sparqlEndpoint`), 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }')) rows.push(row);
    expect(rows.map((r) => Number(r.n.value))).toEqual([truth.triples]);
  }, LOADED_TIMEOUT_MS);

  it('GET /sparql without a query: the service description to RDF clients, the form to browsers', async () => {
    const res = await get('/sparql', 'text/turtle');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/turtle/);
    expect(res.vary).toMatch(/accept/i);
    const sd = parse(res.body, 'text/turtle', `${base}/sparql`);
    const services = sd.filter((q) => q.predicate.value === RDF_TYPE && q.object.value === `${SD}Service`).map((q) => q.subject.value);
    expect(services).toHaveLength(1);
    const service = services[0]!;
    expect(one(sd, service, `${SD}endpoint`)).toBe(`${base}/sparql`);
    expect(objects(sd, service, `${SD}supportedLanguage`)).toEqual([`${SD}SPARQL11Query`]);
    expect(objects(sd, service, `${SD}feature`)).toEqual([`${SD}UnionDefaultGraph`]);
    expect(objects(sd, service, `${SD}resultFormat`).map((f) => f.replace('http://www.w3.org/ns/formats/', '')).sort())
      .toEqual(['JSON-LD', 'N-Quads', 'N-Triples', 'RDF_XML', 'SPARQL_Results_CSV', 'SPARQL_Results_JSON', 'SPARQL_Results_TSV', 'SPARQL_Results_XML', 'Turtle']);

    // The dataset is the VoID one; its default graph holds the union's triples, its named graphs are the documents.
    const truth = await counted(dataDir);
    const dataset = one(sd, service, `${SD}defaultDataset`);
    expect(dataset).toBe(`${base}/.well-known/void#archive`);
    expect(objects(sd, dataset, RDF_TYPE).sort()).toEqual([`${VOID}Dataset`, `${SD}Dataset`]);
    expect(Number(one(sd, one(sd, dataset, `${SD}defaultGraph`), `${VOID}triples`))).toBe(truth.triples);
    const named = objects(sd, dataset, `${SD}namedGraph`).map((g) => one(sd, g, `${SD}name`)).sort();
    expect(named).toEqual(truth.graphs);

    // Each feature claimed, and one not: the default graph is the union; SERVICE is refused (no federation).
    const union = await get(`/sparql?query=${encodeURIComponent('ASK { <http://example.org/carol> ?p ?o . <http://example.org/acme> ?q ?r }')}`, 'application/sparql-results+json');
    expect(JSON.parse(union.body).boolean).toBe(true);
    const federated = await get(`/sparql?query=${encodeURIComponent('SELECT * WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?s ?p ?o } }')}`, 'application/sparql-results+json');
    expect(federated.status).toBeGreaterThanOrEqual(400);

    // The same description in N-Triples, by Accept or by format= (the link a browser follows); none for a wildcard or no Accept.
    const nt = await get('/sparql', 'application/n-triples');
    expect(nt.type).toMatch(/^application\/n-triples/);
    expect(isomorphic(parse(nt.body, 'application/n-triples', base), sd)).toBe(true);
    expect(isomorphic(parse((await get('/sparql?format=ntriples', 'text/html')).body, 'application/n-triples', base), sd)).toBe(true);
    for (const accept of [undefined, '*/*', 'application/sparql-results+json;q=0.5, text/turtle']) {
      const r = await get('/sparql', accept);
      expect(r.type, String(accept)).toMatch(/^text\/turtle/);
    }
    // A browser keeps the form, which links both descriptions; a client that accepts only results keeps the 400.
    const browser = await get('/sparql', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect(browser.type).toMatch(/^text\/html/);
    expect(browser.body).toMatch(/<form/);
    expect(browser.body).toContain('href="/.well-known/void"');
    expect(browser.body).toContain('href="/sparql?format=turtle"');
    expect((await get('/sparql', 'application/sparql-results+json')).status).toBe(400);
  }, LOADED_TIMEOUT_MS);

  it('N-Triples by Accept at /.well-known/void, the dashboard links both, and a new capture updates the counts', async () => {
    const ttl = parse((await get('/.well-known/void', 'text/turtle')).body, 'text/turtle', base);
    const nt = await get('/.well-known/void', 'application/n-triples');
    expect(nt.type).toMatch(/^application\/n-triples/);
    expect(isomorphic(parse(nt.body, 'application/n-triples', base), ttl)).toBe(true);

    const dashboard = await get('/', 'text/html');
    expect(dashboard.body).toContain('href="/.well-known/void"');
    expect(dashboard.body).toContain('href="/sparql?format=turtle"');

    // A new capture changes the store's generation: the description follows.
    const ds = `${base}/.well-known/void#archive`;
    extra = true;
    await crawlBoth([`${two.url}/d.nt`]);
    const after = parse((await get('/.well-known/void', 'text/turtle')).body, 'text/turtle', base);
    const truth = await counted(dataDir);
    expect(Number(one(after, ds, `${VOID}documents`))).toBe(4);
    expect(Number(one(after, ds, `${VOID}triples`))).toBe(truth.triples);
    expect(Number(one(after, `${base}/.well-known/void#host-${encodeURIComponent(new URL(two.url).host)}`, `${VOID}documents`))).toBe(2);
  }, LOADED_TIMEOUT_MS);
});

describe('the named graphs of quad formats in the service description', () => {
  const TRIG = 'http://example.org/data.trig';
  const PLAIN = 'http://example.org/plain.ttl';
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    const dataDir = tempDir('dm-void-trig-');
    const archive = openVersionStore(dataDir);
    const trig = `@prefix ex: <http://example.org/> .
ex:a ex:p ex:b .
ex:g1 { ex:c ex:p ex:d . ex:e ex:p "x" . }
_:bg { ex:f ex:p ex:g . }
`;
    await archive.putVersion(TRIG, T0, parse(trig, 'application/trig', TRIG));
    await archive.putVersion(PLAIN, T0 + 1000, parse('<http://example.org/h> <http://example.org/p> "y" .', 'text/turtle', PLAIN));
    await archive.close();
    const store = await openStore(dataDir); // an empty crawl log: nothing for the server to catch up
    await store.init();
    await store.close();
    ({ app, url: base } = await listening(dataDir));
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
  });

  const select = async (q: string): Promise<Array<Record<string, string>>> => {
    const res = await fetch(`${base}/sparql?query=${encodeURIComponent(q)}`, { headers: { accept: 'application/sparql-results+json' } });
    const bindings = (await res.json()).results.bindings as Array<Record<string, { value: string }>>;
    return bindings.map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.value])));
  };

  it('lists the graphs GRAPH ?g binds, and counts the default graph as a query does, dm:graphs included', async () => {
    const sd = parse(await (await fetch(`${base}/sparql`, { headers: { accept: 'text/turtle' } })).text(), 'text/turtle', base);
    const dataset = `${base}/.well-known/void#archive`;
    const named = objects(sd, dataset, `${SD}namedGraph`).map((g) => one(sd, g, `${SD}name`)).sort();
    const bound = (await select('SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } FILTER(isIRI(?g)) } ORDER BY ?g')).map((r) => r.g!);
    expect(bound).toEqual([PLAIN, TRIG, 'http://example.org/g1', 'https://w3id.org/datamonitor/ns#graphs'].sort());
    expect(named).toEqual(bound);

    const [all] = await select('SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }');
    const [index] = await select('SELECT (COUNT(*) AS ?n) WHERE { GRAPH dm:graphs { ?s ?p ?o } }');
    expect(Number(index!.n)).toBe(2); // ex:g1 and the blank-node graph are each in data.trig
    expect(Number(one(sd, one(sd, dataset, `${SD}defaultGraph`), `${VOID}triples`))).toBe(Number(all!.n));
    // VoID counts the archived documents' triples: the statements about them are the query engine's.
    const described = parse(await (await fetch(`${base}/.well-known/void`)).text(), 'text/turtle', base);
    expect(Number(one(described, dataset, `${VOID}triples`))).toBe(Number(all!.n) - Number(index!.n));
    expect(Number(one(described, dataset, `${VOID}triples`))).toBe(5);
  }, LOADED_TIMEOUT_MS);
});

describe.skipIf(!pgBase)('the descriptions of an archive whose store and versioned index are in PostgreSQL', () => {
  const url = pgBase ? isolatedSchemaUrl(pgBase, 'dm_void') : '';
  let dataDir: string;
  let origin: TestServer;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    dataDir = tempDir('dm-void-pg-');
    origin = await startServer((_req, res, u) => {
      if (u.pathname === '/a.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(A_V2);
      if (u.pathname === '/b.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(B);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    });
    const store = new PostgresStore(url);
    try {
      await crawl({ seeds: [`${origin.url}/a.ttl`, `${origin.url}/b.ttl`], dataDir, store, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, domains: ['127.0.0.1'], robots: false }).run();
    } finally {
      await store.close();
    }
    ({ app, url: base } = await startArchiveServer({ dataDir, db: url, port: 0 }));
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await app?.close();
    await origin?.close();
    if (pgBase) await dropSchema(url);
  });

  it('counts what `datamonitor query --db` counts', async () => {
    const graph = parse(await (await fetch(`${base}/.well-known/void`)).text(), 'text/turtle', base);
    const ds = `${base}/.well-known/void#archive`;
    const truth = await counted(dataDir, url);
    expect(Number(one(graph, ds, `${VOID}triples`))).toBe(truth.triples);
    expect(Number(one(graph, ds, `${VOID}documents`))).toBe(2);
    const subset = `${base}/.well-known/void#host-${encodeURIComponent(new URL(origin.url).host)}`;
    expect({ documents: Number(one(graph, subset, `${VOID}documents`)), triples: Number(one(graph, subset, `${VOID}triples`)) }).toEqual(truth.hosts.get(new URL(origin.url).host));
    const sd = parse(await (await fetch(`${base}/sparql`, { headers: { accept: 'text/turtle' } })).text(), 'text/turtle', base);
    expect(objects(sd, ds, `${SD}namedGraph`).map((g) => one(sd, g, `${SD}name`)).sort()).toEqual(truth.graphs);
  }, LOADED_TIMEOUT_MS);
});

describe('the descriptions under --public-url', () => {
  it('name the endpoint and the dataset at the public URL, not the address the server listens on', async () => {
    const app = await buildServer({ dataDir: await protocolArchive(), publicUrl: 'https://archive.example.org/web/' });
    try {
      const base = 'https://archive.example.org/web';
      const sd = parse((await app.inject({ url: '/sparql', headers: { accept: 'text/turtle' } })).body, 'text/turtle', base);
      expect(one(sd, `${base}/sparql#service`, `${SD}endpoint`)).toBe(`${base}/sparql`);
      expect(one(sd, `${base}/sparql#service`, `${SD}defaultDataset`)).toBe(`${base}/.well-known/void#archive`);
      const described = parse((await app.inject({ url: '/.well-known/void' })).body, 'text/turtle', base);
      expect(one(described, `${base}/.well-known/void#archive`, `${VOID}sparqlEndpoint`)).toBe(`${base}/sparql`);
      expect(objects(described, `${base}/.well-known/void#archive`, `${VOID}subset`)).toEqual([`${base}/.well-known/void#host-example.org`]);
    } finally {
      await app.close();
    }
  }, LOADED_TIMEOUT_MS);
});
