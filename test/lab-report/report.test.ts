import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMainOk } from '../helpers.ts';
import { VERDICTS } from '../../src/lab/report/index.ts';
import { RULES } from '../../src/lab/report/rules.ts';
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
    // Every claim of a seed (the docs' own are `-docs-`) is judged by a rule declared in the rules module.
    for (const id of ids.map((i: string) => i.slice('smoke-'.length)).filter((i: string) => !i.includes('-docs-'))) expect(RULES.some((r) => id.startsWith(r.id)), id).toBe(true);
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

  it("a caching verdict flips when the trace flips, at the seed's 50,000 entries, and only on a trace of the seed's kind", () => {
    // 1,000,000 requests on 7 hosts: a popular core of 20,000 URLs takes 85 % of them, the rest are never seen twice.
    const popular: string[] = [];
    const loop: string[] = [];
    for (let t = 0; t < 1_000_000; t++) {
      const core = (t * 7919) % 20_000;
      popular.push(t % 20 < 17 ? `http://h${core % 7}.test/core-${core}` : `http://h${t % 7}.test/rare-${t}`);
      loop.push(`http://h${t % 7}.test/page-${t % 100_000}`); // 100,000 URLs in a cycle: LRU and CLOCK of 50,000 never hit
    }
    const sizes = [1, 1024, 12_500, 50_000, 65_536];
    const verdict = (urls: string[], setting: { requests: number; hosts: number; generated: boolean }) => cacheClaims(simulateCaches(traceOf(urls), { sizes }), 't', 'test', setting).find((c) => c.id === '002-small-cache-80-t')!;
    const real = { requests: 1_000_000, hosts: 7, generated: false };
    const hit = verdict(popular, real);
    expect(hit.verdict).toBe('confirmed');
    expect(hit.measured).toMatch(/with 50,000 entries/);
    const miss = verdict(loop, real);
    expect(miss.verdict).toBe('refuted');
    expect(miss.measured).toMatch(/hit 0\.0 %/);
    // The same figures from a generated trace, or a one-host trace, are an observation, not a verdict.
    expect(verdict(popular, { ...real, generated: true }).verdict).toBe('not testable here');
    const oneHost = verdict(popular, { ...real, hosts: 1 });
    expect(oneHost.verdict).toBe('not testable here');
    expect(oneHost.measured).toMatch(/observed, not judged: .*one host/);
  }, 300_000);

  it("Table 3's mean underestimation is over the crawls, not a mean of the bands' means", () => {
    // 3 short crawls each 50 % under, 1 long one 50 % under: the mean is 50 %, and "small" (≤ 20 %) is refuted.
    const band = (label: string, under: number) => ({ band: label, crawls: under, over: 0, overFraction: 0, overMinutes: 0, under, underFraction: 0.5, underMinutes: 0 });
    const est = (name: 'seed' | 'seed-per-host' | 'datamonitor') => ({ name, label: name, bands: [band('< 1 s', 3), band('> 5 s', 1)], meanAbsError: 0.5, medianRatio: 0.5, within20: 0, over: 0, under: 4 });
    const crawls = (seconds: number) => [{ actualMs: seconds * 1000, load1: 0 }] as unknown as CrawlTimeLabResult['trials'];
    const r: CrawlTimeLabResult = { site: 't', concurrency: 8, trials: crawls(45 * 60), estimators: [est('seed'), est('seed-per-host'), est('datamonitor')], seconds: 1 };
    const small = crawltimeClaims(r, 'test').find((c) => c.id === '000-underestimation-small')!;
    expect(small.measured).toMatch(/50\.0 %/);
    expect(small.verdict).toBe('refuted');
    // The same figures from seconds-long crawls: the seed timed crawls of 30 min to 2 h, so no verdict.
    const short = crawltimeClaims({ ...r, trials: crawls(40) }, 'test');
    for (const id of ['000-underestimation-small', '000-heuristic-overestimates', '000-heuristic-overestimates-real-per-host']) {
      expect(short.find((c) => c.id === id)!.verdict).toBe('not testable here');
    }
    expect(short.find((c) => c.id === '000-underestimation-small')!.measured).toMatch(/observed, not judged: mean underestimation 50\.0 %.*30 min/);
    // datamonitor's own claim is about the lab's crawls: judged on them.
    expect(short.find((c) => c.id === '000-estimator-datamonitor')!.verdict).not.toBe('not testable here');
  });

  it("datamonitor's estimator wins only when its interval over the crawls is above zero, not on a lower mean alone", () => {
    const est = (name: 'seed' | 'seed-per-host' | 'datamonitor') => ({ name, label: name, bands: [], meanAbsError: 0, medianRatio: 1, within20: 0, over: 0, under: 0 });
    const trial = (seedMs: number, datamonitorMs: number) => ({ actualMs: 10_000, seedMs, seedPerHostMs: seedMs, datamonitorMs, load1: 0 });
    const claim = (trials: ReturnType<typeof trial>[]) =>
      crawltimeClaims({ site: 't', concurrency: 8, trials: trials as unknown as CrawlTimeLabResult['trials'], estimators: [est('seed'), est('seed-per-host'), est('datamonitor')], seconds: 1 }, 'test').find((c) => c.id === '000-estimator-datamonitor')!;
    // Closer on every crawl: confirmed. Far closer on one crawl, a little worse on the others: a lower mean, an interval across zero.
    expect(claim(Array.from({ length: 12 }, (_, k) => trial(15_000 + 100 * k, 11_000))).verdict).toBe('confirmed');
    const lucky = claim([trial(30_000, 10_000), ...Array.from({ length: 11 }, () => trial(10_500, 11_000))]);
    expect(lucky.measured).toMatch(/datamonitor closer on 1 of 12.*\[95 % CI over crawls -/);
    expect(lucky.verdict).toBe('refuted');
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
