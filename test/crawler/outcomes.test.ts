import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { openStore } from '../../src/store/index.ts';
import { hostOf } from '../../src/frontier/normalize.ts';
import { runCycle } from '../../src/recrawl/cycle.ts';
import { OUTCOMES } from '../../src/vocabulary/outcomes.ts';
import { runMainOk, tempDir } from '../helpers.ts';

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

/**
 * The crawl's summary, `stats` and `run` count in one way: each crawl-log row in one column, redirect hops,
 * policy skips and parse errors apart from new documents and errors, so that the numbers add up and agree.
 */
describe('one way of counting', () => {
  let web: WebOfData;
  let dataDir: string;
  let summary: CrawlSummary;

  beforeAll(async () => {
    web = await startWebOfData();
    dataDir = tempDir();
    summary = await crawl({ seeds: [web.seed], dataDir, depth: 4, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false }).run();
  });
  afterAll(() => web.close());

  it('the crawl summary counts every URL once, each outcome apart', async () => {
    const o = summary.outcomes;
    expect(sum(o)).toBe(sum(summary.reasons));
    // The bundled web has 303s, a broken Turtle file, a 404, a robots.txt-disallowed path and links off its host.
    expect(o.redirect).toBe(summary.reasons.redirected);
    expect(o.redirect).toBeGreaterThan(0);
    expect(o['parse-error']).toBe(1);
    expect(o.error).toBe(summary.reasons['http-error']);
    expect(o.policy).toBe(summary.skipped.robots + summary.skipped.filtered);
    expect(o.new).toBe(summary.reasons.fetched);
  });

  it('stats reads the same columns from the log, adding up to its entries, and says so', async () => {
    const store = await openStore(dataDir);
    await store.init();
    const counts = await store.logCounts();
    await store.close();
    expect(sum(counts.byOutcome)).toBe(counts.entries);
    for (const k of OUTCOMES) {
      // Filtered URLs are counted by the crawl, once each, but get no log row.
      expect(counts.byOutcome[k], k).toBe(k === 'policy' ? summary.outcomes.policy - summary.skipped.filtered : summary.outcomes[k]);
    }
    const text = await runMainOk(['stats', '--data', dataDir]);
    const line = text.split('\n').find((l) => l.startsWith('log'))!;
    expect(line).toContain(`${counts.entries} entries`);
    expect(line).toContain(`${summary.outcomes.redirect} redirects`);
    expect(line).toContain('1 parse error');
    expect(line).toContain('1 error');
    // The numbers in the line add up to its entries.
    const numbers = [...line.split(': ').slice(1).join(': ').replace(/\(.*\)$/, '').matchAll(/(\d+) /g)].map((m) => Number(m[1]));
    expect(numbers.reduce((a, b) => a + b, 0)).toBe(counts.entries);
  });
});

describe('a re-crawl cycle counts a parse error as one', () => {
  let origin: TestServer;
  afterAll(() => origin?.close());

  it('reports the parse error of its only fetch (it said "0 errors")', async () => {
    origin = await startServer((_req, res) => res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/a> <http://example.org/p> "unclosed .\n'));
    const dataDir = tempDir();
    const url = `${origin.url}/broken.ttl`;
    const store = await openStore(dataDir);
    await store.init();
    await store.addDocuments([{ url, host: hostOf(url), depth: 0 }], { monitored: true, strategy: 'poisson', nextFetch: Date.now() - 1000 });
    const r = await runCycle({ dataDir, store, crawl: { delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] } });
    await store.close();
    expect(r.status).toBe('done');
    expect(r.downloads).toBe(1);
    expect(r.outcomes['parse-error']).toBe(1);
    expect(r.outcomes.new).toBe(0);
    const cycles = await runMainOk(['stats', '--data', dataDir]);
    // The cycle's robots.txt is archived too (archived only): the policy in force at its capture.
    expect(cycles).toMatch(/cycles .*1 download \(0 new, 0 changed, 0 unchanged, 1 archived only, 1 parse error\)/);
  });
});
