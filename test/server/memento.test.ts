import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, startServer } from '../../src/server/index.ts';
import { aggregateTimeMap } from '../../src/federation/timemap-aggregator.ts';
import { parseLinkFormat } from '../../src/util/link-format.ts';
import { buildArchive, OTHER, type ArchiveFixture } from './fixture.ts';

const BASE = 'http://archive.test';
const date = (t: number) => new Date(t).toUTCString();

describe('Memento (RFC 7089) over a crawled archive', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { host: 'archive.test', ...headers } });
  /** The memento URIs of doc, from its TimeMap (what a Memento client would read). */
  let mementos: string[] = [];

  beforeAll(async () => {
    fx = await buildArchive();
    app = await buildServer({ dataDir: fx.dataDir, publicUrl: BASE });
    const tm = parseLinkFormat((await get(`/timemap/link/${fx.doc}`)).body);
    mementos = tm.links.filter((l) => l.params.rel?.split(' ').includes('memento')).map((l) => l.uri);
  });
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('lists every capture in the link-format TimeMap, with original, self and timegate', async () => {
    const res = await get(`/timemap/link/${fx.doc}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/link-format/);
    expect(fx.times).toHaveLength(4);
    const ts = (t: number) => new Date(t).toISOString().replace(/[-:T]/g, '').slice(0, 14);
    // The last two captures may share a second: then their timestamps carry milliseconds to stay distinct.
    const sameSecond = ts(fx.times[2]!) === ts(fx.times[3]!);
    const stamp = (i: number) => (sameSecond && i >= 2 ? new Date(fx.times[i]!).toISOString().replace(/[-:T.Z]/g, '').slice(0, 17) : ts(fx.times[i]!));
    expect(res.body).toBe([
      `<${fx.doc}>; rel="original"`,
      `<${BASE}/timemap/link/${fx.doc}>; rel="self"; type="application/link-format"; from="${date(fx.times[0]!)}"; until="${date(fx.times[3]!)}"`,
      `<${BASE}/timegate/${fx.doc}>; rel="timegate"`,
      `<${BASE}/memento/${stamp(0)}/${fx.doc}>; rel="first memento"; datetime="${date(fx.times[0]!)}"`,
      `<${BASE}/memento/${stamp(1)}/${fx.doc}>; rel="memento"; datetime="${date(fx.times[1]!)}"`,
      `<${BASE}/memento/${stamp(2)}/${fx.doc}>; rel="memento"; datetime="${date(fx.times[2]!)}"`,
      `<${BASE}/memento/${stamp(3)}/${fx.doc}>; rel="last memento"; datetime="${date(fx.times[3]!)}"`,
    ].join(',\n') + '\n');
    expect(new Set(mementos).size).toBe(4);
  });

  it('gives the TimeMap as JSON too, and 404 for a URL it never captured', async () => {
    const res = await get(`/timemap/json/${fx.doc}`);
    const tm = res.json();
    expect(tm.original_uri).toBe(fx.doc);
    expect(tm.timegate_uri).toBe(`${BASE}/timegate/${fx.doc}`);
    expect(tm.mementos.list.map((m: { uri: string }) => m.uri)).toEqual(mementos);
    expect(tm.mementos.first.datetime).toBe(new Date(fx.times[0]!).toISOString());
    expect(tm.mementos.last.uri).toBe(mementos[3]);
    expect((await get(`/timemap/link/${fx.origin.url}/never.ttl`)).statusCode).toBe(404);
    expect((await get('/timemap/link/ftp://example.org/x')).statusCode).toBe(400);
  });

  it('TimeGate redirects to the closest memento before, between and after the captures', async () => {
    const [t0, t1, , t3] = fx.times as [number, number, number, number];
    const cases: Array<[string, number | undefined, number]> = [
      ['a day before the first capture', t0 - 86_400_000, 0],
      ['just after the first capture', Math.ceil(t0 / 1000) * 1000, 0],
      ['just before the second capture', Math.floor(t1 / 1000) * 1000, 1],
      ['a day after the last capture', t3 + 86_400_000, 3],
      ['no Accept-Datetime: the latest', undefined, 3],
    ];
    for (const [what, at, expected] of cases) {
      const res = await get(`/timegate/${fx.doc}`, at === undefined ? {} : { 'accept-datetime': date(at) });
      expect(res.statusCode, what).toBe(302);
      expect(res.headers.location, what).toBe(mementos[expected]);
      expect(res.headers.vary).toBe('accept-datetime');
      expect(res.headers.link).toBe(`<${fx.doc}>; rel="original", <${BASE}/timemap/link/${fx.doc}>; rel="timemap"; type="application/link-format"`);
      expect(res.headers['memento-datetime']).toBeUndefined();
    }
    const bad = await get(`/timegate/${fx.doc}`, { 'accept-datetime': 'last tuesday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/Accept-Datetime/);
  });

  it('serves each memento with its datetime, exact Link relations and the bytes the origin served', async () => {
    for (let i = 0; i < 4; i++) {
      const res = await get(new URL(mementos[i]!).pathname);
      expect(res.statusCode, `memento ${i}`).toBe(200);
      expect(res.headers['memento-datetime']).toBe(date(fx.times[i]!));
      expect(res.headers['content-type']).toBe('text/turtle');
      // Revisit records (2: same bytes, 3: 304) are replayed with the bytes of the capture they refer to.
      expect(res.rawPayload.equals(Buffer.from(fx.served[i]!)), `memento ${i} bytes`).toBe(true);
      expect(res.headers['x-archive-orig-x-origin']).toBe('yes');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none';.*; sandbox$/);
    }
    const m = (i: number) => `<${mementos[i]}>`;
    const dt = (i: number) => `datetime="${date(fx.times[i]!)}"`;
    const head = `<${fx.doc}>; rel="original", <${BASE}/timegate/${fx.doc}>; rel="timegate", <${BASE}/timemap/link/${fx.doc}>; rel="timemap"; type="application/link-format"`;
    expect((await get(new URL(mementos[0]!).pathname)).headers.link).toBe(
      `${head}, ${m(0)}; rel="first memento"; ${dt(0)}, ${m(1)}; rel="next memento"; ${dt(1)}, ${m(3)}; rel="last memento"; ${dt(3)}`);
    expect((await get(new URL(mementos[1]!).pathname)).headers.link).toBe(
      `${head}, ${m(0)}; rel="first prev memento"; ${dt(0)}, ${m(1)}; rel="memento"; ${dt(1)}, ${m(2)}; rel="next memento"; ${dt(2)}, ${m(3)}; rel="last memento"; ${dt(3)}`);
    expect((await get(new URL(mementos[3]!).pathname)).headers.link).toBe(
      `${head}, ${m(0)}; rel="first memento"; ${dt(0)}, ${m(2)}; rel="prev memento"; ${dt(2)}, ${m(3)}; rel="last memento"; ${dt(3)}`);
  });

  it('gives a memento as RDF: ?format=nquads or Accept: application/n-quads', async () => {
    const v1 = await get(`${new URL(mementos[1]!).pathname}?format=nquads`);
    expect(v1.headers['content-type']).toMatch(/^application\/n-quads/);
    expect(v1.headers['memento-datetime']).toBe(date(fx.times[1]!));
    expect(v1.body).toContain('<http://example.org/bob> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person>');
    expect(v1.body).toContain('"Alice B."');
    const v0 = await get(new URL(mementos[0]!).pathname, { accept: 'application/n-quads' });
    expect(v0.body).toContain('"Alice"');
    expect(v0.body).not.toContain('bob');
    // The 304 capture has no conversion record of its own: its graph is that of the last change.
    expect((await get(`${new URL(mementos[3]!).pathname}?format=nquads`)).body).toBe(v1.body);
    // A browser's Accept keeps the original bytes.
    expect((await get(new URL(mementos[0]!).pathname, { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' })).headers['content-type']).toBe('text/turtle');
  });

  it('redirects an inexact timestamp to the closest memento, and refuses a malformed one', async () => {
    const res = await get(`/memento/2001/${fx.doc}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(mementos[0]);
    expect((await get(`/memento/yesterday/${fx.doc}`)).statusCode).toBe(400);
    const other = await get(`/timegate/${fx.other}`);
    const replay = await get(new URL(other.headers.location as string).pathname);
    expect(replay.body).toBe(OTHER);
    expect(replay.headers['content-type']).toBe('application/n-triples');
  });

  it('replays a 404 capture as a 404 memento', async () => {
    const tm = parseLinkFormat((await get(`/timemap/link/${fx.gone}`)).body).links.filter((l) => l.params.rel?.includes('memento'));
    expect(tm).toHaveLength(2);
    const last = await get(new URL(tm[1]!.uri).pathname);
    expect(last.statusCode).toBe(404);
    expect(last.headers['memento-datetime']).toBeDefined();
    expect((await get(`${new URL(tm[1]!.uri).pathname}?format=nquads`)).body).toBe('');
  });

  it('is read by the federation TimeMap aggregator over HTTP (with a second base that answers 404: no mementos there)', async () => {
    const a = await startServer({ dataDir: fx.dataDir, port: 0 });
    try {
      const tm = await aggregateTimeMap(fx.doc, [a.url, `${a.url}/nothing-here`]);
      expect(tm.mementos.map((m) => m.datetime)).toEqual(fx.times.map((t) => Math.floor(t / 1000) * 1000));
      expect(tm.mementos.every((m) => m.uri.startsWith(`${a.url}/memento/`))).toBe(true);
      expect(tm.archives.map((x) => x.status)).toEqual(['ok', 'none']);
    } finally {
      await a.app.close();
    }
  });
});
