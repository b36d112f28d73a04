import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSurt } from 'warcio';
import type { FastifyInstance } from 'fastify';
import { buildServer, startServer, surt, cdxLines } from '../../src/server/index.ts';
import { openStore } from '../../src/store/index.ts';
import { normalizeUrl } from '../../src/frontier/normalize.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';
import { documents, LOADED_TIMEOUT_MS, repoRoot, tempDir } from '../helpers.ts';
import { serveCli } from './serve-cli.ts';

describe('SURT keys and CDXJ selection', () => {
  it('writes SURT keys as pywb does', () => {
    expect(surt('http://www.Example.com/Path?b=2&a=1')).toBe('com,example)/path?a=1&b=2');
    expect(surt('https://example.org')).toBe('org,example)/');
    expect(surt('http://127.0.0.1:8080/doc.ttl#frag')).toBe('1,0,0,127:8080)/doc.ttl');
    expect(surt('http://data.example.org:80/a')).toBe('org,example,data)/a');
    // python's surt lower-cases the query, then sorts its arguments by name and value.
    expect(surt('http://example.org/p?a=1&B=2')).toBe('org,example)/p?a=1&b=2');
    expect(surt('http://example.org/p?b=1&a-b=2&a=3')).toBe('org,example)/p?a=3&a-b=2&b=1');
    expect(surt('http://User@WWW.Example.org/')).toBe('org,example)/');
    // An IPv6 host keeps its brackets: [::1]:8080 and [::1:8080] are different servers.
    expect(surt('http://[::1]:8080/x')).toBe('[::1]:8080)/x');
    expect(surt('http://[::1:8080]/x')).not.toBe(surt('http://[::1]:8080/x'));
  });

  it("agrees with warcio's getSurt on the URLs a crawl archives, differing only where warcio's is not python's", () => {
    const same = [
      'http://example.com/', 'https://www.example.com/a/b?b=2&a=1', 'http://www2.Example.COM:8080/Path?Q=1', 'http://[::1]:8080/x',
      'http://127.0.0.1/x', 'https://example.com', 'http://example.com/a#frag', 'http://example.com/%7Efoo', 'http://example.com/a b',
      'http://example.com/?', 'http://example.com/?a=1&&b=2', 'http://example.com:80/x', 'https://example.com:443/x',
      'http://bücher.example/', 'http://example.org/p?a=1&B=2', 'http://example.org/%C3%84?%C3%B6=1',
    ];
    for (const url of same) {
      const normalized = normalizeUrl(url)!;
      expect(surt(normalized), url).toBe(getSurt(normalized));
    }
    // The departures listed at surt(): each would split one host's captures over several keys.
    expect(getSurt('http://WWW.example.com/')).toBe('com,example,www)/');
    expect(getSurt('http://u@www.example.com/')).toBe('com,example,www)/');
    expect(getSurt('http://example.org/p?b=1&a-b=2&a=3')).toBe('org,example)/p?a-b=2&a=3&b=1');
    expect(surt('http://WWW.example.com/')).toBe(surt('http://u@www.example.com/'));
  });

  it('selects by matchType and time window', () => {
    const at = (iso: string) => Date.parse(iso);
    const e = (url: string, time: string): CrawlLogEntry => ({ url, time: at(time), status: 200, durationMs: 1, bytes: 1, change: 'new', triples: 0, warcFile: 'w.warc.gz', warcOffset: 0, warcLength: 10, mediaType: 'text/turtle', checksum: 'sha1:ABC' });
    const log = [
      e('http://example.org/a', '2025-01-01T00:00:00Z'), e('http://example.org/a', '2025-06-01T00:00:00Z'), e('http://example.org/ab', '2025-02-01T00:00:00Z'),
      e('http://data.example.org/x', '2025-03-01T00:00:00Z'), e('http://example.com/a', '2025-04-01T00:00:00Z'),
      { ...e('http://example.org/a', '2025-07-01T00:00:00Z'), warcFile: undefined }, // no record: not a capture
    ];
    const urls = (q: Parameters<typeof cdxLines>[1]) => cdxLines(log, q).map((l) => `${l.url} ${l.timestamp}`);
    expect(urls({ url: 'http://example.org/a' })).toEqual(['http://example.org/a 20250101000000', 'http://example.org/a 20250601000000']);
    expect(urls({ url: 'http://example.org/a', matchType: 'prefix' })).toEqual(['http://example.org/a 20250101000000', 'http://example.org/a 20250601000000', 'http://example.org/ab 20250201000000']);
    expect(urls({ url: 'example.org/a*' })).toHaveLength(3);
    expect(urls({ url: 'http://example.org/', matchType: 'host' })).toHaveLength(3);
    expect(urls({ url: 'example.org', matchType: 'domain' })).toHaveLength(4);
    expect(urls({ url: 'http://example.org/a', from: '2025', to: '202503' })).toEqual(['http://example.org/a 20250101000000']);
    expect(urls({ url: 'http://example.org/a', from: '20250102' })).toEqual(['http://example.org/a 20250601000000']);
  });
});

