/**
 * A federation of three real archives (`buildServer` over data directories made by crawling a site on
 * 127.0.0.1), one of them down, behind the federate server: merged TimeMap, TimeGate across
 * archives, holdings that keep look-ups away from archives that cannot hold the URL, and new URLs
 * handed to the live archives by capacity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { crawl } from '../../src/crawler/crawl.ts';
import { buildServer } from '../../src/server/index.ts';
import { buildFederationServer } from '../../src/server/federator.ts';
import { BloomFilter } from '../../src/federation/bloom.ts';
import { assignArchive } from '../../src/federation/rendezvous.ts';
import { parseLinkFormat, rels } from '../../src/util/link-format.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { LOADED_TIMEOUT_MS, runMain, tempDir } from '../helpers.ts';

const TOKENS = { a: 'token-a', b: 'token-b', c: 'token-c' } as const;
const FED_TOKEN = 'federation-token';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const date = (t: number) => new Date(t).toUTCString();

interface Archive {
  name: 'a' | 'b' | 'c';
  dataDir: string;
  app: FastifyInstance;
  base: string;
  /** Paths of the requests it received. */
  asked: string[];
}

let origin: TestServer;
/** What /doc.ttl served at each crawl, and when that crawl began and ended. */
const served: Array<{ body: string; archive: string; at: number; until: number }> = [];
let version = 0;
const archives: Record<'a' | 'b' | 'c', Archive> = {} as never;
let fed: FastifyInstance;
let fedBase: string;
const tokensFile = () => Object.values(archives).map((x) => `${x.base} ${TOKENS[x.name]}`).join('\n') + '\n';

async function crawlInto(dataDir: string, paths: string[]): Promise<void> {
  await crawl({
    seeds: paths.map((p) => `${origin.url}${p}`), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true,
    // The holdings counted below are the documents' captures: no robots.txt capture among them.
    domains: ['127.0.0.1'], robots: false,
  }).run();
}

async function startArchive(name: 'a' | 'b' | 'c', dataDir: string, capacity: number): Promise<Archive> {
  fs.writeFileSync(path.join(dataDir, 'federation.json'), JSON.stringify({ capacity, budgetPerCycle: capacity / 10, cycleMinutes: 60 }));
  const app = await buildServer({ dataDir, token: TOKENS[name] });
  const asked: string[] = [];
  app.addHook('onRequest', async (req) => void asked.push(req.url));
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { name, dataDir, app, base, asked };
}

