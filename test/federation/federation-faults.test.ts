/**
 * Archives that misbehave must cost the federation only themselves: one that publishes a garbage
 * capacity document takes no URLs, one that publishes garbage holdings is asked (not hidden), and
 * one that accepts the connection but refuses the write hands its URLs to the next archive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildFederationServer } from '../../src/server/federator.ts';

interface Fake {
  base: string;
  server: http.Server;
  posted: string[][];
  asked: string[];
}

const URL_X = 'http://data.example/x';

async function fake(o: { capacity: unknown; holdings: string; post: number }): Promise<Fake> {
  const posted: string[][] = [];
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url === '/api/federation/capacity') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o.capacity));
    if (req.url === '/api/federation/holdings') return res.writeHead(200, { 'content-type': 'application/json' }).end(o.holdings);
    if (req.url?.startsWith('/timemap/link/')) {
      return res.writeHead(200, { 'content-type': 'application/link-format' })
        .end(`<${URL_X}>; rel="original", <${base}/memento/20200101000000/${URL_X}>; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT"`);
    }
    if (req.method === 'POST' && req.url === '/api/urls') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const urls = (JSON.parse(body) as { urls: string[] }).urls;
        if (o.post !== 201) return res.writeHead(o.post, { 'content-type': 'text/plain' }).end('refused\n');
        posted.push(urls);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ monitored: urls.length, added: urls.length, urls }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, server, posted, asked };
}

const goodCapacity = { capacity: 1000, monitored: 0, free: 1000, acceptsUrls: true };
let garbageCapacity: Fake;
let garbageHoldings: Fake;
let refuses: Fake;
let fed: FastifyInstance;
let fedBase: string;

beforeAll(async () => {
  garbageCapacity = await fake({ capacity: { capacity: 'lots', free: -1 }, holdings: '{}', post: 201 });
  garbageHoldings = await fake({ capacity: goodCapacity, holdings: '{"bloom": {"m": 64, "k": 3, "bits": "not the right length"}}', post: 201 });
  // Good documents, but every write is refused (say, its token was changed).
  refuses = await fake({ capacity: { ...goodCapacity, capacity: 1e6, free: 1e6 }, holdings: 'not json', post: 401 });
  const tokens = new Map([garbageCapacity, garbageHoldings, refuses].map((f) => [f.base, 't']));
  ({ app: fed } = await buildFederationServer({ archives: [garbageCapacity.base, garbageHoldings.base, refuses.base], tokens, timeoutMs: 2000, token: 'T' }));
  fedBase = await fed.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await fed?.close();
  for (const f of [garbageCapacity, garbageHoldings, refuses]) await new Promise((r) => f?.server.close(r));
});

describe('misbehaving archives', () => {
  it('an unreadable capacity document takes no URLs; a refused write goes to the next archive', async () => {
    const urls = Array.from({ length: 30 }, (_, i) => `http://new.example/${i}`);
    const res = await fetch(`${fedBase}/api/urls`, { method: 'POST', headers: { authorization: 'Bearer T', 'content-type': 'text/plain' }, body: urls.join('\n') });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.unplaced).toEqual([]);
    expect(body.placed).toEqual([{ archive: garbageHoldings.base, urls: expect.any(Array), added: 30 }]);
    expect(garbageHoldings.posted.flat().sort()).toEqual([...urls].sort());
    expect(garbageCapacity.posted).toEqual([]);
    const why = Object.fromEntries(body.passedOver.map((p: { archive: string; why: string }) => [p.archive, p.why]));
    expect(why[garbageCapacity.base]).toMatch(/unreadable capacity document/);
    expect(why[refuses.base]).toMatch(/forwarding failed: HTTP 401/);
  });

  it('archives whose holdings are unreadable are asked, and their mementos count', async () => {
    const tm = await (await fetch(`${fedBase}/timemap/json/${URL_X}`)).json();
    expect(tm.archives.map((a: { status: string }) => a.status)).toEqual(['ok', 'ok', 'ok']);
    expect(tm.mementos.list).toHaveLength(3);
    const states = await (await fetch(`${fedBase}/api/federation/archives`)).json();
    expect(states.archives[1].holdingsError).toMatch(/unreadable holdings/);
    expect(states.archives[2].holdingsError).toMatch(/JSON/);
  });

  it('refuses submissions without the token, and all of a list with one bad URL', async () => {
    expect((await fetch(`${fedBase}/api/urls`, { method: 'POST', body: 'http://a.example/' })).status).toBe(401);
    const before = garbageHoldings.posted.length;
    const bad = await fetch(`${fedBase}/api/urls`, { method: 'POST', headers: { authorization: 'Bearer T', 'content-type': 'application/json' }, body: JSON.stringify(['http://a.example/', 'mailto:x@y']) });
    expect(bad.status).toBe(400);
    expect((await bad.json()).invalid).toEqual(['mailto:x@y']);
    expect(garbageHoldings.posted.length).toBe(before);
    const { app: closed } = await buildFederationServer({ archives: [refuses.base] });
    const res = await closed.inject({ method: 'POST', url: '/api/urls', payload: ['http://a.example/'] });
    expect(res.statusCode).toBe(403);
    await closed.close();
  });
});