describe('CDXJ endpoint and the write API over a real archive', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;

  beforeAll(async () => {
    fx = await buildArchive({ spacingMs: 0 });
    app = await buildServer({ dataDir: fx.dataDir, token: 's3cret', publicUrl: 'http://a.test/' });
  });
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('lists the captures as CDXJ lines: SURT timestamp JSON, pointing at the WARC records', async () => {
    const res = await app.inject({ url: `/cdx?url=${encodeURIComponent(fx.doc)}` });
    expect(res.statusCode).toBe(200);
    const lines = res.body.trim().split('\n');
    expect(lines).toHaveLength(4);
    const port = new URL(fx.doc).port;
    const mimes: string[] = [];
    for (const line of lines) {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      expect(m, line).not.toBeNull();
      expect(m![1]).toBe(`1,0,0,127:${port})/doc.ttl`);
      const fields = JSON.parse(m![3]!);
      expect(Object.keys(fields)).toEqual(['url', 'mime', 'status', 'digest', 'length', 'offset', 'filename']);
      expect(fields.url).toBe(fx.doc);
      mimes.push(fields.mime);
      expect(fields.filename).toMatch(/\.warc\.gz$/);
      expect(Number(fields.length)).toBeGreaterThan(0);
    }
    // new, changed, same bytes again (revisit), 304 (revisit)
    expect(mimes).toEqual(['text/turtle', 'text/turtle', 'warc/revisit', 'warc/revisit']);
    expect(JSON.parse(lines[0]!.split(' ').slice(2).join(' ')).status).toBe('200');
    expect(JSON.parse(lines[3]!.split(' ').slice(2).join(' ')).status).toBe('304');
    const host = await app.inject({ url: `/cdx?url=${encodeURIComponent(fx.origin.url + '/')}&matchType=host&output=json` });
    const urls = new Set(host.body.trim().split('\n').map((l) => JSON.parse(l).url));
    expect(urls).toEqual(new Set([fx.doc, fx.other, fx.gone]));
    const ts = lines[0]!.split(' ')[1]!;
    expect((await app.inject({ url: `/cdx?url=${encodeURIComponent(fx.doc)}&to=${Number(ts) - 1}` })).body).toBe('');
    const link = await app.inject({ url: `/cdx?url=${encodeURIComponent(fx.other)}&output=link`, headers: { host: 'evil.test' } });
    const otherTs = (await app.inject({ url: `/cdx?url=${encodeURIComponent(fx.other)}` })).body.split(' ')[1]!;
    const otherTime = Date.parse(`${otherTs.slice(0, 4)}-${otherTs.slice(4, 6)}-${otherTs.slice(6, 8)}T${otherTs.slice(8, 10)}:${otherTs.slice(10, 12)}:${otherTs.slice(12, 14)}Z`);
    expect(link.body).toBe(`<http://a.test/memento/${otherTs}/${fx.other}>; rel="memento"; datetime="${new Date(otherTime).toUTCString()}"\n`);
    expect((await app.inject({ url: '/cdx?url=x&matchType=fuzzy' })).statusCode).toBe(400);
    expect((await app.inject({ url: '/cdx' })).statusCode).toBe(400);
  });

  it('over real HTTP on 127.0.0.1: writes need the bearer token, and added URLs become monitored', async () => {
    const { app: live, url } = await startServer({ dataDir: fx.dataDir, port: 0, token: 's3cret' });
    const locked = await startServer({ dataDir: fx.dataDir, port: 0 });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const body = JSON.stringify({ urls: ['http://example.org/new.ttl', fx.other] });
      const post = (base: string, headers: Record<string, string>) => fetch(`${base}/api/urls`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect((await post(locked.url, { authorization: 'Bearer s3cret' })).status).toBe(403);
      const noToken = await post(url, {});
      expect(noToken.status).toBe(401);
      expect(noToken.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect((await post(url, { authorization: 'Bearer wrong' })).status).toBe(401);
      const ok = await post(url, { authorization: 'Bearer s3cret' });
      expect(ok.status).toBe(201);
      expect(await ok.json()).toMatchObject({ monitored: 2, added: 1 });
      const docs = new Map(documents(fx.dataDir).map((d) => [d.url, d]));
      expect(docs.get('http://example.org/new.ttl')?.monitored).toBe(1);
      expect(docs.get(fx.other)?.monitored).toBe(1);
      const lines = await fetch(`${url}/api/urls`, { method: 'POST', headers: { 'content-type': 'text/plain', authorization: 'Bearer s3cret' }, body: '# one a line\nhttp://example.org/third.ttl\n' });
      expect(await lines.json()).toMatchObject({ monitored: 1, added: 1, urls: ['http://example.org/third.ttl'] });
      const bad = await fetch(`${url}/api/urls`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer s3cret' }, body: JSON.stringify({ urls: ['mailto:x@example.org'] }) });
      expect(bad.status).toBe(400);
      // Starting a cycle: refused without the token; with it, started (202) or not in this build yet (501).
      expect((await fetch(`${url}/api/cycle`, { method: 'POST' })).status).toBe(401);
      expect([202, 501]).toContain((await fetch(`${url}/api/cycle`, { method: 'POST', headers: { authorization: 'Bearer s3cret' } })).status);
      // Reads need no token, over the same socket.
      const tm = await fetch(`${url}/timemap/link/${fx.doc}`);
      expect(tm.status).toBe(200);
      expect(await tm.text()).toContain(`<${url}/timegate/${fx.doc}>; rel="timegate"`);
    } finally {
      await live.close();
      await locked.app.close();
    }
  });

  it('opens the store it was given without closing it', async () => {
    const store = await openStore(fx.dataDir);
    await store.init();
    const own = await buildServer({ dataDir: fx.dataDir, store });
    await own.close();
    expect(await store.countDocuments()).toBeGreaterThan(0);
    await store.close();
  });

  it('runs as `datamonitor serve`: prints its 127.0.0.1 URL and serves; refuses a directory without an archive', async () => {
    const bin = path.join(repoRoot, 'bin/datamonitor.mjs');
    const served = await serveCli(fx.dataDir);
    try {
      const { url, writes } = served.info;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(writes).toBe(false);
      expect((await fetch(`${url}/`)).status).toBe(200);
      expect((await fetch(`${url}/api/urls`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/json' } })).status).toBe(403);
    } finally {
      await served.stop();
    }
    const empty = spawnSync(process.execPath, [bin, 'serve', '--data', tempDir('dm-empty-'), '--port', '0'], { encoding: 'utf8' });
    expect(empty.status).toBe(66);
    expect(empty.stderr).toMatch(/no archive in .*crawl into it first/);
  }, LOADED_TIMEOUT_MS);
});
