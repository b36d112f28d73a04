import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/server/index.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { tempDir } from '../helpers.ts';

const INDEX = (origin: string) => `<!DOCTYPE html><html><head><meta charset="windows-1252"><title>caf\u00e9</title>
<link rel="stylesheet" href="style.css"></head><body><p>Caf\u00e9 \u201cmenu\u201d</p>
<a href="a.html">A</a> <a href="/moved">moved</a> <a href="${origin}/a.html#top">abs</a> <a href="#here">here</a>
<img src="img.png"> <a href="img.png">picture</a> <a href="style.css">style</a></body></html>`;
const A = '<html><body><a href="index.html">back</a></body></html>';
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

describe('replay: browsing the archive, links rewritten into it', () => {
  let origin: TestServer;
  let app: FastifyInstance;
  const dataDir = tempDir('dm-replay-');
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { host: 'archive.test' } });
  /** The timestamp of a URL's first memento, from its TimeMap (as a Memento client finds it). */
  const ts = async (url: string) => /\/memento\/(\d+)\//.exec(JSON.parse((await get(`/timemap/json/${url}`)).body).mementos.first.uri)![1]!;
  /** GET, following this server's redirects (at most 3), as a browser does. */
  const browse = async (url: string) => {
    let res = await get(url);
    for (let hops = 0; res.statusCode === 302 && hops < 3; hops++) res = await get(res.headers.location as string);
    return res;
  };
  let indexBytes: Buffer;

  beforeAll(async () => {
    origin = await startServer((_req, res, url) => {
      switch (url.pathname) {
        case '/index.html':
          return res.writeHead(200, { 'content-type': 'text/html; charset=windows-1252' }).end(indexBytes);
        case '/a.html':
          return res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync(A));
        case '/moved':
          return res.writeHead(301, { location: '/b.html' }).end();
        case '/b.html':
          return res.writeHead(200, { 'content-type': 'text/html' }).end('<p>bee</p>');
        case '/img.png':
          return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        case '/style.css':
          return res.writeHead(200, { 'content-type': 'text/css' }).end('p { background: url(img.png) }');
      }
      res.writeHead(404).end();
    });
    indexBytes = iconv.encode(INDEX(origin.url), 'windows-1252');
    await crawl({ seeds: [`${origin.url}/index.html`], dataDir, depth: 2, delayMs: 0, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    app = await buildServer({ dataDir });
  });
  afterAll(async () => {
    await app?.close();
    await origin?.close();
  });

  it('serves an HTML page with its links, images and stylesheets pointing into the archive, decoded to UTF-8', async () => {
    const t = await ts(`${origin.url}/index.html`);
    const res = await get(`/replay/${t}/${origin.url}/index.html`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['memento-datetime']).toBeDefined();
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'self' data:;.*; sandbox$/);
    expect(res.body).toContain('Caf\u00e9 \u201cmenu\u201d');
    for (const [attr, url] of [['href', 'a.html'], ['href', 'moved'], ['href', 'a.html#top'], ['src', 'img.png'], ['href', 'style.css']]) {
      expect(res.body).toContain(`${attr}="/replay/${t}/${origin.url}/${url}"`);
    }
    expect(res.body).toContain('href="#here"');
    // The dashboard's page of the document offers it for browsing.
    expect((await get(`/doc?url=${encodeURIComponent(`${origin.url}/index.html`)}`)).body).toContain(`<a href="/replay/${t}/${origin.url}/index.html">browse</a>`);
    // The memento itself stays the bytes the origin served.
    const raw = await get(`/memento/${t}/${origin.url}/index.html`);
    expect(raw.rawPayload.equals(indexBytes)).toBe(true);
  });

  it('a rewritten link leads to a capture of its target, whose links are rewritten too (a gzipped page)', async () => {
    const t = await ts(`${origin.url}/index.html`);
    const page = await browse(`/replay/${t}/${origin.url}/a.html`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-encoding']).toBeUndefined();
    const at = /^\/replay\/(\d+)\//.exec(page.body.match(/<a href="(\/replay\/[^"]+\/index\.html)">back/)![1]!)![1]!;
    // The page as archived, links rewritten, with the archive's banner as the first thing in its body.
    expect(page.body.replace(/<div id="datamonitor-banner".*?<\/div>/, '')).toBe(`<html><body><a href="/replay/${at}/${origin.url}/index.html">back</a></body></html>`);
    expect(page.headers['memento-datetime']).toBe(new Date(Date.UTC(+at.slice(0, 4), +at.slice(4, 6) - 1, +at.slice(6, 8), +at.slice(8, 10), +at.slice(10, 12), +at.slice(12, 14))).toUTCString());
  });

  it('follows an archived redirect within the archive; other media are replayed as archived; unknown URLs are 404', async () => {
    const tm = await ts(`${origin.url}/moved`);
    const moved = await get(`/replay/${tm}/${origin.url}/moved`);
    expect(moved.statusCode).toBe(302);
    expect(moved.headers.location).toBe(`/replay/${tm}/${origin.url}/b.html`);
    expect((await browse(`/replay/${tm}/${origin.url}/moved`)).body.replace(/<div id="datamonitor-banner".*?<\/div>/, '')).toBe('<p>bee</p>');
    const img = await get(`/replay/${await ts(`${origin.url}/img.png`)}/${origin.url}/img.png`);
    expect(img.headers['content-type']).toBe('image/png');
    expect(img.rawPayload.equals(PNG)).toBe(true);
    const css = await get(`/replay/${await ts(`${origin.url}/style.css`)}/${origin.url}/style.css`);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toMatch(new RegExp(`^p \\{ background: url\\(/replay/\\d+/${origin.url}/img\\.png\\) \\}$`));
    expect((await get(`/replay/20250101000000/http://never.example/`)).statusCode).toBe(404);
    expect((await get(`/replay/2025x/${origin.url}/a.html`)).statusCode).toBe(400);
  });

  it('gives a memento of a redirect a Location into the archive: the target at that time, as pywb does', async () => {
    const tm = await ts(`${origin.url}/moved`);
    const moved = await get(`/memento/${tm}/${origin.url}/moved`);
    expect(moved.statusCode).toBe(301);
    expect(moved.headers['x-archive-orig-location']).toBe('/b.html');
    const location = moved.headers.location as string;
    expect(new URL(location).pathname).toBe(`/memento/${tm}/${origin.url}/b.html`);
    // Followed as a client would: the memento route sends it on to the target's closest memento.
    let res = await get(new URL(location).pathname);
    for (let hops = 0; res.statusCode === 302 && hops < 3; hops++) res = await get(new URL(res.headers.location as string, 'http://localhost').pathname);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('<p>bee</p>');
    expect(res.headers['memento-datetime']).toBeDefined();
  });

  it('takes a URL without a scheme in the TimeGate, the TimeMap and replay, as CDX and pywb do', async () => {
    const bare = origin.url.replace(/^http:\/\//, '');
    const gate = await get(`/timegate/${bare}/b.html`);
    expect(gate.statusCode).toBe(302);
    expect(gate.headers.location).toMatch(new RegExp(`/memento/\\d+/${origin.url}/b\\.html$`));
    const tm = JSON.parse((await get(`/timemap/json/${bare}/b.html`)).body);
    expect(tm.original_uri).toBe(`${origin.url}/b.html`);
    const page = await browse(`/replay/${await ts(`${origin.url}/b.html`)}/${bare}/b.html`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<p>bee</p>');
    const never = await get(`/timegate/never.example/x`);
    expect(never.statusCode).toBe(404);
    expect(never.body).toContain('never.example/x');
  });
});
