import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startServer } from '../../src/server/index.ts';
import { openStore } from '../../src/store/index.ts';
import { historiesFromRecords, runRecrawlLab } from '../../src/lab/recrawl/index.ts';
import { DEFAULT_BOUNDS } from '../../src/schedule/bounds.ts';
import { DAY } from '../../src/schedule/types.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';
import { repoRoot, tempDir } from '../helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = fs.existsSync(CHROMIUM);
const requireChromium = process.env.DATAMONITOR_REQUIRE_CHROMIUM === '1';
if (!hasChromium) {
  console.warn(`\n*** ${CHROMIUM} is missing: the dashboard's headless Chromium test is SKIPPED (apt-get install -y chromium; DATAMONITOR_REQUIRE_CHROMIUM=1 makes this a failure) ***\n`);
}

/** A crawled archive, two re-crawl cycles and a lab result: everything the dashboard charts. */
async function dashboardArchive(): Promise<{ fx: ArchiveFixture; labFile: string }> {
  const fx = await buildArchive({ spacingMs: 0 });
  const store = await openStore(fx.dataDir);
  await store.init();
  const t = Date.now();
  for (const [est, act] of [[4000, 5200], [3000, 2500]] as const) {
    const id = await store.startCycle({ startedAt: t, urls: 3, estimateMs: est, status: 'running' });
    await store.finishCycle(id, { endedAt: t + act, actualMs: act, status: 'done' });
  }
  await store.close();
  const T0 = Date.UTC(2020, 0, 1);
  const iso = (ms: number) => new Date(ms).toISOString();
  const records = Array.from({ length: 12 }, (_, i) => ({
    id: `d${i}`, created: iso(T0), end: iso(T0 + 200 * DAY),
    changes: Array.from({ length: Math.floor(200 / (2 + i * 9)) }, (_, k) => iso(T0 + (k + 1) * (2 + i * 9) * DAY)),
  }));
  const lab = runRecrawlLab(historiesFromRecords(records), { strategies: ['week', 'fix', 'poisson'], bounds: DEFAULT_BOUNDS });
  const labFile = path.join(tempDir('dm-lab-'), 'lab.json');
  fs.writeFileSync(labFile, JSON.stringify(lab));
  return { fx, labFile };
}

describe('dashboard pages', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const made = await dashboardArchive();
    fx = made.fx;
    ({ app, url } = await startServer({ dataDir: fx.dataDir, port: 0, labFile: made.labFile }));
  });
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('renders the overview and a document timeline as HTML with inline SVG', async () => {
    const home = await (await fetch(`${url}/`)).text();
    for (const id of ['progress-charts', 'change-histogram', 'cycles-chart', 'lab-chart', 'log']) expect(home).toContain(`id="${id}"`);
    expect(home).toContain('Re-crawl cycles: estimated against actual time');
    // Every URL's fate by reason, as `datamonitor log` names them.
    const reasons = /<div id="reasons">([\s\S]*?)<\/div>/.exec(home)?.[1] ?? '';
    expect(reasons).toMatch(/<tr><td>fetched<\/td><td>\d+<\/td><\/tr>/);
    expect(home).toContain(`/doc?url=${encodeURIComponent(fx.doc)}`);
    const doc = await fetch(`${url}/doc?url=${encodeURIComponent(fx.doc)}`);
    expect(doc.status).toBe(200);
    const html = await doc.text();
    expect(html).toContain('Version timeline (4 captures)');
    expect(html.match(/\?format=nquads/g)).toHaveLength(4);
    expect((await fetch(`${url}/doc?url=${encodeURIComponent(fx.origin.url + '/never')}`)).status).toBe(404);
  });

  it('says what is wrong with a lab file that is not a lab result', async () => {
    const bad = path.join(tempDir('dm-lab-bad-'), 'lab.json');
    fs.writeFileSync(bad, '{"hello": 1}');
    const other = await startServer({ dataDir: fx.dataDir, port: 0, labFile: bad });
    try {
      const html = await (await fetch(`${other.url}/`)).text();
      expect(html).toMatch(/Cannot show the lab results.*not the output of datamonitor lab recrawl --json/);
    } finally {
      await other.app.close();
    }
  });

  it.skipIf(hasChromium || !requireChromium)('has Chromium (DATAMONITOR_REQUIRE_CHROMIUM=1)', () => {
    expect.fail(`${CHROMIUM} is missing and DATAMONITOR_REQUIRE_CHROMIUM=1: apt-get install -y chromium`);
  });

  it.skipIf(!hasChromium)('loads in headless Chromium: charts drawn, no console errors, screenshot kept', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      const res = await page.goto(`${url}/`);
      expect(res?.status()).toBe(200);
      for (const id of ['progress-charts', 'change-histogram', 'cycles-chart', 'lab-chart']) {
        const box = await page.locator(`#${id} svg`).first().boundingBox();
        expect(box, id).not.toBeNull();
        expect(box!.width, id).toBeGreaterThan(200);
        expect(box!.height, id).toBeGreaterThan(100);
      }
      // Bars and lines actually drawn: the histogram has bars of height > 0, the progress chart a polyline.
      const bars = await page.locator('#change-histogram svg rect[fill="#1f77b4"]').evaluateAll((els) => els.map((e) => (e as SVGRectElement).getBBox().height));
      expect(bars.some((h) => h > 0)).toBe(true);
      expect(await page.locator('#progress-charts svg polyline').count()).toBeGreaterThan(0);
      expect(await page.locator('#lab-chart svg rect').count()).toBeGreaterThan(6);
      expect(await page.locator('#log tr').count()).toBeGreaterThan(5);
      const artifacts = path.join(repoRoot, 'test-artifacts');
      fs.mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, 'dashboard.png'), fullPage: true });

      await page.click(`#log a[href="/doc?url=${encodeURIComponent(fx.doc)}"] >> nth=0`);
      await page.waitForSelector('#timeline svg');
      expect(await page.locator('#versions tr').count()).toBe(5); // header + 4 captures
      expect(await page.locator('#timeline svg circle').count()).toBeGreaterThanOrEqual(4);
      await page.screenshot({ path: path.join(artifacts, 'dashboard-doc.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
