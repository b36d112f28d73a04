/**
 * The dashboard as a user drives it in headless Chromium: search a URL, open its page, diff two of its
 * captures, watch the worker panel fill in through auto-refresh (the page's clock driven by the test, so no
 * test waits 10 s). Plus the same pages' answers to bad input, without a browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startServer } from '../../src/server/index.ts';
import { diffCommand } from '../../src/cli/commands/diff.ts';
import type { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { leaseHosts, routesArchive, type RoutesFixture } from './routes-fixture.ts';
import { LOADED_TIMEOUT_MS, repoRoot } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const iso = (ms: number) => new Date(ms).toISOString();

describe('dashboard: search, captures, diff, workers', () => {
  let fx: RoutesFixture;
  let app: FastifyInstance;
  let url: string;
  let workers: SqliteWorkerStore | undefined;

  beforeAll(async () => {
    fx = await routesArchive();
    ({ app, url } = await startServer({ dataDir: fx.dataDir, port: 0 }));
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await workers?.close();
    await app?.close();
    await fx?.close();
  });

  it('answers bad input on its pages with a 400 or 404 page that says why', async () => {
    const page = async (p: string) => {
      const r = await fetch(url + p);
      return { status: r.status, html: await r.text() };
    };
    const bad = await page('/search?q=x&limit=0');
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/limit= must be a whole number from 1 to 1000/);
    const none = await page('/search?q=no-such-thing');
    expect(none.status).toBe(200);
    expect(none.html).toContain('id="no-results"');
    expect((await page(`/diff?url=${encodeURIComponent(fx.people)}`)).html).toMatch(/give from=/);
    const unknown = await page(`/diff?url=${encodeURIComponent(fx.origin.url + '/never.ttl')}&from=2025-01-01`);
    expect(unknown.status).toBe(404);
    // A search term is shown as text, never as markup.
    expect((await page('/search?q=%3Cscript%3Ealert(1)%3C/script%3E')).html).not.toContain('<script>alert(1)');
  });

  it('pages search results with a next link that ends', async () => {
    const seen: string[] = [];
    let next: string | undefined = '/search?q=127.0.0.1&limit=2';
    for (let i = 0; next && i < 10; i++) {
      const html = await (await fetch(url + next)).text();
      seen.push(...[...html.matchAll(/<a href="\/doc\?url=([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!)));
      next = /<a href="([^"]+)" id="next-page">/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    }
    expect(next).toBeUndefined();
    expect(seen).toEqual([...new Set(seen)]);
    for (const u of [fx.people, fx.urls.a, fx.urls.b, fx.urls.other, fx.urls.target]) expect(seen).toContain(u);
  });

  it("pages a document's captures, newest first, and refuses a bad page size", async () => {
    const stamps: string[] = [];
    let next: string | undefined = `/doc?url=${encodeURIComponent(fx.people)}&limit=1`;
    for (let i = 0; next && i < 10; i++) {
      const html = await (await fetch(url + next)).text();
      const rows = [...html.matchAll(/<tr data-timestamp="(\d+)">/g)].map((m) => m[1]!);
      expect(rows).toHaveLength(1);
      stamps.push(...rows);
      next = /<a id="older-page" href="([^"]+)">/.exec(html)?.[1]?.replaceAll('&amp;', '&');
    }
    const all = (await (await fetch(`${url}/api/captures?url=${encodeURIComponent(fx.people)}`)).json()) as { captures: Array<{ timestamp: string }> };
    expect(stamps).toEqual(all.captures.map((c) => c.timestamp).reverse());
    const bad = await fetch(`${url}/doc?url=${encodeURIComponent(fx.people)}&limit=-3`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/limit= must be a whole number/);
    expect((await fetch(`${url}/doc?url=${encodeURIComponent(fx.people)}&url=x`)).status).toBe(400);
  });

  it.skipIf(!hasChromium)('in Chromium: search a URL, open its page, diff two captures, see workers appear by auto-refresh', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const artifacts = path.join(repoRoot, 'test-artifacts');
    fs.mkdirSync(artifacts, { recursive: true });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 700 } });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      await page.clock.install();
      expect((await page.goto(`${url}/`))?.status()).toBe(200);
      await expect.poll(() => page.locator('#workers').innerText()).toMatch(/No worker holds a host lease/);

      // Search from the box every page has.
      await page.fill('#search-q', 'PEOPLE');
      await page.click('#search-form button');
      await page.waitForSelector('#results');
      expect(await page.locator('#results tr').count()).toBe(2); // header + people.ttl
      await page.screenshot({ path: path.join(artifacts, 'dashboard-search.png'), fullPage: true });
      await page.click(`#results a[href="/doc?url=${encodeURIComponent(fx.people)}"]`);
      await page.waitForSelector('#timeline svg');
      expect(await page.locator('#versions tr[data-timestamp]').count()).toBe(fx.times.length);
      await page.screenshot({ path: path.join(artifacts, 'dashboard-captures.png'), fullPage: true });

      // The form starts on the latest change of the graph: its capture against the one before.
      await page.click('#diff-button');
      await page.waitForSelector('#diff-summary');
      const cli = await diffCommand(fx.people, { data: fx.dataDir, from: iso(fx.times[0]!), to: iso(fx.times[1]!) });
      expect(await page.locator('#diff-summary').innerText()).toContain(cli.summary.split(' between')[0]);
      expect((await page.locator('#diff').innerText()).trim()).toBe(cli.text.trim());
      expect(await page.locator('#diff .removed').count()).toBe(1);
      expect(await page.locator('#diff .added').count()).toBe(4);
      await page.screenshot({ path: path.join(artifacts, 'dashboard-diff.png'), fullPage: true });

      // Two other captures, picked by hand: the first and the last.
      await page.goBack();
      await page.waitForSelector('#diff-form');
      const stamps = await page.locator('#versions tr[data-timestamp]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-timestamp')!));
      await page.check(`input[name="fromCapture"][value="${stamps.at(-1)}"]`); // rows are newest first
      await page.check(`input[name="toCapture"][value="${stamps[0]}"]`);
      await page.click('#diff-button');
      await page.waitForSelector('#diff-summary');
      const firstToLast = await diffCommand(fx.people, { data: fx.dataDir, from: iso(fx.times[0]!), to: iso(fx.times.at(-1)!) });
      expect((await page.locator('#diff').innerText()).trim()).toBe(firstToLast.text.trim());
      expect(await page.locator('#diff-summary').innerText()).toContain(`capture ${stamps[0]}`);

      // Auto-refresh: on, scrolled down; workers take leases; ten seconds later the panel shows them, scroll kept.
      await page.goto(`${url}/`);
      await page.check('#auto-refresh');
      await expect.poll(() => page.locator('#refresh-state').innerText()).toMatch(/updated/);
      // A mark on the page: a reload (a meta refresh) would lose it and the scroll position.
      await page.evaluate(() => ((window as unknown as { mark: number }).mark = 1, window.scrollTo(0, 400)));
      const scrolled = await page.evaluate(() => window.scrollY);
      expect(scrolled).toBeGreaterThan(0);
      workers = await leaseHosts(fx.dataDir);
      expect(await page.locator('#workers-table').count()).toBe(0);
      await page.clock.runFor(10_000);
      await page.waitForSelector('#workers-table');
      const rows = await page.locator('#workers-table tr').allInnerTexts();
      expect(rows.find((r) => r.includes('worker-live'))).toMatch(/renewing/);
      expect(rows.find((r) => r.includes('worker-gone'))).toMatch(/lapsed/);
      expect(await page.locator('#workers-table .lapsed').count()).toBeGreaterThan(0);
      expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1);
      // Where the panel grew above the view, the browser keeps the view on the same content (scroll anchoring).
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThanOrEqual(scrolled);
      await page.screenshot({ path: path.join(artifacts, 'dashboard-workers.png'), fullPage: true });
      // The choice is remembered: a reload comes back with auto-refresh on.
      await page.reload();
      expect(await page.locator('#auto-refresh').isChecked()).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
