import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server/index.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';
import { tempDir } from '../helpers.ts';

const NAMES = 'SELECT ?name WHERE { <http://example.org/alice> <http://example.org/name> ?name }';
const PEOPLE = 'SELECT ?p WHERE { ?p a <http://example.org/Person> } ORDER BY ?p';
const names = (json: any) => json.results.bindings.map((b: any) => b.name?.value ?? b.p?.value);

describe('SPARQL protocol at /sparql', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;
  /** The same archive without versions.sqlite: the server builds its own store from the WARC records. */
  let rebuilt: FastifyInstance;

  beforeAll(async () => {
    fx = await buildArchive({ spacingMs: 1100 });
    app = await buildServer({ dataDir: fx.dataDir });
    const copy = tempDir('dm-server-copy-');
    fs.cpSync(fx.dataDir, copy, { recursive: true, filter: (src) => !path.basename(src).startsWith('versions.sqlite') });
    rebuilt = await buildServer({ dataDir: copy });
  });
  afterAll(async () => {
    await app?.close();
    await rebuilt?.close();
    await fx?.close();
  });

  it('answers GET with SPARQL JSON results, now and at= an earlier time', async () => {
    const now = await app.inject({ url: `/sparql?query=${encodeURIComponent(NAMES)}` });
    expect(now.statusCode).toBe(200);
    expect(now.headers['content-type']).toMatch(/^application\/sparql-results\+json/);
    expect(names(now.json())).toEqual(['Alice B.']);
    const between = new Date((fx.times[0]! + fx.times[1]!) / 2).toISOString();
    const then = await app.inject({ url: `/sparql?query=${encodeURIComponent(PEOPLE)}&at=${between}` });
    expect(names(then.json())).toEqual(['http://example.org/alice']);
    expect(names((await app.inject({ url: `/sparql?query=${encodeURIComponent(PEOPLE)}` })).json())).toEqual(['http://example.org/alice', 'http://example.org/bob']);
    const before = await app.inject({ url: `/sparql?query=${encodeURIComponent(PEOPLE)}&at=2001-01-01` });
    expect(names(before.json())).toEqual([]);
    expect((await app.inject({ url: `/sparql?query=${encodeURIComponent(PEOPLE)}&at=soon` })).statusCode).toBe(400);
  });

  it('answers POST as application/sparql-query and as a form, and negotiates CSV and Turtle', async () => {
    const direct = await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/sparql-query', accept: 'text/csv' }, payload: NAMES });
    expect(direct.headers['content-type']).toMatch(/^text\/csv/);
    expect(direct.body.replace(/\r\n/g, '\n')).toBe('name\nAlice B.\n');
    const form = await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ query: NAMES }).toString() });
    expect(names(form.json())).toEqual(['Alice B.']);
    const construct = 'CONSTRUCT { ?s <http://example.org/seen> true } WHERE { GRAPH ?g { ?s a <http://example.org/Person> } }';
    const nt = await app.inject({ url: `/sparql?query=${encodeURIComponent(construct)}` });
    expect(nt.headers['content-type']).toMatch(/^application\/n-triples/);
    expect(nt.body.trim().split('\n').sort()).toEqual([
      '<http://example.org/alice> <http://example.org/seen> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .',
      '<http://example.org/bob> <http://example.org/seen> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .',
    ]);
    const ttl = await app.inject({ url: `/sparql?query=${encodeURIComponent(construct)}`, headers: { accept: 'text/turtle' } });
    expect(ttl.headers['content-type']).toMatch(/^text\/turtle/);
    expect(ttl.body).toMatch(/<http:\/\/example\.org\/bob>/);
    const refused = await app.inject({ url: `/sparql?query=${encodeURIComponent(NAMES)}`, headers: { accept: 'image/png' } });
    expect(refused.statusCode).toBe(406);
  });

  it('refuses updates with 400 and a clear message, whichever way they come', async () => {
    const update = 'INSERT DATA { <http://example.org/x> <http://example.org/p> 1 }';
    const tries = [
      await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/sparql-update' }, payload: update }),
      await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ update }).toString() }),
      await app.inject({ url: `/sparql?query=${encodeURIComponent(update)}` }),
      await app.inject({ method: 'POST', url: '/sparql', headers: { 'content-type': 'application/sparql-query' }, payload: 'DROP ALL' }),
    ];
    for (const res of tries) {
      expect(res.statusCode).toBe(400);
      expect(res.body).toMatch(/update|read-only|refused/i);
    }
    expect(names((await app.inject({ url: `/sparql?query=${encodeURIComponent('SELECT ?p WHERE { ?p <http://example.org/p> 1 }')}` })).json())).toEqual([]);
    const malformed = await app.inject({ url: `/sparql?query=${encodeURIComponent('SELECT WHERE {')}` });
    expect(malformed.statusCode).toBe(400);
    // No query: the service description to a client without Accept (SPARQL 1.1 Protocol lets the endpoint
    // answer one), still a 400 to one that accepts only results (test/server/self-description.test.ts).
    expect((await app.inject({ url: '/sparql' })).headers['content-type']).toMatch(/^text\/turtle/);
    expect((await app.inject({ url: '/sparql', headers: { accept: 'application/sparql-results+json' } })).statusCode).toBe(400);
    expect((await app.inject({ url: '/sparql', headers: { accept: 'text/html' } })).body).toMatch(/<form/);
  });

  it('gives the same answers from an archive without versions.sqlite (store rebuilt from the WARC records)', async () => {
    for (const at of ['', `&at=${new Date((fx.times[0]! + fx.times[1]!) / 2).toISOString()}`]) {
      const q = `/sparql?query=${encodeURIComponent(PEOPLE)}${at}`;
      expect((await rebuilt.inject({ url: q })).json()).toEqual((await app.inject({ url: q })).json());
    }
    const graphs = 'SELECT ?g WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g ORDER BY ?g';
    const g = (await rebuilt.inject({ url: `/sparql?query=${encodeURIComponent(graphs)}` })).json().results.bindings.map((b: any) => b.g.value);
    // gone.ttl answered 404 in the second crawl: its graph is no longer in the archive.
    expect(g).toEqual([fx.doc, fx.other]);
  });
});
