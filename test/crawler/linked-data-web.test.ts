import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startLinkedDataWeb, SCHEMA_HOST, type LinkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { openStore } from '../../src/store/index.ts';
import { crawlLog, tempDir } from '../helpers.ts';
import { startRawServer, type RawServer } from '../fetch/hostile.ts';

/**
 * Issue #12's "done when": a crawl of a multi-host Web of Linked Data through a forward proxy, with
 * 303s from every resource IRI, dead https origins (the proxy's CONNECT tunnel reaches a server that
 * answers TLS with junk) and a host that accepts connections and never answers, ends by itself,
 * fetches every reachable document exactly once and archives every redirect hop.
 */

const DOCS = 120;

describe('a proxied crawl of a Web of Linked Data with 303s, dead https origins and a silent host', () => {
  let web: LinkedDataWeb;
  let silent: RawServer;
  let tlsJunk: RawServer;
  let proxy: ForwardProxy;
  let dataDir: string;
  let summary: CrawlSummary;
  let log: Array<Record<string, any>>;
  let elapsedMs: number;

  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: DOCS, hosts: 8 });
    silent = await startRawServer(() => undefined); // accepts, reads, never answers
    tlsJunk = await startRawServer((s) => s.once('data', () => s.write(Buffer.alloc(64, 0x5a))));
    proxy = await startForwardProxy((hostname, port) => {
      if (hostname === 'silent.lod.test') return silent.port;
      if (port === 443) return tlsJunk.port; // every https origin is dead
      return hostname.endsWith('.lod.test') ? web.port : undefined;
    });
    dataDir = tempDir();
    const t0 = Date.now();
    summary = await crawl({
      seeds: [web.seed, 'http://silent.lod.test/data', 'https://secure.lod.test/data', 'https://data3.lod.test/doc/3'],
      dataDir,
      proxy: proxy.url,
      resolve: {}, // the crawler itself resolves no name: the proxy does
      allowPrivate: true,
      depth: 50,
      delayMs: 0,
      perHost: 2,
      // Long enough that a live document on a loaded machine never times out; the silent host still costs only a few.
      timeoutMs: 4_000,
      // The silent host's robots.txt is tried 3 times (30 s, 1 min, 2 min apart by default): shortened here.
      robotsRetryDelayMs: 300,
      domains: ['lod.test'],
    }).run();
    elapsedMs = Date.now() - t0;
    log = crawlLog(dataDir);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await web?.close();
    await silent?.close();
    await tlsJunk?.close();
  });

  it('ends by itself, well within the time its timeouts allow', () => {
    expect(elapsedMs).toBeLessThan(60_000);
    expect(summary.stoppedBy).toBeUndefined();
    expect(summary.queued).toBe(0);
  });

  it('archives every reachable document, each fetched exactly once', () => {
    const archived = new Set(log.filter((e) => e.status === 200).map((e) => e.final_url ?? e.url));
    for (const u of web.documentUrls()) expect(archived, u).toContain(u);
    const twice = [...web.hits].filter(([k, n]) => /\/(doc\/\d+|terms\.ttl|ns)$/.test(k) && n > 1);
    expect(twice).toEqual([]);
    // Each linked homepage (/page/N.html) is a dead link: one 404 each, not a document archived twice.
    expect(summary.reasons.fetched).toBe(web.documentUrls().length);
    expect(summary.reasons['http-error']).toBe(DOCS);
    expect(summary.documents).toBe(web.documentUrls().length + DOCS);
  });

  it('archives every redirect hop, each under its own URL, with its target', () => {
    const hops = log.filter((e) => e.status === 303);
    // Every resource IRI the crawl met (all DOCS of them, and the vocabulary's 45 terms) is one 303 record.
    expect(hops.filter((e) => /\/id\/\d+$/.test(e.url)).length).toBe(DOCS);
    // (The vocabulary's namespace, /term/, is fetched as a vocabulary link too, and 303s like its terms.)
    const terms = hops.filter((e) => /\/term\/\d+$/.test(e.url) && e.url.startsWith(`http://${SCHEMA_HOST}/`)).map((e) => e.url);
    expect(new Set(terms).size, terms.join(' ')).toBe(45);
    expect(terms.length, terms.join(' ')).toBe(45);
    for (const h of hops) expect(h.warc_file, h.url).toBeTruthy();
  });

  it('records why the silent host and the dead https origins failed, without stalling the rest', () => {
    const failed = log.filter((e) => e.status === 0);
    const urls = failed.map((e) => e.url);
    expect(urls).toContain('http://silent.lod.test/data');
    expect(urls).toContain('https://secure.lod.test/data');
    expect(urls).toContain('https://data3.lod.test/doc/3');
    // http://data3.lod.test/ is another origin than https://data3.lod.test/: its documents were archived.
    expect(log.some((e) => e.status === 200 && (e.final_url ?? e.url) === web.document(3))).toBe(true);
  });

  it('leaves an archive that verify finds intact', async () => {
    const store = await openStore(dataDir);
    try {
      const report = await verifyArchive(dataDir, store);
      expect(report.problems).toEqual([]);
      expect(report.openFiles).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
