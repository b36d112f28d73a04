import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMainOk } from '../helpers.ts';
import { VERDICTS } from '../../src/lab/report/index.ts';
import { cacheClaims } from '../../src/lab/report/providers/cache.ts';
import { crawltimeClaims } from '../../src/lab/report/providers/crawltime.ts';
import type { CrawlTimeLabResult } from '../../src/lab/crawltime/index.ts';
import { orderingClaims } from '../../src/lab/report/providers/ordering.ts';
import { simulateCaches, traceOf } from '../../src/lab/cache/index.ts';
import { boundClaims } from '../../src/lab/report/providers/recrawl-bound.ts';
import { goldBound } from '../../src/lab/recrawl/bound.ts';
import { historiesFromRecords } from '../../src/lab/recrawl/index.ts';
import { quickHistories } from '../../src/lab/report/quick-data.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-report-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => runMainOk(['lab', 'report', ...args]);

describe('lab report', () => {
  it('--quick --json runs every experiment as a smoke test, under smoke- ids, and writes one page with the figures of the run', async () => {
    const page = path.join(dir, 'report.html');
    // A missing shared folder must not matter with --quick: built-in data only.
    const json = JSON.parse(await cli(['--quick', '--json', '--out', page, '--shared', dir]));
    expect(json.failed).toEqual([]);
    expect(json.claims.length).toBeGreaterThanOrEqual(15);
    const ids = json.claims.map((c: { id: string }) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of json.claims) {
      // Built-in data says nothing of a seed's claim: no verdict under a real claim id, the rule's outcome kept aside.
      expect(c.verdict).toBe('smoke test');
      expect(c.id).toMatch(/^smoke-/);
      expect(VERDICTS.filter((v) => v !== 'smoke test')).toContain(c.smokeOutcome);
      expect(['000', '001', '002']).toContain(c.seed);
      expect(c.measured).toMatch(/\d/); // every verdict states its numbers
    }
    // The seed's hot-page definitions all appear: three backlink shares, G = 13, the buffer, the keyword rule.
    // Every experiment answered, the crawl-time one from real crawls on 127.0.0.1 with the machine's load stated.
    const crawltime = json.claims.find((c: { id: string }) => c.id === 'smoke-000-heuristic-overestimates');
    expect(crawltime.data).toMatch(/crawls .* load average/);
    expect(json.data).toBeNull();
    for (const id of ['000-week-best-recall-worst-precision', '000-week-best-recall-worst-precision-lab-protocol', '000-datamonitor-beats-seed-heldout', '000-docs-rate-best-at-equal-downloads', '000-docs-quiet-not-above-gold', '001-pagerank-best-backlink-45-quick', '001-pagerank-best-backlink-0.8-quick', '001-pagerank-best-buffer-quick', '001-keyword-only-bfs-quick-vacuum', '002-clock-like-lru-multihost', '000-docs-bound-bursts-cost', '000-docs-changelog-estimator-then-nutch', '000-docs-bound-bayes-room-only-python-peps', '000-docs-choice-window-same-interval-within-1', '000-docs-choice-start-7d-poisson-leads-fix', '000-docs-quiet-f1-vs-poisson', '000-docs-source-f1-below-gold', '000-docs-source-recall-above-gold-only-python-peps', '000-estimator-datamonitor-minutes', '000-docs-minutes-estimator-close', '001-docs-pagerank-hot-top10-quick', '001-docs-similarity-ordering-first-quick']) expect(ids).toContain(`smoke-${id}`);
    // The crawls of minutes are real crawls too, with the machine's load stated; --quick says they last seconds.
    expect(json.claims.find((c: { id: string }) => c.id === 'smoke-000-docs-minutes-estimator-close').data).toMatch(/quick: seconds, not minutes; 1-minute load average/);
    // datamonitor against the seed's strategies: tuned on one file, measured on the other, each budget with its interval.
    const heldOut = json.claims.find((c: { id: string }) => c.id === 'smoke-000-datamonitor-beats-seed-heldout');
    expect(heldOut.measured).toMatch(/generated-1: .*\[-?\d+\.\d, -?\d+\.\d\]/);
    expect(heldOut.data).toMatch(/seed protocol/);
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toContain('id="fig-recrawl-heldout-seed"');
    expect(html).not.toMatch(/<script|<link |src="http/); // self-contained
    for (const id of ids) expect(html).toContain(`id="${id}"`);
    // Figures are drawn from this run: the buffer figure carries the run's B, the cache figure the trace's size.
    const buffer = json.claims.find((c: { id: string }) => c.id === 'smoke-001-pagerank-best-buffer-quick');
    expect(buffer.measured).toMatch(/P_BC/);
    expect((html.match(/<svg/g) ?? []).length).toBeGreaterThanOrEqual(5);
    expect(html).toContain('100000 requests');
  }, 600_000);

  it('a caching verdict flips when the trace flips: a popular core hits, a loop larger than the cache defeats LRU and CLOCK', () => {
    const popular: string[] = [];
    const loop: string[] = [];
    for (let t = 0; t < 50_000; t++) {
      popular.push(t % 10 === 9 ? `http://h${t % 7}.test/rare-${t % 990}` : `http://h${t % 3}.test/core-${t % 10}`);
      loop.push(`http://h${t % 7}.test/page-${t % 1000}`); // 1,000 URLs in a cycle
    }
    const verdict = (urls: string[]) => cacheClaims(simulateCaches(traceOf(urls)), 't', 'test').find((c) => c.id === '002-small-cache-80-t')!;
    expect(verdict(popular).verdict).toBe('confirmed');
    const refuted = verdict(loop);
    expect(refuted.verdict).toBe('refuted');
    expect(refuted.measured).toMatch(/hit 0\.0 %/);
  });

  it("Table 3's mean underestimation is over the crawls, not a mean of the bands' means", () => {
    // 3 short crawls each 50 % under, 1 long one 50 % under: the mean is 50 %, and "small" (≤ 20 %) is refuted.
    const band = (label: string, under: number) => ({ band: label, crawls: under, over: 0, overFraction: 0, overMinutes: 0, under, underFraction: 0.5, underMinutes: 0 });
    const est = (name: 'seed' | 'seed-per-host' | 'datamonitor') => ({ name, label: name, bands: [band('< 1 s', 3), band('> 5 s', 1)], meanAbsError: 0.5, medianRatio: 0.5, within20: 0, over: 0, under: 4 });
    const r: CrawlTimeLabResult = { site: 't', concurrency: 8, trials: [], estimators: [est('seed'), est('seed-per-host'), est('datamonitor')], seconds: 1 };
    const small = crawltimeClaims(r, 'test').find((c) => c.id === '000-underestimation-small')!;
    expect(small.measured).toMatch(/50\.0 %/);
    expect(small.verdict).toBe('refuted');
  });

  it('a site where a definition finds no hot page gets "not testable here", not an error', () => {
    // 40 pages in a ring: no page has 13 times the mean PageRank, none mentions the word.
    const pages = Array.from({ length: 40 }, (_, i) => ({ url: `http://ring.test/${i}.html`, title: `Page ${i}`, text: 'plain words', links: [{ url: `http://ring.test/${(i + 1) % 40}.html` }] }));
    const { claims } = orderingClaims({ key: 'ring', label: 'ring', graph: { pages, start: pages[0].url }, words: ['vacuum'] });
    expect(claims.find((c) => c.id === '001-pagerank-best-pagerank-g13-ring')!.verdict).toBe('not testable here');
    expect(claims.find((c) => c.id === '001-keyword-only-bfs-ring-vacuum')!.verdict).toBe('not testable here');
    expect(claims.find((c) => c.id === '001-small-site-worse-than-random-ring')!.verdict).toBe('not testable here'); // 40 pages is not the seed's ~1,100
    expect(claims.find((c) => c.id === '001-docs-bfs-best-g50-ring')!.verdict).toBe('not testable here'); // no page has 50 backlinks
  });

  it("the bound's burst verdict follows the data: re-checks after a change cost on Poisson pages and pay where changes come in bursts", () => {
    const day = 86_400_000;
    const poisson = { name: 'poisson-pages', b: goldBound(historiesFromRecords(quickHistories(40, 5))) };
    // Every change opens a month of changes every 3 days: a download that sees one is inside a burst, and a re-check soon after it catches the next.
    const start = Date.UTC(2020, 0, 1);
    const bursty = quickHistories(40, 6).map((r) => ({ ...r, changes: (r.changes as number[]).flatMap((t) => Array.from({ length: 11 }, (_, k) => t + 3 * k * day)).filter((t) => t < (r.end as number)) }));
    const burst = { name: 'bursty-pages', b: goldBound(historiesFromRecords(bursty.map((r) => ({ ...r, created: start })))) };
    const verdict = (rows: (typeof poisson)[]) => boundClaims(rows, 'test').find((c) => c.id === '000-docs-bound-bursts-cost')!;
    expect(verdict([poisson]).verdict).toBe('confirmed');
    expect(verdict([burst]).verdict).toBe('refuted');
    expect(verdict([poisson, burst]).verdict).toBe('mixed');
    expect(verdict([poisson, burst]).measured).toMatch(/poisson-pages -\d+\.\d\d .*bursty-pages \+\d+\.\d\d/);
  }, 120_000);
});
