/**
 * The ReadModel contract: the server's, the dashboard's and `stats`/`log`'s reads, on a writable store
 * and on a read-only open of the same database, each checked against the same question answered over
 * the whole log in memory (what the dashboard used to compute).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlLogEntry, MetadataStore, UrlSearch } from '../../../src/store/types.ts';
import { restKey, type Capture, type CaptureQuery } from '../../../src/store/log-reads.ts';
import { syntheticLog } from '../synthetic-log.ts';
import { type StoreEnv, type StoreMaker, useStores } from './harness.ts';
import { logEntry } from './crawl-log.ts';

function countBy<T>(items: T[], key: (t: T) => string | number): Map<string | number, number> {
  const m = new Map<string | number, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
}

/** What `captures` must return, computed over the whole log in memory. */
function expectedCaptures(log: CrawlLogEntry[], q: CaptureQuery): Capture[] {
  const lastGood = new Map<string, string | undefined>();
  const out: Capture[] = [];
  for (const e of log) {
    if (!e.warcFile || e.warcOffset === undefined) continue;
    const prior = lastGood.has(e.url) ? { lastGoodChecksum: lastGood.get(e.url) } : {};
    if ((e.status >= 200 && e.status < 300) || e.status === 304) lastGood.set(e.url, e.checksum);
    const inRange = q.urls?.includes(e.url) || q.prefixes?.some((p) => e.url.startsWith(p));
    if (!inRange || (q.fromTime !== undefined && e.time < q.fromTime) || (q.toTime !== undefined && e.time > q.toTime)) continue;
    out.push({ entry: e, lastGoodChecksum: prior.lastGoodChecksum });
  }
  const key = (c: Capture) => [restKey(c.entry.url), Math.floor(c.entry.time / 1000), c.entry.id!] as const;
  out.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1] || x[2] - y[2];
  });
  return out;
}

/** Every capture of a query, a page of `size` at a time, each page resuming after the last one's cursor. */
async function allPages(s: MetadataStore, q: Omit<CaptureQuery, 'limit'>, size: number): Promise<Capture[]> {
  const all: Capture[] = [];
  for (;;) {
    const page = await s.captures({ ...q, limit: size, after: all.length ? { url: all.at(-1)!.entry.url, time: all.at(-1)!.entry.time, id: all.at(-1)!.entry.id! } : undefined });
    all.push(...page);
    if (page.length < size) return all;
  }
}

/** Captures (with a WARC record) and fates without one, some behind redirects, in mixed letter case: for the URL search. */
function searchLog(): CrawlLogEntry[] {
  const T = Date.UTC(2025, 0, 1);
  const entries: CrawlLogEntry[] = [];
  const add = (url: string, i: number, extra: Partial<CrawlLogEntry> = {}) =>
    entries.push({ url, time: T + i * 1000, status: 200, durationMs: 1, bytes: 10, change: 'new', triples: 0, warcFile: 'warc/a.warc.gz', warcOffset: i * 100, warcLength: 100, ...extra });
  let i = 0;
  for (const host of ['http://a.example', 'https://b.example', 'http://Shop.example']) {
    for (const p of ['/', '/docs/One.ttl', '/docs/two.ttl', '/people/alice', '/people/Bob']) {
      add(host + p, i++);
      if (p.includes('two')) add(host + p, i++, { change: 'unchanged' }); // a second capture
    }
  }
  add('http://a.example/old', i++, { status: 301, finalUrl: 'http://a.example/docs/moved.ttl' });
  add('http://a.example/failed', i++, { status: 0, change: 'error', warcFile: undefined, warcOffset: undefined, warcLength: undefined });
  return entries;
}

/** The URL search's answer computed over the log in memory: a capture counts for its URL and its final URL. */
function expectedSearch(entries: CrawlLogEntry[], q: Omit<UrlSearch, 'limit' | 'after'>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (!e.warcFile || e.warcOffset === undefined) continue;
    for (const u of new Set([e.url, e.finalUrl ?? e.url])) {
      const hit = q.match === 'prefix' ? u.startsWith(q.text) : u.toLowerCase().includes(q.text.toLowerCase());
      if (hit) counts.set(u, (counts.get(u) ?? 0) + 1);
    }
  }
  return counts;
}

