/**
 * What a client of the Memento routes can rely on, and what it cannot make the server do: original headers as
 * X-Archive-Orig-*, links from the configured public URL (never the Host header), strict Accept-Datetime,
 * security headers, a readable error for a damaged record, and no file read outside the data directory.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, startServer } from '../../src/server/index.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { readRecord } from '../../src/archive/warc-reader.ts';
import { ArchiveReadError } from '../../src/archive/warc-files.ts';
import { replayDocument } from '../../src/archive/replay.ts';
import { startServer as startOrigin, type TestServer } from '../../src/testkit/server.ts';
import { openStore } from '../../src/store/index.ts';
import { crawlLog, LOADED_TIMEOUT_MS, repoRoot, tempDir } from '../helpers.ts';
import { serveCli } from './serve-cli.ts';
import { spawnSync } from 'node:child_process';

const PAGE = '<!DOCTYPE html><html><head><title>t</title></head><body><h1>Hello</h1></body></html>';

/** A copy of an archive whose crawl log points the page's capture at `warcFile` (what a damaged or tampered store holds). */
let scratch: string | undefined;
function tamperedCopy(dataDir: string, warcFile?: string): string {
  scratch ??= tempDir('dm-tampered-'); // one directory removed at exit, not one exit listener per copy
  const copy = fs.mkdtempSync(path.join(scratch, 'copy-'));
  fs.cpSync(dataDir, copy, { recursive: true });
  if (warcFile !== undefined) {
    const db = new Database(path.join(copy, 'meta.sqlite'));
    db.prepare('INSERT INTO warc_files (name) VALUES (?)').run(warcFile);
    db.prepare("UPDATE crawl_log SET warc_id = (SELECT id FROM warc_files WHERE name = ?) WHERE url LIKE '%/page.html'").run(warcFile);
    db.close();
  }
  return copy;
}

