import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, startServer as startArchive } from '../../src/server/index.ts';
import { crawl, type CrawlOptions, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { cssReferences } from '../../src/extract/css.ts';
import { extractMarkup } from '../../src/extract/html/index.ts';
import { SCAN_LIMITS } from '../../src/extract/html/scanner.ts';
import { runCycle } from '../../src/recrawl/cycle.ts';
import { openStore } from '../../src/store/index.ts';
import { hostOf } from '../../src/frontier/normalize.ts';
import { cli, crawlLog, documents, tempDir } from '../helpers.ts';

/**
 * `--page-requisites` on a real site of two hosts: site.test (the crawl's --domain) and cdn.test
 * (outside it), both on 127.0.0.1 through --resolve. The page needs images (src, srcset, a poster),
 * a style sheet that loads a background, a font on the CDN and another style sheet, a script, an
 * icon, inline CSS, media on the CDN and an image that redirects to the CDN.
 */
const bytes = (name: string) => Buffer.from(`bytes of ${name} \u0000\u00ff`, 'latin1');
/** A real 1×1 PNG, so that a browser can show the replayed logo. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);

describe('crawl --page-requisites, and replay that finds them', () => {
  let site: TestServer;
  let cdn: TestServer;
  let app: FastifyInstance | undefined;
  let SITE = '';
  let CDN = '';
  const files = new Map<string, { type: string; body: Buffer | string; status?: number; location?: string }>();
  const served = (host: string, path: string) => files.get(`${host}${path}`);

  const INDEX = () => `<!DOCTYPE html><html><head><title>home</title>
<link rel="stylesheet" href="/style.css"><link rel="icon" href="/favicon.ico"><script src="/app.js"></script>
<style>.hero { background: url("/hero.jpg") } /* url(/commented.png) */</style></head>
<body><div class="hero" style="background-image: url('/inline.png')">hi</div>
<img src="/logo.png" srcset="/logo-2x.png 2x, /logo-3x.png 3x" alt="logo"> <img src="${CDN}/photo.jpg">
<picture><source srcset="${CDN}/photo.webp" type="image/webp"><img src="/fallback.png"></picture>
<video poster="/poster.jpg"><source src="${CDN}/clip.mp4" type="video/mp4"></video>
<img src="/moved.png"> <img src="${CDN}/private/secret.png"> <img src="/tracker.gif"> <img src="/picture.svg">
<img src="data:image/png;base64,AAAA">
<a href="/page2.html">next</a> <a href="/big.html">big</a> <a href="${CDN}/elsewhere.html">a page on the CDN</a></body></html>`;
  const PAGE2 = () => `<html><body><img src="/logo.png"> <img src="${CDN}/photo.jpg"> <img src="/p2.png"></body></html>`;
  const CSS = () => `@import "more.css";\nbody { background: url(bg.png) }\n@font-face { font-family: f; src: url(${CDN}/font.woff) format("woff") }`;
  const SVG = '<svg xmlns="http://www.w3.org/2000/svg" vocab="http://schema.org/" typeof="ImageObject"><title property="name">a picture</title></svg>';

  /** The paths a server was asked for (robots.txt aside), with how often. */
  const asked = (s: TestServer) => {
    const counts: Record<string, number> = {};
    for (const r of s.requests) if (r.path !== '/robots.txt') counts[r.path] = (counts[r.path] ?? 0) + 1;
    return counts;
  };
  const options = (dataDir: string, extra: Partial<CrawlOptions>): CrawlOptions => ({
    seeds: [`${SITE}/index.html`], dataDir, depth: 1, delayMs: 0, allowPrivate: true, vocabularies: false, domains: ['site.test'],
    exclude: ['tracker'], resolve: { 'site.test': '127.0.0.1', 'cdn.test': '127.0.0.1' }, ...extra,
  });

  beforeAll(async () => {
    const route = (host: 'site' | 'cdn') => (_req: unknown, res: import('node:http').ServerResponse, url: URL) => {
      const f = served(host, url.pathname);
      if (!f) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      res.writeHead(f.status ?? 200, { 'content-type': f.type, ...(f.location ? { location: f.location } : {}) }).end(f.body);
    };
    site = await startServer(route('site'));
    cdn = await startServer(route('cdn'));
    SITE = `http://site.test:${site.port}`;
    CDN = `http://cdn.test:${cdn.port}`;
    files.set('site/index.html', { type: 'text/html', body: INDEX() });
    files.set('site/page2.html', { type: 'text/html', body: PAGE2() });
    // Above INLINE_BELOW_BYTES: analysed on a pool thread, whose answer must carry the requisites back.
    files.set('site/big.html', { type: 'text/html', body: `<html><body><img src="/big.png"><p>${'words '.repeat(60_000)}</p></body></html>` });
    files.set('site/style.css', { type: 'text/css', body: CSS() });
    files.set('site/more.css', { type: 'text/css', body: 'h1 { background: url(deep.png) }' });
    files.set('site/app.js', { type: 'text/javascript', body: 'document.title = "js";' });
    files.set('site/picture.svg', { type: 'image/svg+xml', body: SVG });
    files.set('site/moved.png', { type: 'text/plain', body: '', status: 301, location: `${CDN}/moved.png` });
    for (const p of ['favicon.ico', 'hero.jpg', 'inline.png', 'logo.png', 'logo-2x.png', 'logo-3x.png', 'fallback.png', 'poster.jpg', 'bg.png', 'deep.png', 'p2.png', 'big.png', 'tracker.gif', 'commented.png']) {
      files.set(`site/${p}`, { type: p.endsWith('.png') ? 'image/png' : 'image/jpeg', body: bytes(p) });
    }
    files.set('site/logo.png', { type: 'image/png', body: PNG });
    files.set('site/bg.png', { type: 'image/png', body: PNG });
    for (const p of ['photo.jpg', 'photo.webp', 'clip.mp4', 'font.woff', 'moved.png', 'private/secret.png']) files.set(`cdn/${p}`, { type: 'application/octet-stream', body: bytes(p) });
    files.set('cdn/elsewhere.html', { type: 'text/html', body: '<p>not this crawl\'s</p>' });
    files.set('cdn/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' });
  });
  afterAll(async () => {
    await app?.close();
    await site?.close();
    await cdn?.close();
  });

  const dataDir = tempDir('dm-requisites-');
  let summary: CrawlSummary;

  it('fetches each requisite of the pages once, on the site and on the CDN, and nothing a filter, robots.txt or the chain end keeps out', async () => {
    summary = await crawl(options(dataDir, { pageRequisites: true })).run();
    const onSite = asked(site);
    const onCdn = asked(cdn);
    for (const p of ['/index.html', '/page2.html', '/style.css', '/more.css', '/app.js', '/favicon.ico', '/hero.jpg', '/inline.png', '/logo.png',
      '/logo-2x.png', '/logo-3x.png', '/fallback.png', '/poster.jpg', '/bg.png', '/p2.png', '/moved.png', '/picture.svg', '/big.html', '/big.png']) {
      expect(onSite[p], `${SITE}${p}`).toBe(1);
    }
    // Off the crawl's --domain: fetched as the page's parts (transclusion), each once though two pages use the photo.
    for (const p of ['/photo.jpg', '/photo.webp', '/clip.mp4', '/font.woff', '/moved.png']) expect(onCdn[p], `${CDN}${p}`).toBe(1);
    // A link to a CDN page stays out of scope; robots.txt holds for requisites; --exclude holds;
    // what a style sheet found in a style sheet loads is the chain's end; a commented-out url() is nothing.
    expect(onCdn['/elsewhere.html']).toBeUndefined();
    expect(onCdn['/private/secret.png']).toBeUndefined();
    expect(onSite['/tracker.gif']).toBeUndefined();
    expect(onSite['/deep.png']).toBeUndefined();
    expect(onSite['/commented.png']).toBeUndefined();
    expect(summary.stoppedBy).toBeUndefined();
  });

  it('logs requisites with the reason requisite, archives them as bytes and parses none of them', () => {
    const log = crawlLog(dataDir);
    const row = (url: string) => log.filter((r) => r.url === url);
    expect(row(`${CDN}/photo.jpg`)).toHaveLength(1);
    expect(row(`${CDN}/photo.jpg`)[0]).toMatchObject({ status: 200, reason: 'requisite' });
    expect(row(`${CDN}/photo.jpg`)[0]!.warc_file).toBeTruthy();
    expect(row(`${SITE}/style.css`)[0]).toMatchObject({ status: 200, reason: 'requisite' });
    // An SVG image with RDFa is a picture on the page here, not data of the crawl.
    expect(row(`${SITE}/picture.svg`)[0]).toMatchObject({ status: 200, reason: 'requisite', triples: 0 });
    // The pages themselves are documents as before.
    expect(row(`${SITE}/index.html`)[0]).toMatchObject({ status: 200, reason: 'fetched' });
    expect(row(`${CDN}/private/secret.png`)[0]).toMatchObject({ reason: 'robots-disallowed' });
    const requisites = log.filter((r) => r.reason === 'requisite').length;
    expect(requisites).toBe(summary.reasons.requisite);
    // 15 on the site (what it was asked for but the three pages and the redirecting /moved.png), 5 on the CDN.
    expect(requisites).toBe(15 + 5);
    expect(row(`${SITE}/moved.png`)[0]).toMatchObject({ status: 301, reason: 'redirected' });
    // A requisite is at its page's depth, not a hop further: page2 is at depth 1, so is its image.
    const depth = (url: string) => documents(dataDir).find((d) => d.url === url)?.depth;
    expect([depth(`${SITE}/page2.html`), depth(`${SITE}/p2.png`), depth(`${SITE}/logo.png`), depth(`${SITE}/bg.png`)]).toEqual([1, 1, 0, 0]);
  });

  it('`datamonitor log` lists the requisite that robots.txt kept out, not the ones archived', async () => {
    const store = await openStore(dataDir);
    try {
      const listed = await store.fates({ limit: 1000 });
      expect(listed.filter((e) => e.reason === 'requisite')).toEqual([]);
      expect(listed.map((e) => e.url)).toContain(`${CDN}/private/secret.png`);
    } finally {
      await store.close();
    }
  });

  it('replays the page with every subresource URL leading to its archived copy, byte for byte, also through the style sheet', async () => {
    app = await buildServer({ dataDir });
    const get = (url: string) => app!.inject({ method: 'GET', url, headers: { host: 'archive.test' } });
    const browse = async (url: string) => {
      let res = await get(url);
      for (let hops = 0; res.statusCode === 302 && hops < 3; hops++) res = await get(res.headers.location as string);
      return res;
    };
    const ts = /\/memento\/(\d+)\//.exec(JSON.parse((await get(`/timemap/json/${SITE}/index.html`)).body).mementos.first.uri)![1]!;
    const page = await get(`/replay/${ts}/${SITE}/index.html`);
    expect(page.statusCode).toBe(200);
    // What a browser loads for the page: src, srcset candidates, poster, <link> hrefs other than anchors, inline url().
    const subresources = new Set<string>();
    const html = page.body.replace(/<a [^>]*>/g, '');
    for (const m of html.matchAll(/(?:src|poster|href)="([^"]+)"/g)) subresources.add(m[1]!);
    for (const m of html.matchAll(/srcset="([^"]+)"/g)) for (const c of m[1]!.split(',')) subresources.add(c.trim().split(/\s+/)[0]!);
    for (const m of html.matchAll(/url\(["']?([^"')]+)["']?\)/g)) subresources.add(m[1]!);
    subresources.delete('data:image/png;base64,AAAA');
    const original = (replayed: string) => replayed.replace(/^\/replay\/\d+\//, '');
    const notArchived = [`${CDN}/private/secret.png`, `${SITE}/tracker.gif`, `${SITE}/commented.png`];
    let checked = 0;
    for (const u of subresources) {
      expect(u, 'every subresource URL points into the archive').toMatch(/^\/replay\/\d+\/http/);
      const url = original(u);
      const res = await browse(u);
      if (notArchived.includes(url)) {
        expect(res.statusCode, url).toBe(404);
        continue;
      }
      expect(res.statusCode, url).toBe(200);
      const path = new URL(url).pathname;
      const host = url.startsWith(CDN) || url === `${SITE}/moved.png` ? 'cdn' : 'site';
      const f = served(host, path)!;
      if (path.endsWith('.css') || path.endsWith('.svg') || path.endsWith('.html')) continue; // rewritten or re-typed on replay: checked below
      expect(res.rawPayload.equals(Buffer.isBuffer(f.body) ? f.body : Buffer.from(f.body)), url).toBe(true);
      checked++;
    }
    // app.js, favicon, hero (<style>), inline (style=""), logo ×3, fallback, poster, moved.png (via its redirect), and the CDN's photo ×2 and clip.
    expect(checked).toBe(13);
    // The style sheet replays with its own references pointing into the archive: its background and the CDN's font.
    const css = await browse(`/replay/${ts}/${SITE}/style.css`);
    expect(css.statusCode).toBe(200);
    const refs = cssReferences(css.body);
    expect(refs.map(original).sort()).toEqual([`${CDN}/font.woff`, `${SITE}/bg.png`, `${SITE}/more.css`].sort());
    for (const ref of refs) {
      const res = await browse(ref);
      expect(res.statusCode, ref).toBe(200);
      if (!ref.endsWith('.css')) expect(res.rawPayload.equals(served(ref.includes('cdn.test') ? 'cdn' : 'site', new URL(original(ref)).pathname)!.body as Buffer)).toBe(true);
    }
  });

  it.skipIf(!hasChromium)('headless Chromium loads the replayed page from the archive alone: no failed subresource but the two never archived', async () => {
    const { app: live, url: archive } = await startArchive({ dataDir, port: 0 });
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      const failed: string[] = [];
      page.on('request', (r) => requested.push(r.url()));
      page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
      page.on('response', (r) => r.status() >= 400 && failed.push(`${r.url()} ${r.status()}`));
      const ts = /\/memento\/(\d+)\//.exec(JSON.parse(await (await fetch(`${archive}/timemap/json/${SITE}/index.html`)).text()).mementos.first.uri)![1]!;
      const res = await page.goto(`${archive}/replay/${ts}/${SITE}/index.html`, { waitUntil: 'load' });
      expect(res?.status()).toBe(200);
      // A CSS background is requested when style is computed, which on a busy machine can come after
      // the load event: wait for the network to go quiet before counting what was asked for.
      await page.waitForLoadState('networkidle');
      // Nothing reaches the live site or the CDN: every request is the archive's.
      expect(requested.filter((u) => !u.startsWith(`${archive}/`))).toEqual([]);
      // The page's images, style sheets (the one @import-ed too), background, poster: all were asked for.
      for (const p of [`${SITE}/logo.png`, `${SITE}/style.css`, `${SITE}/more.css`, `${SITE}/bg.png`, `${CDN}/photo.jpg`]) {
        expect(requested.some((u) => u.endsWith(`/${p}`)), p).toBe(true);
      }
      // The two the crawl was right not to fetch (robots.txt, --exclude) are the only misses.
      // (A 404 for an image comes as text/plain with nosniff, which Chromium's opaque-response blocking may
      // report as ERR_BLOCKED_BY_ORB instead of the status: a miss either way.)
      const misses = [...new Set(failed.map((f) => f.replace(/^.*\/replay\/\d+\//, '').replace(/ (404|net::ERR_BLOCKED_BY_ORB)$/, '')))].sort();
      expect(misses).toEqual([`${CDN}/private/secret.png`, `${SITE}/tracker.gif`]);
      // The logo is shown: the archived PNG decoded.
      expect(await page.locator('img[alt="logo"]').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    } finally {
      await browser.close();
      await live.close();
    }
  });

  it('without --page-requisites none of them is fetched, and replay finds none', async () => {
    site.requests.length = 0;
    cdn.requests.length = 0;
    const plain = tempDir('dm-requisites-off-');
    const s = await crawl(options(plain, {})).run();
    expect(s.reasons.requisite).toBe(0);
    const onSite = asked(site);
    // (<link rel="stylesheet"> and rel="icon" are links of the page's triples: a crawl follows them in scope, as before.)
    for (const p of ['/logo.png', '/app.js', '/hero.jpg', '/inline.png', '/poster.jpg', '/moved.png', '/bg.png', '/picture.svg']) expect(onSite[p], p).toBeUndefined();
    expect(Object.keys(asked(cdn))).toEqual([]);
    const off = await buildServer({ dataDir: plain });
    try {
      const res = await off.inject({ method: 'GET', url: `/replay/20200101000000/${SITE}/logo.png` });
      expect(res.statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('requisites count against --max-docs: a crawl bounded to 5 documents fetches 5 URLs in all', async () => {
    site.requests.length = 0;
    cdn.requests.length = 0;
    const s = await crawl(options(tempDir('dm-requisites-max-'), { pageRequisites: true, maxDocs: 5 })).run();
    expect(s.stoppedBy).toBe('max-docs');
    expect(s.documents).toBe(5);
    const fetched = Object.values(asked(site)).reduce((a, b) => a + b, 0) + Object.values(asked(cdn)).reduce((a, b) => a + b, 0);
    expect(fetched).toBeLessThanOrEqual(5);
  });
});

describe('page requisites as the HTML extractor finds them', () => {
  const extract = (html: string, url = 'http://site.test/dir/page.html', headers: Record<string, string> = {}) =>
    extractMarkup({ url, mediaType: 'text/html', body: Buffer.from(html), headers }, { maxQuads: 100_000, requisites: true });

  it('resolves against <base>, reads every srcset candidate (commas inside URLs too), drops data: and fragments, keeps each once', async () => {
    const r = await extract(`<html><head><base href="http://static.test/v2/"><link rel="Stylesheet" href="a.css"><link rel="alternate" href="feed.xml"><link rel="next" href="2.html"><link rel="modulepreload" href="m.js"></head>
<body><img src="x.png#part" srcset="x.png 1x, y,z.png 2x, http://cdn.test/w.png 640w"><img src="data:image/gif;base64,R0lG">
<input type="image" src="button.png"><input type="text" src="not-me.png"><audio src="a.ogg"><track src="t.vtt"></audio><embed src="e.swf">
<svg><image href="i.svg"/></svg><a href="link.html"><img src="x.png"></a></body></html>`);
    expect(r.requisites).toEqual(['http://static.test/v2/a.css', 'http://static.test/v2/m.js', 'http://static.test/v2/x.png', 'http://static.test/v2/y,z.png', 'http://cdn.test/w.png',
      'http://static.test/v2/button.png', 'http://static.test/v2/a.ogg', 'http://static.test/v2/t.vtt', 'http://static.test/v2/e.swf', 'http://static.test/v2/i.svg']);
    // Requisites are not links: the anchor's target is, an image is not.
    expect(r.links.map((l) => l.url)).not.toContain('http://static.test/v2/x.png');
  });

  it('are not worked out unless asked for (a crawl without --page-requisites pays nothing for them)', async () => {
    const r = await extractMarkup({ url: 'http://site.test/', mediaType: 'text/html', body: Buffer.from('<img src="/a.png">'), headers: {} }, { maxQuads: 100 });
    expect(r.requisites).toBeUndefined();
  });

  it('a page with META robots nofollow still names its requisites (they are the page, not links)', async () => {
    const r = await extract('<html><head><meta name="robots" content="nofollow"></head><body><img src="/p.png"><a href="/next">n</a></body></html>');
    expect(r.robots?.nofollow).toBe(true);
    expect(r.requisites).toEqual(['http://site.test/p.png']);
  });

  it(`keeps at most ${SCAN_LIMITS.maxRequisites} per page and says how many more there were`, async () => {
    const n = SCAN_LIMITS.maxRequisites + 7;
    const r = await extract(`<html><body>${Array.from({ length: n }, (_, i) => `<img src="/i${i}.png">`).join('')}</body></html>`);
    expect(r.requisites).toHaveLength(SCAN_LIMITS.maxRequisites);
    expect(r.diagnostics.map((d) => d.message)).toContain(`7 page requisites (images, scripts, media) past the limit of ${SCAN_LIMITS.maxRequisites} per page dropped`);
  });

  it('reads a style sheet for url() and @import, not what a comment holds', () => {
    expect(cssReferences(`@import url("a.css"); @import 'b.css' screen; /* url(c.png) */ p { background: url( d.png ) } q { background: url(data:x) }`))
      .toEqual(['a.css', 'd.png', 'data:x', 'b.css']);
  });
});

describe('datamonitor crawl --page-requisites', () => {
  it('the flag turns it on from the command line, and the summary counts the requisites', async () => {
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><img src="/a.png"><script src="/s.js"></script></body></html>');
      if (url.pathname === '/a.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      if (url.pathname === '/s.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end('1');
      res.writeHead(404).end();
    });
    try {
      const r = await cli(['crawl', `${site.url}/`, '--data', tempDir('dm-requisites-cli-'), '--allow-private', '--delay', '0', '--page-requisites', '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).reasons).toMatchObject({ fetched: 1, requisite: 2 });
      expect(site.requests.map((q) => q.path).sort()).toEqual(['/', '/a.png', '/robots.txt', '/s.js']);
    } finally {
      await site.close();
    }
  });
});

describe('re-crawl cycles with page requisites (run/daemon --page-requisites)', () => {
  it('a cycle archives the requisites of the pages it fetches again that the archive does not have yet', async () => {
    let version = 1;
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/page') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>v${version}</p><img src="/v${version}.png"><img src="/logo.png"></body></html>`);
      if (url.pathname.endsWith('.png')) return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      res.writeHead(404).end();
    });
    const dataDir = tempDir('dm-requisites-cycle-');
    try {
      const store = await openStore(dataDir);
      await store.init();
      const page = `${site.url}/page`;
      await store.addDocuments([{ url: page, host: hostOf(page), depth: 0 }], { monitored: true, nextFetch: 0 });
      const crawlOptions = { delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], pageRequisites: true };
      expect((await runCycle({ dataDir, store, crawl: crawlOptions })).status).toBe('done');
      version = 2;
      await store.updateDocument(page, { nextFetch: 0 });
      expect((await runCycle({ dataDir, store, crawl: crawlOptions })).status).toBe('done');
      await store.close();
      const asked = site.requests.map((r) => r.path).filter((p) => p !== '/robots.txt');
      // The page twice; its first image, the shared logo once; the image of the new version in the second cycle.
      expect(asked).toEqual(['/page', '/v1.png', '/logo.png', '/page', '/v2.png']);
      expect(crawlLog(dataDir).filter((r) => r.reason === 'requisite').map((r) => new URL(r.url).pathname)).toEqual(['/v1.png', '/logo.png', '/v2.png']);
    } finally {
      await site.close();
    }
  });
});