async function everySearchPage(s: MetadataStore, q: Omit<UrlSearch, 'limit' | 'after'>, size: number): Promise<string[]> {
  const out: string[] = [];
  let after: string | undefined;
  for (let n = 0; n < 100; n++) {
    const page = await s.searchUrls({ ...q, after, limit: size });
    out.push(...page.map((u) => u.url));
    if (page.length < size) return out;
    after = page.at(-1)!.url;
  }
  throw new Error('paging did not end');
}

const NOW = Date.UTC(2026, 0, 1);
const HOST_A = ['http://a.example/', 'https://a.example/', 'http://www.a.example/', 'https://www.a.example/'];

/** The read model is read from a store that could write it (MetadataStore): the contract writes through CrawlLog and DocumentStore. */
export function readModelContract(make: StoreMaker<MetadataStore>): void {
  describe.skipIf(make.skip)(`ReadModel on ${make.name}: aggregates and captures of a 300-entry log`, () => {
    let env: StoreEnv<MetadataStore>;
    let writer: MetadataStore;
    let readOnly: MetadataStore;
    let log: CrawlLogEntry[];

    // One database for the read-only tests below: filling it is the slow part.
    beforeAll(async () => {
      env = await make.setup();
      writer = await env.open();
      for (const e of syntheticLog(300)) await writer.appendLog(e);
      // Documents for archiveCounts: a one-off crawl's (a.example) and monitored ones (b, c).
      await writer.addDocuments(Array.from({ length: 10 }, (_, i) => ({ url: `http://a.example/${i}`, host: 'a.example', depth: 1 })));
      for (const [i, state] of ['fetched', 'fetched', 'failed', 'skipped'].entries()) await writer.updateDocument(`http://a.example/${i}`, { state: state as 'fetched' });
      for (let i = 0; i < 5; i++) await writer.addDocuments([{ url: `http://b.example/${i}`, host: 'b.example', depth: 0 }], { monitored: true, strategy: 'poisson', nextFetch: NOW + (i - 2) * 1000 });
      await writer.addDocuments([0, 1].map((i) => ({ url: `http://c.example/${i}`, host: 'c.example', depth: 0 })), { monitored: true, nextFetch: NOW + 1e9 });
      await writer.flush();
      readOnly = await env.openReadOnly();
      log = await writer.log();
    });
    afterAll(async () => {
      await readOnly?.close();
      await writer?.close();
      await env?.cleanup();
    });

    for (const which of ['writable', 'read-only'] as const) {
      const store = () => (which === 'writable' ? writer : readOnly);

      it(`${which}: archive counts: documents by state, hosts, monitored and due URLs by strategy, the log's span`, async () => {
        expect(await store().archiveCounts(NOW)).toEqual({
          documents: { total: 17, queued: 13, fetched: 2, failed: 1, skipped: 1 },
          hosts: 3,
          monitored: 7,
          due: 3, // b/0, b/1, b/2: next fetch at or before now
          strategies: [{ strategy: 'poisson', urls: 5 }, { strategy: '(default)', urls: 2 }],
          firstLogged: Math.min(...log.map((e) => e.time)),
          lastLogged: Math.max(...log.map((e) => e.time)),
        });
      });

      it(`${which}: counts by status and change, in order of first appearance, as the dashboard counted them`, async () => {
        const counts = await store().logCounts();
        expect(counts.entries).toBe(300);
        expect(counts.byStatus.map((g) => [g.status, g.entries])).toEqual([...countBy(log, (e) => e.status)]);
        expect(counts.byChange.map((g) => [g.change, g.entries])).toEqual([...countBy(log, (e) => e.change)]);
      });

      it(`${which}: change frequencies: documents by changes seen, errors left out`, async () => {
        const perDoc = new Map<string, number>();
        for (const e of log) if (e.change !== 'error') perDoc.set(e.url, (perDoc.get(e.url) ?? 0) + (e.change === 'changed' ? 1 : 0));
        const expected = [...countBy([...perDoc.values()], (n) => n)].sort((a, b) => Number(a[0]) - Number(b[0]));
        expect((await store().changeFrequencies()).map((f) => [f.changes, f.documents])).toEqual(expected);
      });

      it(`${which}: progress: one point per entry on a small log, at most maxPoints buckets on a larger one`, async () => {
        expect(await store().logProgress(1000)).toEqual(log.map((e) => ({ time: e.time, fetched: e.change === 'error' ? 0 : 1, errors: e.change === 'error' ? 1 : 0 })));
        const buckets = await store().logProgress(20);
        expect(buckets.length).toBeLessThanOrEqual(20);
        expect(buckets.reduce((n, p) => n + p.fetched + p.errors, 0)).toBe(300);
        expect(buckets.reduce((n, p) => n + p.errors, 0)).toBe(log.filter((e) => e.change === 'error').length);
        expect(buckets.map((p) => p.time)).toEqual(buckets.map((p) => p.time).sort((a, b) => a - b));
        expect(buckets.at(-1)!.time).toBe(Math.max(...log.map((e) => e.time)));
      });

      it(`${which}: the latest entries, newest first`, async () => {
        expect(await store().latestLog(50)).toEqual(log.slice(-50).reverse());
        expect(await store().latestLog(1000)).toHaveLength(300);
      });

      it(`${which}: captures of exact URLs, prefixes and a host, in CDX order, with the last good digest, page by page`, async () => {
        const queries: Omit<CaptureQuery, 'limit'>[] = [
          { urls: ['http://a.example/data/amy', 'https://a.example/data/amy'] },
          { prefixes: ['http://a.example/data/', 'https://a.example/data/'] },
          { prefixes: HOST_A },
          { prefixes: HOST_A, fromTime: log[100]!.time, toTime: log[200]!.time },
          { prefixes: ['http://b.example/'] },
          { urls: ['http://nowhere.example/'] },
          {}, // neither URLs nor prefixes: nothing, not everything
        ];
        for (const q of queries) {
          const expected = expectedCaptures(log, { ...q, limit: 0 });
          expect(await store().captures({ ...q, limit: 10_000 }), JSON.stringify(q)).toEqual(expected);
          expect(await allPages(store(), q, 7)).toEqual(expected);
          expect(await store().captures({ ...q, limit: 3 })).toEqual(expected.slice(0, 3));
          expect(await store().captures({ ...q, limit: 0 })).toEqual([]);
        }
        expect(expectedCaptures(log, { prefixes: HOST_A, limit: 0 }).some((c) => c.entry.url.includes('Zed'))).toBe(true); // the case order is exercised
      });

      it(`${which}: the origins of the logged URLs`, async () => {
        expect((await store().logOrigins()).sort()).toEqual([...new Set(log.map((e) => /^https?:\/\/[^/]*/.exec(e.url)![0]))].sort());
      });
    }
  });

  describe.skipIf(make.skip)(`ReadModel on ${make.name}`, () => {
    const fx = useStores(make);

    it('searchUrls finds archived URLs by prefix and by substring in any case, counting captures, a page at a time', async () => {
      const entries = searchLog();
      for (const e of entries) await fx.s.appendLog(e);
      await fx.s.flush();
      const reader = await fx.openReadOnly();
      for (const q of [
        { text: 'http://a.example/docs/', match: 'prefix' }, { text: 'https://', match: 'prefix' }, { text: '', match: 'prefix' },
        { text: 'DOCS/', match: 'substring' }, { text: 'shop', match: 'substring' }, { text: 'bob', match: 'substring' }, { text: 'nothing', match: 'substring' },
      ] as const) {
        const want = expectedSearch(entries, q);
        const got = await reader.searchUrls({ ...q, limit: 1000 });
        expect(new Map(got.map((u) => [u.url, u.captures])), JSON.stringify(q)).toEqual(want);
        // In the database's order, each URL once, whatever the page size.
        expect(await everySearchPage(reader, q, 2), JSON.stringify(q)).toEqual(got.map((u) => u.url));
      }
      const two = (await reader.searchUrls({ text: 'http://a.example/docs/two.ttl', match: 'prefix', limit: 5 }))[0]!;
      expect([two.firstTime, two.lastTime]).toEqual(entries.filter((e) => e.url === two.url).map((e) => e.time));
      // The target of a redirect is found under its own name, the failed fetch (no record) not at all.
      expect((await reader.searchUrls({ text: 'moved', match: 'substring', limit: 5 })).map((u) => u.url)).toEqual(['http://a.example/docs/moved.ttl']);
      expect(await reader.searchUrls({ text: 'failed', match: 'substring', limit: 5 })).toEqual([]);
      expect(await reader.searchUrls({ text: '', match: 'prefix', limit: 0 })).toEqual([]);
    });

    it('fates: by default every fate but a plain capture (old rows without a reason by their change), by reason, by request or final URL, newest first', async () => {
      const { s } = fx;
      const A = 'http://a.example/';
      const id = async (e: Partial<CrawlLogEntry>) => s.appendLog(logEntry(e));
      const fetched = await id({ url: A, reason: 'fetched' });
      const unchanged = await id({ url: A, reason: 'unchanged', change: 'unchanged' });
      const notFound = await id({ url: 'http://a.example/gone', status: 404, change: 'error', error: 'HTTP 404', reason: 'http-error' });
      const diagnosed = await id({ url: 'http://a.example/warned', reason: 'fetched', diagnostics: ['warning: line 3: bad IRI'] });
      const robots = await id({ url: 'http://a.example/private', status: 0, change: 'error', error: 'robots.txt: disallowed', reason: 'robots-disallowed' });
      const oldError = await id({ url: 'http://a.example/old-error', status: 0, change: 'error', error: 'ECONNRESET' });
      await id({ url: 'http://a.example/old-capture' }); // an old plain capture: not a fate to list
      const redirected = await id({ url: 'http://a.example/moved', finalUrl: A, status: 301, reason: 'redirected' });
      await s.flush();
      const ids = async (q: Parameters<MetadataStore['fates']>[0]) => (await (await fx.openReadOnly()).fates(q)).map((e) => e.id);
      expect(await ids({ limit: 100 })).toEqual([redirected, oldError, robots, diagnosed, notFound]);
      expect(await ids({ limit: 2 })).toEqual([redirected, oldError]);
      expect(await ids({ reasons: ['fetched'], limit: 100 })).toEqual([diagnosed, fetched]);
      expect(await ids({ reasons: ['fetched', 'unchanged', 'redirected'], url: A, limit: 100 })).toEqual([redirected, unchanged, fetched]);
      expect(await ids({ reasons: ['server-error'], limit: 100 })).toEqual([]);
      const counts = await s.logCounts();
      expect(counts.entries).toBe(8);
      expect(counts.requests).toBe(7); // the robots.txt refusal sent no request
      expect(counts.byReason).toEqual([
        { reason: 'fetched', entries: 2 }, { reason: 'unchanged', entries: 1 }, { reason: 'http-error', entries: 1 },
        { reason: 'robots-disallowed', entries: 1 }, { reason: '(none)', entries: 2 }, { reason: 'redirected', entries: 1 },
      ]);
    });

    it('fates of one URL: every row of it and of the URLs its logged redirects led to, plain captures included', async () => {
      const { s } = fx;
      const id = async (e: Partial<CrawlLogEntry>) => s.appendLog(logEntry(e));
      const first = await id({ url: 'http://b.example/doc', reason: 'fetched' });
      const hop = await id({ url: 'http://b.example/old', status: 301, reason: 'redirected', headers: [['Location', '/mid']] });
      const mid = await id({ url: 'http://b.example/mid', status: 303, reason: 'redirected', headers: [['location', 'doc']] });
      const again = await id({ url: 'http://b.example/doc', reason: 'unchanged', change: 'unchanged' });
      const loop = await id({ url: 'http://b.example/doc', status: 302, reason: 'redirected', headers: [['Location', '/old']] });
      await id({ url: 'http://b.example/other', reason: 'fetched' });
      await s.flush();
      const ids = async (url: string) => (await (await fx.openReadOnly()).fates({ url, limit: 100 })).map((e) => e.id);
      expect(await ids('http://b.example/doc')).toEqual([loop, again, mid, hop, first]);
      expect(await ids('http://b.example/mid')).toEqual([loop, again, mid, hop, first]);
      expect(await ids('http://b.example/nowhere')).toEqual([]);
    });

    it('heldLeases is empty on a store that no worker ever used', async () => {
      expect(await fx.s.heldLeases(10)).toEqual([]);
      expect(await (await fx.openReadOnly()).heldLeases(10)).toEqual([]);
    });
  });
}
