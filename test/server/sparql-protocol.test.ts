import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { JsonLdParser } from 'jsonld-streaming-parser';
import { isomorphic } from 'rdf-isomorphic';
import { buildServer } from '../../src/server/index.ts';
import { parseRdfXmlText } from '../../src/extract/rdfxml.ts';
import { LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';
import { ORG, PEOPLE, protocolArchive } from './sparql-fixture.ts';

const q = (query: string, extra = '') => `/sparql?query=${encodeURIComponent(query)}${extra}`;
const values = (body: string, v: string) => (JSON.parse(body).results.bindings as Array<Record<string, { value: string }>>).map((b) => b[v]?.value);
const nt = (text: string): Quad[] => new N3.Parser({ format: 'application/n-triples' }).parse(text) as Quad[];

function parseJsonLd(text: string): Promise<Quad[]> {
  return new Promise((resolve, reject) => {
    const quads: Quad[] = [];
    const parser = new JsonLdParser();
    parser.on('data', (quad: Quad) => quads.push(quad));
    parser.on('error', reject);
    parser.on('end', () => resolve(quads));
    parser.write(text);
    parser.end();
  });
}

const KNOWS = 'CONSTRUCT { ?s foaf:knows ?o . ?o foaf:name ?n ; schema:age ?a . ?s schema:seenIn [ schema:name "archive" ] } WHERE { ?s foaf:knows ?o . ?o foaf:name ?n ; schema:age ?a }';
const EVERYTHING = 'CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }';

describe('SPARQL 1.1 Protocol as clients use it', () => {
  let dataDir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dataDir = await protocolArchive();
    app = await buildServer({ dataDir });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('default-graph-uri and named-graph-uri define the dataset, over the query\'s FROM (Protocol §2.1.4)', async () => {
    const names = 'SELECT ?n FROM <http://example.org/org.ttl> WHERE { ?x foaf:name|schema:name ?n } ORDER BY ?n';
    expect(values((await app.inject({ url: q(names) })).body, 'n')).toEqual(['ACME']);
    const overridden = await app.inject({ url: q(names, `&default-graph-uri=${encodeURIComponent(PEOPLE)}`) });
    expect(overridden.statusCode).toBe(200);
    expect(values(overridden.body, 'n')).toEqual(['Alice', 'Bob', 'Carol']);
    // Both graphs merged into the default graph.
    const merged = await app.inject({ url: q(names, `&default-graph-uri=${encodeURIComponent(PEOPLE)}&default-graph-uri=${encodeURIComponent(ORG)}`) });
    expect(values(merged.body, 'n')).toEqual(['ACME', 'Alice', 'Bob', 'Carol']);
    // named-graph-uri alone: those named graphs, and an empty default graph.
    const graphs = 'SELECT ?g (COUNT(*) AS ?n) WHERE { { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o BIND("default" AS ?g) } } GROUP BY ?g ORDER BY ?g';
    const named = await app.inject({ url: q(graphs, `&named-graph-uri=${encodeURIComponent(ORG)}`) });
    expect(values(named.body, 'g')).toEqual([ORG]);
    const both = await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams([['query', graphs], ['default-graph-uri', ORG], ['named-graph-uri', PEOPLE]]).toString() });
    expect(values(both.body, 'g')).toEqual([PEOPLE, 'default']); // IRIs order before literals
    expect(values(both.body, 'n')).toEqual(['7', '3']);
    // Without protocol parameters the default graph is the union, and every document is a named graph.
    expect(values((await app.inject({ url: q(graphs) })).body, 'g')).toEqual([ORG, PEOPLE, 'default']);
    const bad = await app.inject({ url: q(graphs, '&default-graph-uri=people.ttl') });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/default-graph-uri 'people\.ttl' is not an absolute IRI/);
  }, LOADED_TIMEOUT_MS);

  it('takes format= / output= as Fuseki and Virtuoso do: a value that does not fit the query form yields to Accept', async () => {
    const select = 'SELECT ?s WHERE { ?s a schema:Person } ORDER BY ?s';
    const csv = await app.inject({ url: q(select, '&format=csv') });
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toBe('s\r\nhttp://example.org/alice\r\nhttp://example.org/bob\r\n');
    expect((await app.inject({ url: q(select, '&output=text/tab-separated-values') })).body).toBe('?s\n<http://example.org/alice>\n<http://example.org/bob>\n');
    // SPARQLWrapper's defaults: format=xml&output=xml&results=xml on every form, Accept by form.
    const sw = '&format=xml&output=xml&results=xml';
    const srx = await app.inject({ url: q(select, sw), headers: { accept: 'application/sparql-results+xml' } });
    expect(srx.headers['content-type']).toMatch(/^application\/sparql-results\+xml/);
    expect(srx.body).toContain('<uri>http://example.org/bob</uri>');
    const rdfxml = await app.inject({ url: q(EVERYTHING, sw), headers: { accept: 'application/rdf+xml' } });
    expect(rdfxml.statusCode).toBe(200);
    expect(rdfxml.headers['content-type']).toMatch(/^application\/rdf\+xml/);
    // A JSON client asking a CONSTRUCT: format=json means JSON-LD there.
    expect((await app.inject({ url: q(EVERYTHING, '&format=json') })).headers['content-type']).toMatch(/^application\/ld\+json/);
    for (const [value, type] of [['ttl', 'text/turtle'], ['turtle', 'text/turtle'], ['nt', 'application/n-triples'], ['jsonld', 'application/ld+json'], ['rdfxml', 'application/rdf+xml'], ['text/turtle', 'text/turtle']]) {
      expect((await app.inject({ url: q(EVERYTHING, `&output=${encodeURIComponent(value!)}`) })).headers['content-type'], value).toMatch(new RegExp(`^${type!.replace('+', '\\+')}`));
    }
    // format=turtle does not fit a SELECT: Accept decides.
    const yielded = await app.inject({ url: q(select, '&format=turtle'), headers: { accept: 'text/csv' } });
    expect(yielded.statusCode).toBe(200);
    expect(yielded.headers['content-type']).toMatch(/^text\/csv/);
    const unknown = await app.inject({ url: q(select, '&format=cvs') });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toMatch(/unknown result format 'cvs': use one of json, xml, csv, tsv/);
  });

  it('negotiates the usual aliases by Accept and answers with the type asked for', async () => {
    const select = 'SELECT ?s WHERE { ?s a schema:Person } ORDER BY ?s';
    const cases: Array<[string, string, string, RegExp]> = [
      [select, 'application/json', 'application/json', /"bindings"/],
      [select, 'application/xml', 'application/xml', /<sparql xmlns="http:\/\/www\.w3\.org\/2005\/sparql-results#">/],
      [select, '*/*', 'application/sparql-results+json', /"bindings"/],
      [select, 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/xml', /<results>/],
      ['ASK { ?s a schema:Person }', 'application/json', 'application/json', /"boolean":true/],
      [EVERYTHING, 'application/ld+json', 'application/ld+json', /"@id"/],
      [EVERYTHING, 'application/json', 'application/json', /"@id"/],
      [EVERYTHING, 'text/plain', 'text/plain', /^<http:\/\/example\.org\/[a-z]+> <[^>]+> /m],
      [EVERYTHING, 'application/n-quads', 'application/n-quads', /^<http:\/\/example\.org\/[a-z]+> <[^>]+> /m],
      [EVERYTHING, 'application/rdf+xml', 'application/rdf+xml', /<rdf:RDF/],
      [EVERYTHING, 'text/turtle;q=0.5, application/n-triples;q=0.9', 'application/n-triples', / \.$/m],
      [EVERYTHING, '*/*', 'application/n-triples', / \.$/m],
      ['DESCRIBE ex:alice', 'text/turtle', 'text/turtle', /Alice/],
    ];
    for (const [query, accept, type, body] of cases) {
      const res = await app.inject({ url: q(query.replace('ex:alice', '<http://example.org/alice>')), headers: { accept } });
      expect(res.statusCode, `${accept} for ${query}`).toBe(200);
      expect(res.headers['content-type'], accept).toBe(`${type}; charset=utf-8`);
      expect(res.body, accept).toMatch(body);
    }
    const refused = await app.inject({ url: q(select), headers: { accept: 'image/png' } });
    expect(refused.statusCode).toBe(406);
    expect(refused.body).toMatch(/application\/sparql-results\+json/);
    expect((await app.inject({ url: q(EVERYTHING), headers: { accept: 'text/csv' } })).statusCode).toBe(406);
  });

  it('answers a POST body of the wrong type with 415 and says what to send', async () => {
    const select = 'SELECT ?s WHERE { ?s a schema:Person }';
    for (const type of ['text/plain', 'application/json', 'multipart/form-data; boundary=x']) {
      const res = await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': type }, payload: type === 'application/json' ? JSON.stringify({ query: select }) : select });
      expect(res.statusCode, type).toBe(415);
      expect(res.body).toMatch(/application\/sparql-query .* application\/x-www-form-urlencoded/);
    }
    // Parameters in the URL of an empty POST are still a query.
    const empty = await app.inject({ method: 'POST', url: q(select) });
    expect(empty.statusCode).toBe(200);
    expect(values(empty.body, 's').sort()).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    const charset = await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' }, payload: new URLSearchParams({ query: select }).toString() });
    expect(charset.statusCode).toBe(200);
  });

  it('allows browser clients on any origin on the read-only endpoints, not on the write API', async () => {
    const origin = { origin: 'http://yasgui.example' };
    const get = await app.inject({ url: q('ASK {}'), headers: origin });
    expect(get.headers['access-control-allow-origin']).toBe('*');
    expect(String(get.headers['access-control-expose-headers'])).toMatch(/X-Archive-Datetime/);
    const post = await app.inject({ method: 'POST', url: '/sparql', headers: { ...origin, 'content-type': 'application/sparql-query' }, payload: 'ASK {}' });
    expect(post.headers['access-control-allow-origin']).toBe('*');
    const error = await app.inject({ url: q('SELECT WHERE {'), headers: origin });
    expect(error.statusCode).toBe(400);
    expect(error.headers['access-control-allow-origin']).toBe('*');
    const preflight = await app.inject({ method: 'OPTIONS', url: '/sparql', headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
    const timemap = await app.inject({ url: `/timemap/link/${PEOPLE}`, headers: origin });
    expect(timemap.headers['access-control-allow-origin']).toBe('*');
    const mementoPreflight = await app.inject({ method: 'OPTIONS', url: `/timegate/${PEOPLE}`, headers: { ...origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept-datetime' } });
    expect(mementoPreflight.statusCode).toBe(204);
    expect(mementoPreflight.headers['access-control-allow-methods']).not.toMatch(/POST/);
    expect((await app.inject({ url: '/cdx?url=http://example.org/', headers: origin })).headers['access-control-allow-origin']).toBe('*');
    const write = await app.inject({ method: 'POST', url: '/api/urls', headers: { ...origin, 'content-type': 'application/json' }, payload: '[]' });
    expect(write.headers['access-control-allow-origin']).toBeUndefined();
    expect((await app.inject({ method: 'OPTIONS', url: '/api/urls', headers: { ...origin, 'access-control-request-method': 'POST' } })).headers['access-control-allow-origin']).toBeUndefined();
  });

  it('predeclares common prefixes, lets the query redefine them, and names an unknown one', async () => {
    const schema = await app.inject({ url: q('SELECT ?s WHERE { ?s a schema:Person } ORDER BY ?s') });
    expect(values(schema.body, 's')).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    const mixed = 'SELECT ?n WHERE { ?s rdf:type/rdfs:subClassOf* schema:Organization ; schema:name ?n FILTER(datatype(?n) = xsd:string) }';
    expect(values((await app.inject({ url: q(mixed) })).body, 'n')).toEqual(['ACME']);
    // The query's own declaration wins (here schema: means https, where nothing is).
    expect(values((await app.inject({ url: q('PREFIX schema: <https://schema.org/> SELECT ?s WHERE { ?s a schema:Person }') })).body, 's')).toEqual([]);
    // A predeclared prefix in FROM still loads only the graph named.
    expect(values((await app.inject({ url: q('SELECT ?s FROM dm:nothing WHERE { ?s ?p ?o }') })).body, 's')).toEqual([]);
    const unknown = await app.inject({ url: q('SELECT ?s WHERE {\n  ?s a ex:Person }') });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toMatch(/^unknown prefix 'ex:' — declare it with PREFIX ex: <…>/);
    expect(unknown.body).not.toMatch(/expected one of/);
    // Other syntax errors keep the engine's position, counted in the user's own text.
    const broken = await app.inject({ url: q('SELECT ?s WHERE { ?s a schema:Person') });
    expect(broken.statusCode).toBe(400);
    expect(broken.body).toMatch(/^SPARQL syntax error at line 1, column 3[5-9]: found the end of the query/);
  });

  it('writes JSON-LD and RDF/XML that parse back to the same graph as N-Triples', async () => {
    for (const query of [EVERYTHING, KNOWS, 'DESCRIBE <http://example.org/alice>']) {
      const ntriples = nt((await app.inject({ url: q(query), headers: { accept: 'application/n-triples' } })).body);
      expect(ntriples.length).toBeGreaterThan(2);
      const jsonld = await parseJsonLd((await app.inject({ url: q(query), headers: { accept: 'application/ld+json' } })).body);
      expect(isomorphic(jsonld, ntriples), `JSON-LD of ${query}`).toBe(true);
      const rdfxml = parseRdfXmlText((await app.inject({ url: q(query), headers: { accept: 'application/rdf+xml' } })).body, 'http://127.0.0.1/', 10_000);
      expect(rdfxml.diagnostics).toEqual([]);
      expect(isomorphic(rdfxml.quads, ntriples), `RDF/XML of ${query}`).toBe(true);
      const turtle: Quad[] = new N3.Parser({ format: 'text/turtle' }).parse((await app.inject({ url: q(query), headers: { accept: 'text/turtle' } })).body);
      expect(isomorphic(turtle, ntriples), `Turtle of ${query}`).toBe(true);
    }
  });

  it('gives byte-identical bodies for the same query on the same archive, blank nodes included', async () => {
    // A second server reads a copy of the archive: its own snapshot, loaded again.
    const copy = tempDir('dm-protocol-copy-');
    fs.cpSync(dataDir, copy, { recursive: true });
    const other = await buildServer({ dataDir: copy });
    try {
      const queries: Array<[string, string]> = [
        [KNOWS, 'application/n-triples'], [KNOWS, 'text/turtle'], [KNOWS, 'application/ld+json'], [KNOWS, 'application/rdf+xml'],
        ['DESCRIBE <http://example.org/alice>', 'text/turtle'],
        ['SELECT * WHERE { ?s ?p ?o }', 'application/sparql-results+json'], ['SELECT * WHERE { ?s ?p ?o }', 'text/tab-separated-values'],
        ['SELECT ?s (BNODE() AS ?b) WHERE { ?s a schema:Person } ORDER BY ?s', 'application/sparql-results+xml'],
        ['SELECT ?s (BNODE() AS ?b) WHERE { ?s a schema:Person } ORDER BY ?s', 'text/csv'],
      ];
      for (const [query, accept] of queries) {
        const a = await app.inject({ url: q(query), headers: { accept } });
        const b = await other.inject({ url: q(query), headers: { accept } });
        expect(a.statusCode).toBe(200);
        expect(b.body, `${accept} ${query}`).toBe(a.body);
        expect(a.body).toMatch(/_:|bnode|nodeID/);
      }
      // Data blank nodes keep the archive's own label (the one `diff` and `export` print); made ones are n0, n1, …
      const knows = (await app.inject({ url: q(KNOWS) })).body;
      expect(knows).toMatch(/<http:\/\/xmlns\.com\/foaf\/0\.1\/knows> _:b[0-9a-f]{24} \./);
      expect(knows).toMatch(/<http:\/\/schema\.org\/seenIn> _:n0 \./);
      const made = JSON.parse((await app.inject({ url: q('SELECT ?s (BNODE() AS ?b) WHERE { ?s a schema:Person } ORDER BY ?s') })).body);
      expect(made.results.bindings.map((r: any) => r.b.value)).toEqual(['n0', 'n1']);
    } finally {
      await other.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('the CLI takes the same prefixes and prints the same bytes in another process', async () => {
    const run = promisify(execFile);
    const bin = path.resolve('bin/datamonitor.mjs');
    const args = [bin, 'query', '--data', dataDir, '--format', 'turtle', KNOWS];
    const [first, second] = [await run(process.execPath, args), await run(process.execPath, args)];
    expect(first.stdout).toMatch(/_:b[0-9a-f]{24}/);
    expect(second.stdout).toBe(first.stdout);
    const ours = (await app.inject({ url: q(KNOWS), headers: { accept: 'text/turtle' } })).body;
    expect(first.stdout).toBe(ours.endsWith('\n') ? ours : `${ours}\n`);
  }, LOADED_TIMEOUT_MS);
});