beforeAll(async () => {
  origin = await startServer((_req, res, url) => {
    if (url.pathname === '/doc.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<http://example.org/doc> <http://example.org/version> ${version} .\n`);
    const m = /^\/(a|b|c)\.ttl$/.exec(url.pathname);
    if (m) return res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<http://example.org/${m[1]}> a <http://example.org/Thing> .\n`);
    res.writeHead(404).end();
  });
  const dirs = { a: tempDir('dm-fed-a-'), b: tempDir('dm-fed-b-'), c: tempDir('dm-fed-c-') };
  // doc.ttl changes at every crawl; the crawls are over a second apart, as the TimeGate's HTTP dates
  // have second precision. a.ttl, b.ttl and c.ttl are each held by one archive only.
  const order: Array<'a' | 'b' | 'c'> = ['a', 'b', 'c', 'a'];
  for (const [i, name] of order.entries()) {
    if (i) await sleep(1100);
    version = i + 1;
    const at = Date.now();
    await crawlInto(dirs[name], ['/doc.ttl', `/${name}.ttl`]);
    served.push({ body: `<http://example.org/doc> <http://example.org/version> ${version} .\n`, archive: name, at, until: Date.now() });
  }
  archives.a = await startArchive('a', dirs.a, 100);
  archives.b = await startArchive('b', dirs.b, 300);
  // The biggest archive, and down: nothing may be sent to it, and answers must say it did not answer.
  archives.c = await startArchive('c', dirs.c, 10_000);
  expect((await fetch(`${archives.c.base}/timemap/link/${origin.url}/c.ttl`)).status).toBe(200);
  await archives.c.app.close();
  const tokens = new Map(Object.values(archives).map((x) => [x.base, TOKENS[x.name]]));
  ({ app: fed } = await buildFederationServer({ archives: Object.values(archives).map((x) => x.base), tokens, timeoutMs: 30_000, refreshMs: 0, token: FED_TOKEN }));
  fedBase = await fed.listen({ port: 0, host: '127.0.0.1' });
}, LOADED_TIMEOUT_MS);

afterAll(async () => {
  await fed?.close();
  await archives.a?.app.close();
  await archives.b?.app.close();
  await origin?.close();
});

const doc = () => `${origin.url}/doc.ttl`;

describe('what an archive publishes', () => {
  it('a capacity document: monitored URLs, capacity from federation.json, free room, endpoints', async () => {
    const cap = await (await fetch(`${archives.a.base}/api/federation/capacity`)).json();
    expect(cap).toMatchObject({ archive: archives.a.base, configured: true, capacity: 100, free: 100 - cap.monitored, budgetPerCycle: 10, cycleMinutes: 60, acceptsUrls: true, documents: 2, hosts: 1 });
    expect(cap.endpoints.submit).toBe(`${archives.a.base}/api/urls`);

    const file = path.join(archives.a.dataDir, 'federation.json');
    const saved = fs.readFileSync(file);
    try {
      fs.writeFileSync(file, '{"capacity": "lots"}');
      const bad = await fetch(`${archives.a.base}/api/federation/capacity`);
      expect(bad.status).toBe(400);
      expect(await bad.text()).toMatch(/federation\.json needs "capacity": a number >= 0/);
      fs.rmSync(file);
      const none = await (await fetch(`${archives.a.base}/api/federation/capacity`)).json();
      expect(none).toMatchObject({ configured: false, free: 0, acceptsUrls: false });
      expect(none.note).toMatch(/takes no new URLs/);
    } finally {
      fs.writeFileSync(file, saved);
    }
  });

  it('holdings: per-host counts and a Bloom filter of the URLs it has captures of; 304 when unchanged', async () => {
    const res = await fetch(`${archives.a.base}/api/federation/holdings`);
    const h = await res.json();
    expect(h.urls).toBe(2);
    expect(h.captures).toBe(4); // A crawled doc.ttl and a.ttl twice
    expect(h.hosts).toEqual([{ host: new URL(origin.url).host, urls: 2, captures: 4 }]);
    const bloom = BloomFilter.fromJSON(h.bloom);
    expect(bloom.mayContain(doc())).toBe(true);
    expect(bloom.mayContain(`${origin.url}/a.ttl`)).toBe(true);
    expect(bloom.mayContain(`${origin.url}/b.ttl`)).toBe(false);
    const again = await fetch(`${archives.a.base}/api/federation/holdings`, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('the federation of three archives, one down', () => {
  it('merges the TimeMaps of the two live archives and names the dead one', async () => {
    const res = await fetch(`${fedBase}/timemap/json/${doc()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('datamonitor-unanswered')).toBe(archives.c.base);
    expect(res.headers.get('datamonitor-warning')).toMatch(/ECONNREFUSED/);
    const tm = await res.json();
    expect(tm.archives.map((x: { archive: string; status: string }) => [x.archive, x.status])).toEqual([
      [archives.a.base, 'ok'], [archives.b.base, 'ok'], [archives.c.base, 'failed'],
    ]);
    // A's two captures and B's one, oldest first; C's (the third crawl) is missing with C.
    const live = served.filter((s) => s.archive !== 'c');
    expect(tm.mementos.list.map((m: { uri: string }) => m.uri.slice(0, archives.a.base.length))).toEqual(live.map((s) => archives[s.archive as 'a' | 'b'].base));
    for (const [i, m] of (tm.mementos.list as Array<{ datetime: string }>).entries()) {
      // Within its crawl (the datetime has second precision): however long a loaded machine took for it.
      expect(Date.parse(m.datetime)).toBeGreaterThanOrEqual(Math.floor(live[i]!.at / 1000) * 1000);
      expect(Date.parse(m.datetime)).toBeLessThanOrEqual(live[i]!.until);
    }

    const link = await fetch(`${fedBase}/timemap/link/${doc()}`);
    const links = parseLinkFormat(await link.text()).links;
    expect(links[0]).toEqual({ uri: doc(), params: { rel: 'original' } });
    expect(links.find((l) => rels(l).includes('timegate'))?.uri).toBe(`${fedBase}/timegate/${doc()}`);
    expect(links.filter((l) => rels(l).includes('memento')).map((l) => l.uri)).toEqual(tm.mementos.list.map((m: { uri: string }) => m.uri));
  });

  it('TimeGate redirects to the closest memento across archives, which serves what the site served then', async () => {
    const tm = await (await fetch(`${fedBase}/timemap/json/${doc()}`)).json();
    const uris: string[] = tm.mementos.list.map((m: { uri: string }) => m.uri);
    // The datetimes the TimeMap gives (second precision), as a client would take them from it.
    const [t0, t1, t3] = tm.mementos.list.map((m: { datetime: string }) => Date.parse(m.datetime)) as [number, number, number];
    const cases: Array<[string, string | undefined, number]> = [
      ['a day before the first capture', date(t0 - 86_400_000), 0],
      ['the datetime of the capture in B', date(t1), 1],
      ['a day after the last', date(t3 + 86_400_000), 2],
      ['no Accept-Datetime: the latest', undefined, 2],
    ];
    for (const [what, at, i] of cases) {
      const res = await fetch(`${fedBase}/timegate/${doc()}`, { redirect: 'manual', headers: at ? { 'accept-datetime': at } : {} });
      expect(res.status, what).toBe(302);
      expect(res.headers.get('location'), what).toBe(uris[i]);
      expect(res.headers.get('vary')).toBe('accept-datetime');
      expect(res.headers.get('datamonitor-unanswered')).toBe(archives.c.base);
      const link = parseLinkFormat(res.headers.get('link')!).links;
      expect(link.find((l) => rels(l).includes('original'))?.uri).toBe(doc());
      expect(link.find((l) => rels(l).includes('timemap'))?.uri).toBe(`${fedBase}/timemap/link/${doc()}`);
      expect(link.find((l) => l.uri === uris[i])?.params.rel).toMatch(/memento/);
    }
    // The memento B holds is the second version, as the site served it at B's crawl.
    const res = await fetch(`${fedBase}/timegate/${doc()}`, { headers: { 'accept-datetime': date(t1) } });
    expect(res.status).toBe(200);
    expect(res.url.startsWith(archives.b.base)).toBe(true);
    expect(await res.text()).toBe(served[1]!.body);

    expect((await fetch(`${fedBase}/timegate/${doc()}`, { headers: { 'accept-datetime': 'yesterday' } })).status).toBe(400);
    // Held by no live archive, and the dead one may hold it: 502, not 404.
    const missing = await fetch(`${fedBase}/timegate/${origin.url}/c.ttl`, { redirect: 'manual' });
    expect(missing.status).toBe(502);
    expect(await missing.text()).toContain(archives.c.base);
  });

  it('asks only archives whose holdings may contain the URL', async () => {
    for (const x of [archives.a, archives.b]) x.asked.length = 0;
    const onlyA = await (await fetch(`${fedBase}/timemap/json/${origin.url}/a.ttl`)).json();
    expect(onlyA.archives.map((x: { status: string }) => x.status)).toEqual(['ok', 'skipped', 'failed']);
    expect(onlyA.mementos.list).toHaveLength(2);
    expect(archives.a.asked.filter((p) => p.startsWith('/timemap/'))).toEqual([`/timemap/link/${origin.url}/a.ttl`]);
    expect(archives.b.asked.filter((p) => p.startsWith('/timemap/'))).toEqual([]);

    const onlyB = await (await fetch(`${fedBase}/timemap/json/${origin.url}/b.ttl`)).json();
    expect(onlyB.archives.map((x: { status: string }) => x.status)).toEqual(['skipped', 'ok', 'failed']);
    expect(archives.a.asked.filter((p) => p.startsWith('/timemap/'))).toHaveLength(1);

    // A URL nobody holds: neither live archive is asked; only the dead one, whose holdings are unknown, is tried.
    const nobody = await fetch(`${fedBase}/timemap/link/${origin.url}/never.ttl`);
    expect(nobody.status).toBe(502);
    expect([...archives.a.asked, ...archives.b.asked].filter((p) => p.includes('never.ttl'))).toEqual([]);
  });

  it('hands new URLs to the live archives by free capacity, never to the dead one; held URLs stay where they are', async () => {
    const post = (body: unknown, token = FED_TOKEN) => fetch(`${fedBase}/api/urls`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
    });
    expect((await post({ urls: [`${origin.url}/x`] }, 'wrong')).status).toBe(401);
    const invalid = await post({ urls: [`${origin.url}/fine`, 'ftp://nope/'] });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).invalid).toEqual(['ftp://nope/']);

    const capBefore = async (x: Archive) => (await (await fetch(`${x.base}/api/federation/capacity`)).json()) as { free: number; monitored: number };
    const [freeA, freeB] = [(await capBefore(archives.a)).free, (await capBefore(archives.b)).free];
    const urls = Array.from({ length: 200 }, (_, i) => `http://data${i % 7}.example.org/set/${i}.ttl`);
    const res = await post({ urls });
    expect(res.status).toBe(201);
    const result = await res.json();
    expect(result.unplaced).toEqual([]);
    expect(result.passedOver).toEqual([{ archive: archives.c.base, why: expect.stringMatching(/capacity unknown: ECONNREFUSED/) }]);
    const got = new Map<string, string[]>(result.placed.map((p: { archive: string; urls: string[] }) => [p.archive, p.urls]));
    expect(got.has(archives.c.base)).toBe(false);
    const toA = got.get(archives.a.base) ?? [];
    const toB = got.get(archives.b.base) ?? [];
    expect(toA.length + toB.length).toBe(200);
    // The capacity-weighted rendezvous assignment over the live archives' free capacity (1:3).
    const open = [{ id: archives.a.base, capacity: freeA }, { id: archives.b.base, capacity: freeB }];
    // Once in about ten suite runs this disagreed and the cause is not known yet: the message keeps what would tell
    // (each URL's reason, the free capacity read before and the capacity documents as the federation read them).
    const why = async (u: string) => JSON.stringify({ url: u, reason: result.reasons[u], freeA, freeB,
      federationRead: (await (await fetch(`${fedBase}/api/federation/archives`)).json()) });
    for (const u of toA) if (assignArchive(u, open) !== archives.a.base) expect.fail(`placed on a, rendezvous says b: ${await why(u)}`);
    for (const u of toB) if (assignArchive(u, open) !== archives.b.base) expect.fail(`placed on b, rendezvous says a: ${await why(u)}`);
    expect(toA.length / 200).toBeGreaterThan(0.12);
    expect(toA.length / 200).toBeLessThan(0.38);
    // The archives monitor them now: their capacity documents count them.
    expect((await capBefore(archives.a)).monitored).toBe(toA.length);
    expect((await capBefore(archives.b)).monitored).toBe(toB.length);

    // URLs an archive holds stay with it, whatever the capacity order says.
    const held = await (await post({ urls: [`${origin.url}/a.ttl`, `${origin.url}/b.ttl`] })).json();
    expect(held.reasons).toEqual({ [`${origin.url}/a.ttl`]: 'held', [`${origin.url}/b.ttl`]: 'held' });
    expect(Object.fromEntries(held.placed.map((p: { archive: string; urls: string[] }) => [p.archive, p.urls]))).toEqual({
      [archives.a.base]: [`${origin.url}/a.ttl`], [archives.b.base]: [`${origin.url}/b.ttl`],
    });

    // An archive that is full takes nothing more.
    const file = path.join(archives.a.dataDir, 'federation.json');
    const saved = fs.readFileSync(file);
    try {
      fs.writeFileSync(file, JSON.stringify({ capacity: (await capBefore(archives.a)).monitored }));
      const more = await (await post({ urls: Array.from({ length: 20 }, (_, i) => `http://more.example.org/${i}`) })).json();
      expect(more.placed.map((p: { archive: string }) => p.archive)).toEqual([archives.b.base]);
      expect(more.passedOver.map((p: { archive: string }) => p.archive).sort()).toEqual([archives.a.base, archives.c.base].sort());
    } finally {
      fs.writeFileSync(file, saved);
    }
  });

  it('the federate command runs it', async () => {
    const dir = tempDir('dm-fed-cli-');
    fs.writeFileSync(path.join(dir, 'tokens'), tokensFile());
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '../../bin/datamonitor.mjs'), 'federate',
      ...Object.values(archives).flatMap((x) => ['--archive', x.base]), '--tokens', path.join(dir, 'tokens'), '--port', '0', '--timeout', '2s', '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAMONITOR_TOKEN: FED_TOKEN } });
    const closed = new Promise((r) => child.once('close', r));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => ((out += d), out.includes('\n') && resolve(out.split('\n')[0]!)));
        child.stderr.on('data', (d) => (err += d));
        child.on('exit', (code) => reject(new Error(`federate exited with ${code}: ${err}`)));
      });
      const info = JSON.parse(line);
      expect(info).toMatchObject({ archives: Object.values(archives).map((x) => x.base), submissions: true });
      const gate = await fetch(`${info.url}/timegate/${doc()}`, { redirect: 'manual', headers: { 'accept-datetime': date(served[0]!.at - 86_400_000) } });
      expect(gate.status).toBe(302);
      expect(gate.headers.get('location')!.startsWith(archives.a.base)).toBe(true);
      const status = await (await fetch(`${info.url}/api/federation/archives`)).json();
      expect(status.archives.map((x: { answered: boolean }) => x.answered)).toEqual([true, true, false]);
    } finally {
      child.kill('SIGTERM');
      await closed;
    }
    // Usage errors: what the command says is the point, not a process start-up (runMain: in this process).
    const none = await runMain(['federate', '--port', '0']);
    expect(none.code).toBe(64);
    expect(none.err).toMatch(/at least one --archive/);
    fs.writeFileSync(path.join(dir, 'bad-tokens'), `http://elsewhere.example:1 t\n`);
    const bad = await runMain(['federate', '--archive', archives.a.base, '--tokens', path.join(dir, 'bad-tokens'), '--port', '0']);
    expect(bad.code).toBe(65);
    expect(bad.err).toMatch(/is not one of the --archive URLs/);
  }, LOADED_TIMEOUT_MS);
});
