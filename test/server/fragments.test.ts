import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { buildServer } from '../../src/server/index.ts';
import { buildFragmentsArchive, type FragmentsArchive } from './fragments-fixture.ts';

const BASE = 'http://archive.test';
const HYDRA = 'http://www.w3.org/ns/hydra/core#';
const VOID = 'http://rdfs.org/ns/void#';
const EX = 'http://example.org/';
const TRIG = 'application/trig';
const stamp = (t: number) => new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14);

describe('Triple Pattern Fragments over a crawled archive, with Memento', () => {
  let fx: FragmentsArchive;
  let app: FastifyInstance;
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { accept: TRIG, ...headers } });
  const parse = (body: string, format = TRIG): Quad[] => new N3.Parser({ format }).parse(body) as Quad[];
  const data = (quads: Quad[]) => quads.filter((q) => q.graph.termType === 'DefaultGraph');
  const meta = (quads: Quad[], p: string) => quads.filter((q) => q.graph.termType !== 'DefaultGraph' && q.predicate.value === p);

  beforeAll(async () => {
    fx = await buildFragmentsArchive();
    app = await buildServer({ dataDir: fx.dataDir, publicUrl: BASE });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('answers a pattern with its triples, the count and the hydra search form over subject, predicate and object', async () => {
    const url = `/fragments?subject=${encodeURIComponent(`${EX}alice`)}`;
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/trig; charset=utf-8');
    expect(res.headers.vary).toBe('accept, accept-datetime');
    const quads = parse(res.body);
    const triples = data(quads).map((q) => `${q.predicate.value} ${q.object.value}`).sort();
    expect(triples).toEqual([`${EX}address ${data(quads).find((q) => q.predicate.value === `${EX}address`)?.object.value}`,
      `${EX}age 31`, `${EX}city ${EX}rome`, 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type http://xmlns.com/foaf/0.1/Person',
      `http://xmlns.com/foaf/0.1/knows ${EX}bob`, `http://xmlns.com/foaf/0.1/knows ${EX}dave`, 'http://xmlns.com/foaf/0.1/name Alice',
    ].sort());
    const page = `${BASE}${url}`;
    expect(meta(quads, 'http://xmlns.com/foaf/0.1/primaryTopic').map((q) => q.object.value)).toEqual([page]);
    expect(meta(quads, `${VOID}triples`).map((q) => [q.subject.value, q.object.value])).toEqual([[page, '7']]);
    expect(meta(quads, `${HYDRA}totalItems`).map((q) => q.object.value)).toEqual(['7']);
    expect(meta(quads, `${HYDRA}template`).map((q) => q.object.value)).toEqual([`${BASE}/fragments{?subject,predicate,object}`]);
    const mappings = meta(quads, `${HYDRA}mapping`).map((q) => q.object);
    expect(mappings).toHaveLength(3);
    const pairs = mappings.map((m) => [quads.find((q) => q.subject.equals(m) && q.predicate.value === `${HYDRA}variable`)!.object.value,
      quads.find((q) => q.subject.equals(m) && q.predicate.value === `${HYDRA}property`)!.object.value]);
    expect(pairs.sort()).toEqual([['object', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#object'], ['predicate', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#predicate'], ['subject', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#subject']]);
    expect(meta(quads, `${HYDRA}next`)).toEqual([]);
    expect(res.headers.link).toBe(`<${BASE}${url}>; rel="original timegate"`);
  });

  it('may be read from any origin (CORS), Accept-Datetime allowed', async () => {
    const res = await get('/fragments/20250101000000', { origin: 'http://client.test' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-expose-headers'])).toMatch(/Memento-Datetime/);
    for (const url of ['/fragments', '/fragments/20250101000000']) {
      const pre = await app.inject({ method: 'OPTIONS', url, headers: { origin: 'http://client.test', 'access-control-request-method': 'GET' } });
      expect(pre.statusCode, url).toBe(204);
      expect(String(pre.headers['access-control-allow-headers'])).toMatch(/Accept-Datetime/);
    }
  });

  it('is linked from the dashboard', async () => {
    expect((await get('/', { accept: 'text/html' })).body).toContain('<a href="/fragments"');
  });

  it('states a triple found in two documents once', async () => {
    const res = await get(`/fragments?subject=${encodeURIComponent(`${EX}bob`)}&predicate=${encodeURIComponent('http://www.w3.org/2000/01/rdf-schema#seeAlso')}`);
    expect(data(parse(res.body))).toHaveLength(1);
  });

  it('pages a large fragment 100 triples at a time, linked by hydra:next and hydra:previous', async () => {
    const url = `/fragments?predicate=${encodeURIComponent(`${EX}value`)}`;
    const seen = new Set<string>();
    let next: string | undefined = `${BASE}${url}`;
    let pages = 0;
    while (next) {
      const quads = parse((await get(next.slice(BASE.length))).body);
      for (const q of data(quads)) seen.add(`${q.subject.value} ${q.object.value}`);
      expect(meta(quads, `${HYDRA}itemsPerPage`).map((q) => q.object.value)).toEqual(['100']);
      if (pages > 0) expect(meta(quads, `${HYDRA}previous`)).toHaveLength(1);
      next = meta(quads, `${HYDRA}next`)[0]?.object.value;
      // The next page comes from a cursor (its cost is its own rows); page= still says which page it is.
      if (next) expect(next).toMatch(new RegExp(`&page=${pages + 2}&after=\\d+$`));
      pages++;
    }
    expect(pages).toBe(2);
    expect(seen.size).toBe(180);
    expect(seen.has(`${EX}n0 1000`)).toBe(true);
  });

  it('takes object literals in the specification syntax: plain, language-tagged and typed', async () => {
    const count = async (object: string) => data(parse((await get(`/fragments?object=${encodeURIComponent(object)}`)).body)).length;
    expect(await count('"Alice"')).toBe(1);
    expect(await count('"Dave"@en')).toBe(1);
    expect(await count('"Dave"')).toBe(0);
    expect(await count('"31"^^<http://www.w3.org/2001/XMLSchema#integer>')).toBe(1);
    expect(await count('"31"^^http://www.w3.org/2001/XMLSchema#integer')).toBe(1);
    expect(await count(`<${EX}rome>`)).toBe(2);
  });

  it('negotiates Turtle and N-Triples, the controls beside the data', async () => {
    const url = `/fragments?subject=${encodeURIComponent(`${EX}eve`)}`;
    for (const format of ['text/turtle', 'application/n-triples']) {
      const res = await get(url, { accept: format });
      expect(res.headers['content-type']).toBe(`${format}; charset=utf-8`);
      const quads = parse(res.body, format);
      expect(quads.some((q) => q.predicate.value === `${HYDRA}search`)).toBe(true);
      expect(quads.filter((q) => q.subject.value === `${EX}eve`)).toHaveLength(5);
    }
  });

  it('writes blank nodes as skolem IRIs and reads them back as the archive\'s blank nodes', async () => {
    const res = await get(`/fragments?predicate=${encodeURIComponent(`${EX}address`)}`);
    const objects = data(parse(res.body)).map((q) => q.object.value);
    expect(objects).toHaveLength(2);
    for (const iri of objects) {
      expect(iri).toMatch(new RegExp(`^${BASE}/\\.well-known/genid/\\w+$`));
      const streets = data(parse((await get(`/fragments?subject=${encodeURIComponent(iri)}`)).body));
      expect(streets.map((q) => q.predicate.value)).toEqual([`${EX}street`]);
      // The archive's own label works too, as the specification's syntax writes a blank node.
      const label = `_:${iri.slice(`${BASE}/.well-known/genid/`.length)}`;
      expect(data(parse((await get(`/fragments?subject=${encodeURIComponent(label)}`)).body))).toHaveLength(1);
    }
  });

  it('refuses a bad pattern with 400 and says what to give', async () => {
    const cases: Array<[string, RegExp]> = [
      ['subject=%22Alice%22', /subject '"Alice"' is a literal: only the object may be one/],
      ['predicate=_%3Ab1', /predicate '_:b1' is a blank node/],
      ['subject=alice', /subject 'alice' is not an absolute IRI/],
      ['object=%22unterminated', /is not a literal/],
      ['object=%221%22%5E%5Enot-an-iri', /is not (a literal|an absolute IRI)/],
      ['page=0', /page '0' is not a page number/],
      ['page=two', /page 'two' is not a page number/],
      ['after=-1', /after '-1' is not a cursor/],
      ['subject=a&subject=b', /subject is given 2 times/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/fragments?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.body, query).toMatch(message);
    }
    expect((await get('/fragments/2025', {})).statusCode).toBe(400);
  });

  it('is its own TimeGate: Accept-Datetime is sent on to the fragment of that instant', async () => {
    const url = `/fragments?subject=${encodeURIComponent(`${EX}alice`)}`;
    const res = await get(url, { 'accept-datetime': new Date(fx.between).toUTCString() });
    expect(res.statusCode).toBe(302);
    expect(res.headers.vary).toBe('accept, accept-datetime');
    expect(res.headers.location).toBe(`${BASE}/fragments/${stamp(fx.between)}?subject=${encodeURIComponent(`${EX}alice`)}`);
    expect(res.headers.link).toBe(`<${BASE}${url}>; rel="original timegate"`);
    const memento = await get(String(res.headers.location).slice(BASE.length));
    expect(memento.statusCode).toBe(200);
    expect(memento.headers['memento-datetime']).toBe(new Date(fx.between).toUTCString());
    expect(memento.headers.link).toBe(`<${BASE}${url}>; rel="original", <${BASE}${url}>; rel="timegate"`);
    const quads = parse(memento.body);
    const objects = data(quads).map((q) => q.object.value);
    expect(objects).toContain('30');
    expect(objects).toContain(`${EX}paris`);
    expect(objects).not.toContain('31');
    // The controls of a past state lead to the same state.
    expect(meta(quads, `${HYDRA}template`).map((q) => q.object.value)).toEqual([`${BASE}/fragments/${stamp(fx.between)}{?subject,predicate,object}`]);
  });

  it('sends a datetime before the first capture to the first state, and a malformed one back with 400', async () => {
    const url = `/fragments?subject=${encodeURIComponent(`${EX}carol`)}`;
    const early = await get(url, { 'accept-datetime': 'Wed, 01 Jan 2020 00:00:00 GMT' });
    expect(early.statusCode).toBe(302);
    const location = String(early.headers.location);
    const ts = /\/fragments\/(\d{14})\?/.exec(location)![1]!;
    expect(Number(ts)).toBeGreaterThanOrEqual(Number(stamp(fx.before)));
    expect(Number(ts)).toBeLessThanOrEqual(Number(stamp(fx.between)));
    // The first state: just after the first capture, so it holds something (whichever document came first).
    expect(data(parse((await get(`/fragments/${ts}`)).body)).length).toBeGreaterThan(0);
    expect(data(parse((await get(`/fragments/${stamp(fx.between)}?subject=${encodeURIComponent(`${EX}carol`)}`)).body)).map((q) => q.object.value)).toContain('Carol');
    // Carol's document is gone now: the current fragment is empty.
    expect(data(parse((await get(url)).body))).toEqual([]);
    const bad = await get(url, { 'accept-datetime': '2025-01-01' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/RFC 1123/);
    // A datetime-stamped URL answers the archive as it was, empty before the first capture.
    const empty = await get(`/fragments/20200101000000?subject=${encodeURIComponent(`${EX}carol`)}`);
    expect(empty.statusCode).toBe(200);
    expect(data(parse(empty.body))).toEqual([]);
  });
});