describe('Memento answers: headers, links, errors and the data directory', () => {
  let origin: TestServer;
  let app: FastifyInstance;
  const dataDir = tempDir('dm-safety-');
  let page: string;
  let ts: string;
  let crawlStart: number;
  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  beforeAll(async () => {
    origin = await startOrigin((_req, res, url) => {
      if (url.pathname !== '/page.html') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'set-cookie': ['session=abc; Path=/; HttpOnly', 'theme=dark'], 'x-custom': 'yes' });
      res.end(PAGE);
    });
    page = `${origin.url}/page.html`;
    crawlStart = Date.now();
    await crawl({ seeds: [page], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, domains: ['127.0.0.1'] }).run();
    app = await buildServer({ dataDir });
    ts = /\/memento\/(\d+)\//.exec((await get(`/timemap/json/${page}`)).json().mementos.first.uri)![1]!;
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
  });

  it('returns the original Date, Set-Cookie and framing headers as X-Archive-Orig-*, and sets no cookie itself', async () => {
    const res = await get(`/memento/${ts}/${page}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(PAGE);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['x-archive-orig-set-cookie']).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark']);
    const date = res.headers['x-archive-orig-date'] as string;
    expect(date).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(Date.parse(date)).toBeGreaterThanOrEqual(Math.floor(crawlStart / 1000) * 1000);
    expect(Date.parse(date)).toBeLessThanOrEqual(Date.now());
    expect(res.headers['x-archive-orig-content-length'] ?? res.headers['x-archive-orig-transfer-encoding']).toBeDefined();
    expect(res.headers['x-archive-orig-x-custom']).toBe('yes');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    // The page browsed in the archive says the same about its original.
    expect((await get(`/replay/${ts}/${page}`)).headers['x-archive-orig-set-cookie']).toEqual(['session=abc; Path=/; HttpOnly', 'theme=dark']);
  });

  it('never writes the Host header into Location or Link: links use --public-url, else the listen address', async () => {
    const evil = { host: 'evil.example' };
    const gate = await get(`/timegate/${page}`, evil);
    expect(gate.statusCode).toBe(302);
    for (const h of [gate.headers.location, gate.headers.link, (await get(`/memento/${ts}/${page}`, evil)).headers.link, (await get(`/timemap/link/${page}`, evil)).body]) {
      expect(String(h)).not.toContain('evil.example');
    }
    const listening = await startServer({ dataDir, port: 0 });
    try {
      // A raw request, so that the Host header is the forged one.
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const u = new URL(`${listening.url}/timegate/${page}`);
        http.get({ host: u.hostname, port: u.port, path: u.pathname, headers: evil }, resolve).on('error', reject);
      });
      res.resume();
      expect(res.headers.location).toBe(`${listening.url}/memento/${ts}/${page}`);
      expect(res.headers.link).toContain(`<${listening.url}/timemap/link/${page}>`);
    } finally {
      await listening.app.close();
    }
    const proxied = await buildServer({ dataDir, publicUrl: 'https://archive.example.org/dm/' });
    try {
      const res = await proxied.inject({ url: `/timegate/${page}`, headers: evil });
      expect(res.headers.location).toBe(`https://archive.example.org/dm/memento/${ts}/${page}`);
      const cdx = await proxied.inject({ url: `/cdx?url=${encodeURIComponent(page)}&output=link`, headers: evil });
      expect(cdx.body).toContain(`<https://archive.example.org/dm/memento/${ts}/${page}>`);
      // Root-relative replay links keep the public URL's path.
      const replay = await proxied.inject({ url: `/replay/2001/${page}`, headers: evil });
      expect(replay.headers.location).toBe(`/dm/replay/${ts}/${page}`);
    } finally {
      await proxied.close();
    }
    await expect(buildServer({ dataDir, publicUrl: 'archive.example.org' })).rejects.toThrow(/is not an http\(s\) URL.*e\.g\. https:\/\/archive\.example\.org/);
  });

  it('accepts only RFC 1123 dates in GMT as Accept-Datetime, and says what to send', async () => {
    const good = new Date(Date.parse(`${ts.slice(0, 4)}-${ts.slice(4, 6)}-${ts.slice(6, 8)}T${ts.slice(8, 10)}:${ts.slice(10, 12)}:${ts.slice(12, 14)}Z`)).toUTCString();
    const ok = await get(`/timegate/${page}`, { 'accept-datetime': good });
    expect(ok.statusCode).toBe(302);
    const refused = [
      '2025-01-02', // ISO 8601
      '2025-01-02T03:04:05Z',
      'Thu, 02 Jan 2025 03:04:05 +0000', // an offset, not GMT
      'Thu, 02 Jan 2025 04:04:05 +0100',
      'Thursday, 02-Jan-25 03:04:05 GMT', // RFC 850
      'Thu Jan  2 03:04:05 2025', // asctime
      'Fri, 02 Jan 2025 03:04:05 GMT', // 2 Jan 2025 was a Thursday
      'Sun, 30 Feb 2025 03:04:05 GMT', // no such day
      'last tuesday',
    ];
    for (const value of refused) {
      const res = await get(`/timegate/${page}`, { 'accept-datetime': value });
      expect(res.statusCode, value).toBe(400);
      expect(res.body, value).toMatch(/Accept-Datetime/);
      expect(res.body, value).toContain('e.g. Accept-Datetime: Thu, 02 Jan 2025 03:04:05 GMT');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });

  it('sends nosniff everywhere, keeps the dashboard and API out of other sites\' frames, and forbids a memento any fetch', async () => {
    for (const url of ['/', `/cdx?url=${encodeURIComponent(page)}`, `/timemap/link/${page}`, '/memento/yesterday/x', `/doc?url=${encodeURIComponent(page)}`]) {
      const res = await get(url);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('SAMEORIGIN');
      expect(res.headers['content-security-policy'], url).toMatch(/frame-ancestors 'self'/);
    }
    // Archived bytes may be framed (a replayed page frames them from its sandboxed origin) and offer nothing to click into.
    for (const url of [`/memento/${ts}/${page}`, `/replay/${ts}/${page}`]) {
      const res = await get(url);
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBeUndefined();
      expect(res.headers['content-security-policy'], url).toMatch(/script-src 'none'|default-src 'none'/);
      expect(res.headers['content-security-policy'], url).toMatch(/; sandbox$/);
    }
    const raw = (await get(`/memento/${ts}/${page}`)).headers['content-security-policy'] as string;
    expect(raw).toMatch(/^default-src 'none';/);
    expect(raw).toMatch(/; sandbox$/);
    expect(raw).not.toMatch(/https?:|\*/);
  });

  it('answers a damaged record with a 500 that says what is wrong and what to run, and no path of this machine', async () => {
    const copy = tamperedCopy(dataDir);
    const e = crawlLog(copy).find((r) => r.url === page)!;
    const file = path.join(copy, e.warc_file);
    const bytes = fs.readFileSync(file);
    for (let i = e.warc_offset + 20; i < e.warc_offset + e.warc_length - 8; i++) bytes[i] = bytes[i]! ^ 0x5a;
    fs.writeFileSync(file, bytes);
    const broken = await buildServer({ dataDir: copy });
    try {
      const res = await broken.inject({ url: `/memento/${ts}/${page}` });
      expect(res.statusCode).toBe(500);
      expect(res.body).toContain(`the WARC record at ${e.warc_file} offset ${e.warc_offset}`);
      expect(res.body).toContain('datamonitor verify');
      expect(res.body).not.toContain(copy);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      // The server goes on serving what it can.
      expect((await broken.inject({ url: `/timemap/link/${page}` })).statusCode).toBe(200);
    } finally {
      await broken.close();
    }
  });

  it('opens no WARC file outside the data directory, whatever path the crawl log names', async () => {
    const e = crawlLog(dataDir).find((r) => r.url === page)!;
    // A perfectly readable record outside the data directory: the old reader served it.
    const outside = tempDir('dm-outside-');
    const stolen = path.join(outside, 'stolen.warc.gz');
    fs.copyFileSync(path.join(dataDir, e.warc_file), stolen);
    const viaDots = tamperedCopy(dataDir);
    const viaLink = tamperedCopy(dataDir, 'warc/link.warc.gz');
    fs.symlinkSync(stolen, path.join(viaLink, 'warc/link.warc.gz'));
    const cases: Array<[string, string]> = [
      [tamperedCopy(dataDir, path.relative(viaDots, stolen)), 'relative path out of the directory'],
      [tamperedCopy(dataDir, stolen), 'absolute path'],
      [viaLink, 'symbolic link out of the directory'],
      [tamperedCopy(dataDir, '../../../../../../../../etc/passwd'), 'the issue\'s /etc/passwd'],
    ];
    for (const [dir, what] of cases) {
      const served = await buildServer({ dataDir: dir });
      try {
        const res = await served.inject({ url: `/memento/${ts}/${page}` });
        expect(res.statusCode, what).toBe(500);
        expect(res.body, what).toMatch(/outside the data directory; it was not opened/);
        expect(res.body, what).not.toContain('Hello');
        expect(res.body, what).not.toContain(outside);
      } finally {
        await served.close();
      }
      // The offline readers (export, re-extraction, verify) read through the same check.
      const store = await openStore(dir);
      const entry = (await store.log()).find((x) => x.url === page)!;
      await store.close();
      expect(() => readRecord(dir, entry.warcFile!, entry.warcOffset!, entry.warcLength!), what).toThrow(ArchiveReadError);
      await expect(replayDocument(dir, entry), what).rejects.toThrow(/outside the data directory/);
    }
    // A worker archive linked in at the top of a reader root (docs/workers.md) is part of the archive.
    const root = tamperedCopy(dataDir);
    const machine = tempDir('dm-machine-');
    fs.renameSync(path.join(root, 'warc'), path.join(machine, 'warc'));
    fs.symlinkSync(machine, path.join(root, 'w0'));
    const db = new Database(path.join(root, 'meta.sqlite'));
    db.prepare("UPDATE warc_files SET name = 'w0/' || name").run();
    db.close();
    const reader = await buildServer({ dataDir: root });
    try {
      const res = await reader.inject({ url: `/memento/${ts}/${page}` });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(PAGE);
    } finally {
      await reader.close();
    }
    // …but a link inside it that leads elsewhere is not.
    fs.symlinkSync(stolen, path.join(machine, 'warc', 'evil.warc.gz'));
    expect(() => readRecord(root, 'w0/warc/evil.warc.gz', e.warc_offset, e.warc_length)).toThrow(/outside the data directory/);
    // The untouched archive still reads.
    expect(readRecord(dataDir, e.warc_file, e.warc_offset, e.warc_length).headers.get('warc-type')).toBe('response');
  });

  it('runs as `datamonitor serve --public-url`: links from it, a refused path reported on stderr with the path the log names', async () => {
    const crafted = '../../../../../../../../etc/passwd';
    const served = await serveCli(tamperedCopy(dataDir, crafted), ['--public-url', 'https://archive.example.org']);
    try {
      const { url } = served.info;
      const gate = await fetch(`${url}/timegate/${page}`, { redirect: 'manual' });
      expect(gate.headers.get('location')).toBe(`https://archive.example.org/memento/${ts}/${page}`);
      const res = await fetch(`${url}/memento/${ts}/${page}`);
      expect(res.status).toBe(500);
      expect(await res.text()).toMatch(/outside the data directory; it was not opened/);
      // The operator learns which row: the log's path is on stderr (after the answer, so wait for the line).
      for (let i = 0; i < 100 && !served.stderr().includes('outside-data-dir'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(served.stderr()).toContain(`outside-data-dir: warc_file "${crafted}"`);
    } finally {
      await served.stop();
    }
    const bad = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'serve', '--data', dataDir, '--port', '0', '--public-url', 'archive.example.org'], { encoding: 'utf8' });
    expect(bad.status).toBe(64);
    expect(bad.stderr).toMatch(/public URL 'archive\.example\.org' is not an http\(s\) URL/);
  }, LOADED_TIMEOUT_MS);
});
