/**
 * A real Linked Data client against `serve`'s Triple Pattern Fragments: Comunica's query-sparql (from the
 * registry, unmodified) given the fragments URL as its only source answers a set of queries with the
 * bindings datamonitor's own query path gives, now and at an instant between two crawls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { DataFactory } from 'n3';
import type { Term } from '@rdfjs/types';
import { QueryEngine } from '@comunica/query-sparql';
import { startServer } from '../../src/server/index.ts';
import { runQuery } from '../../src/query/index.ts';
import { ntTerm } from '../../src/rdf/terms.ts';
import type { SparqlJsonResults, SparqlJsonTerm } from '../../src/versions/types.ts';
import { indexVersions } from '../query/helpers.ts';
import { buildFragmentsArchive, type FragmentsArchive } from './fragments-fixture.ts';

const PREFIXES = 'PREFIX ex: <http://example.org/> PREFIX foaf: <http://xmlns.com/foaf/0.1/> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>';
const QUERIES: Record<string, string> = {
  star: `${PREFIXES} SELECT ?p ?name ?age WHERE { ?p a foaf:Person ; foaf:name ?name ; ex:age ?age }`,
  path: `${PREFIXES} SELECT ?a ?c WHERE { ?a foaf:knows ?b . ?b foaf:knows ?c }`,
  'property path': `${PREFIXES} SELECT ?a ?name WHERE { ?a foaf:knows/foaf:name ?name }`,
  join: `${PREFIXES} SELECT ?name ?label WHERE { ?p foaf:name ?name ; ex:city ?city . ?city rdfs:label ?label }`,
  optional: `${PREFIXES} SELECT ?p ?name ?age WHERE { ?p a foaf:Person ; foaf:name ?name OPTIONAL { ?p ex:age ?age } }`,
  'literal constant': `${PREFIXES} SELECT ?p ?age WHERE { ?p foaf:name "Alice" ; ex:age ?age }`,
  // Through blank nodes, which the fragments write as skolem IRIs that Comunica sends back.
  'blank node join': `${PREFIXES} SELECT ?p ?street WHERE { ?p ex:address ?a . ?a ex:street ?street }`,
  'paged fragment': `${PREFIXES} SELECT ?n ?v WHERE { ?n ex:value ?v }`,
};

const { namedNode, literal, blankNode } = DataFactory;

/** A SPARQL JSON term in the N-Triples form Comunica's terms are written in below. */
function jsonTerm(t: SparqlJsonTerm): string {
  const value = String(t.value);
  if (t.type === 'uri') return ntTerm(namedNode(value));
  if (t.type === 'bnode') return ntTerm(blankNode(value));
  return ntTerm(t['xml:lang'] ? literal(value, t['xml:lang']) : literal(value, t.datatype ? namedNode(t.datatype) : undefined));
}

/** Solutions as sorted lines `?v=term …`, so that two engines' answers compare as multisets. */
const solutions = (rows: Array<Array<[string, string]>>): string[] =>
  rows.map((row) => row.sort(([a], [b]) => a.localeCompare(b)).map(([v, t]) => `?${v}=${t}`).join(' ')).sort();

describe('Comunica over the archive\'s Triple Pattern Fragments', () => {
  let fx: FragmentsArchive;
  let app: FastifyInstance;
  let url: string;
  let own: Awaited<ReturnType<typeof indexVersions>>;

  beforeAll(async () => {
    fx = await buildFragmentsArchive();
    ({ app, url } = await startServer({ dataDir: fx.dataDir, port: 0 }));
    own = await indexVersions(fx.dataDir);
  }, 120_000);
  afterAll(async () => {
    await own?.close();
    await app?.close();
    await fx?.close();
  });

  /** What `datamonitor query [--at T]` answers (the library function behind it). */
  async function datamonitor(query: string, at?: number): Promise<string[]> {
    const results = JSON.parse((await runQuery(own.archive, query, { at, format: 'json' })).body) as SparqlJsonResults;
    return solutions(results.results!.bindings.map((b) => Object.entries(b).map(([v, t]) => [v, jsonTerm(t)])));
  }

  async function comunica(query: string, context: Record<string, unknown>): Promise<string[]> {
    // A new engine each time: Comunica keeps fragments it read between queries, which would mix two instants.
    const bindings = await (await new QueryEngine().queryBindings(query, context as never)).toArray();
    return solutions(bindings.map((b) => [...b].map(([v, t]) => [v.value, ntTerm(t as Term)])));
  }

  /** What Comunica's Memento actor (@comunica/actor-http-memento) does for a `datetime`: send it as Accept-Datetime. */
  const acceptDatetime = (time: number) => (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('accept-datetime', new Date(time).toUTCString());
    return fetch(input, { ...init, headers });
  };

  it.each(Object.keys(QUERIES))('%s: now, the same bindings as datamonitor query', async (name) => {
    const query = QUERIES[name]!;
    const expected = await datamonitor(query);
    expect(expected.length, 'the query has answers').toBeGreaterThan(0);
    expect(await comunica(query, { sources: [`${url}/fragments`] })).toEqual(expected);
  }, 120_000);

  it.each(Object.keys(QUERIES))('%s: with a datetime, the same bindings as datamonitor query --at T', async (name) => {
    const query = QUERIES[name]!;
    const expected = await datamonitor(query, fx.between);
    expect(expected).not.toEqual(await datamonitor(query));
    // Through the TimeGate, as a Memento client negotiates it…
    expect(await comunica(query, { sources: [`${url}/fragments`], datetime: new Date(fx.between), fetch: acceptDatetime(fx.between) })).toEqual(expected);
    // …and from the datetime-stamped fragments it leads to, as a plain TPF source.
    const stamp = new Date(fx.between).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    expect(await comunica(query, { sources: [{ type: 'qpf', value: `${url}/fragments/${stamp}` }] })).toEqual(expected);
  }, 120_000);

  it('a triple two documents state is one triple of the fragment; datamonitor query repeats its solution', async () => {
    // The default graph is the RDF merge of the documents (SPARQL 1.1 §13.2), a set: a fragment follows it.
    // The query path evaluates over Oxigraph's union of the documents' graphs, which keeps one solution per
    // document: a difference of datamonitor query, not of the fragments.
    const query = `${PREFIXES} SELECT ?page WHERE { ex:bob rdfs:seeAlso ?page }`;
    expect(await comunica(query, { sources: [`${url}/fragments`] })).toEqual(['?page=<http://example.org/bobs-page>']);
    expect(await datamonitor(query)).toEqual(['?page=<http://example.org/bobs-page>', '?page=<http://example.org/bobs-page>']);
  }, 120_000);

  it('Comunica 5.4.1 takes `datetime` but has no actor acting on it: alone, it answers now', async () => {
    // The query-sparql bundle maps `datetime` to the Memento actor's context key, yet ships no Memento actor
    // (the registry's @comunica/actor-http-memento is 1.22.1, for Comunica 1). When this fails, Comunica sends
    // Accept-Datetime itself again and the fetch above is no longer needed.
    const query = QUERIES.star!;
    expect(await comunica(query, { sources: [`${url}/fragments`], datetime: new Date(fx.between) })).toEqual(await datamonitor(query));
  }, 120_000);
});
