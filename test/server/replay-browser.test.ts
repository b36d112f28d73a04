/**
 * Archived HTML looked at in headless Chromium, as a user does: a memento (`/memento/`, the bytes as archived)
 * fetches nothing from the live Web, and a page browsed in the archive (`/replay/`) carries a banner that says
 * it is archived, when, and links the captures before and after it and the TimeMap, without breaking the page.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startServer } from '../../src/server/index.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer as startOrigin, type TestServer } from '../../src/testkit/server.ts';
import { tempDir } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`\n*** ${CHROMIUM} is missing: the replay tests in Chromium are SKIPPED (apt-get install -y chromium) ***\n`);

/** A page whose subresources live on another server (the live Web), and which would leave for it by itself. */
const page = (live: string, version: number) => `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Archived title</title>
<meta http-equiv="refresh" content="0; url=${live}/refreshed">
<link rel="stylesheet" href="${live}/style.css"><link rel="preload" as="image" href="${live}/preload.png">
<link rel="prefetch" href="${live}/prefetch.html"><link rel="icon" href="${live}/favicon.ico">
<script src="${live}/script.js"></script>
<style>div { display: none } a { color: red } @import url(${live}/imported.css); body { background: url(${live}/bg.png) }</style>
</head><body><h1 id="content">Version ${version}</h1>
<img src="${live}/pic.png"><img srcset="${live}/small.png 1x, ${live}/big.png 2x"><video poster="${live}/poster.png" src="${live}/movie.mp4"></video>
<iframe src="${live}/frame.html"></iframe><object data="${live}/object.swf"></object><p style="background:url(${live}/inline.png)">text</p>
<form action="${live}/form"><input type="image" src="${live}/button.png"></form><img id="archived" src="dot.png"><iframe id="inner" src="inner.html"></iframe>
</body></html>`;

/** A 1×1 PNG, archived with the page: browsing the archive shows it from the archive. */
const DOT = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

describe.skipIf(!hasChromium)('archived HTML in Chromium', () => {
  let live: TestServer;
  let origin: TestServer;
  let archive: { app: FastifyInstance; url: string };
  let browser: import('playwright-core').Browser;
  const dataDir = tempDir('dm-browser-');
  let version = 1;
  let url: string;
  let stamps: string[];

  beforeAll(async () => {
    live = await startOrigin((_req, res, u) => res.writeHead(200, { 'content-type': u.pathname.endsWith('.css') ? 'text/css' : 'text/html' }).end(''));
    origin = await startOrigin((_req, res, u) => {
      if (u.pathname === '/dot.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(DOT);
      if (u.pathname === '/inner.html') return res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="framed">framed page</p>');
      if (u.pathname !== '/page.html') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(live.url, version));
    });
    url = `${origin.url}/page.html`;
    const run = () => crawl({ seeds: [url, `${origin.url}/dot.png`, `${origin.url}/inner.html`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, refetch: true, domains: ['127.0.0.1'] }).run();
    await run();
    version = 2;
    await run();
    archive = await startServer({ dataDir, port: 0 });
    stamps = (await (await fetch(`${archive.url}/timemap/json/${url}`)).json()).mementos.list.map((m: { uri: string }) => /\/memento\/(\d+)\//.exec(m.uri)![1]!);
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    live.requests.length = 0; // what the crawl fetched is not the browser's doing
  });
  afterAll(async () => {
    await browser?.close();
    await archive?.app.close();
    await origin?.close();
    await live?.close();
  });

  it('a memento shown as archived fetches nothing from the live Web and does not leave for it', async () => {
    expect(stamps).toHaveLength(2);
    const tab = await browser.newPage();
    live.requests.length = 0;
    try {
      const memento = `${archive.url}/memento/${stamps[0]}/${url}`;
      const res = await tab.goto(memento, { waitUntil: 'networkidle' });
      expect(res?.status()).toBe(200);
      expect(await tab.locator('#content').textContent()).toBe('Version 1');
      expect(tab.url()).toBe(memento); // the meta refresh did not take it away
      expect(live.requests.map((r) => r.path)).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it('a page browsed in the archive has a banner: archived when, next/previous capture, TimeMap; the page is intact', async () => {
    const tab = await browser.newPage({ viewport: { width: 1000, height: 700 } });
    live.requests.length = 0;
    try {
      await tab.goto(`${archive.url}/replay/${stamps[0]}/${url}`, { waitUntil: 'networkidle' });
      const banner = tab.locator('#datamonitor-banner');
      // Shown at the top even though the page hides every div and colours links red.
      const box = await banner.boundingBox();
      expect(box).not.toBeNull();
      expect(box!.y).toBe(await tab.evaluate(() => parseFloat(getComputedStyle(document.body).marginTop))); // first in the body
      expect(box!.height).toBeGreaterThan(10);
      expect(box!.width).toBeGreaterThan(900);
      const captured = await (await fetch(`${archive.url}/timemap/json/${url}`)).json();
      const first = new Date(captured.mementos.list[0].datetime).toUTCString();
      const second = new Date(captured.mementos.list[1].datetime).toUTCString();
      expect(await banner.textContent()).toContain(`Archived page of ${url} as captured ${first}`);
      expect(await banner.textContent()).toContain('no earlier capture');
      expect(await banner.locator('a[rel="timemap"]').getAttribute('href')).toBe(`/timemap/link/${url}`);
      expect(await banner.locator('a[rel="next"]').evaluate((a) => getComputedStyle(a).color)).not.toBe('rgb(255, 0, 0)');
      // The page as it was: standards mode (the banner went after the doctype), its title, its content below the banner.
      expect(await tab.evaluate(() => document.compatMode)).toBe('CSS1Compat');
      expect(await tab.title()).toBe('Archived title');
      expect(await tab.evaluate(() => document.body.firstElementChild?.id)).toBe('datamonitor-banner');
      expect(await tab.evaluate(() => document.querySelectorAll('head #datamonitor-banner').length)).toBe(0);
      expect(await tab.locator('#content').textContent()).toBe('Version 1');
      // What the archive holds is shown from it (the policy lets the page fetch from this server).
      expect(await tab.locator('#archived').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
      // An archived page in a frame of the page is shown too (archived bytes may be framed).
      expect(await tab.frameLocator('#inner').locator('#framed').textContent()).toBe('framed page');
      expect((await tab.locator('#content').boundingBox())!.y).toBeGreaterThanOrEqual(box!.height);
      // Following "next capture" shows the next version, whose banner links back.
      await Promise.all([tab.waitForURL(`**/replay/${stamps[1]}/**`), banner.locator('a[rel="next"]').click()]);
      await tab.waitForLoadState('networkidle');
      expect(await tab.locator('#content').textContent()).toBe('Version 2');
      expect(await tab.locator('#datamonitor-banner').textContent()).toContain(`as captured ${second}`);
      expect(await tab.locator('#datamonitor-banner a[rel="prev"]').getAttribute('href')).toBe(`/replay/${stamps[0]}/${url}`);
      expect(await tab.locator('#datamonitor-banner').textContent()).toContain('no later capture');
      // Browsing the archive reaches the archive only.
      expect(live.requests.map((r) => r.path)).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});
