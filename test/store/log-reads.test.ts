/**
 * The server's log reads (logCounts, changeFrequencies, logProgress, latestLog, captures, logOrigins) on every
 * backend, read-only opens included, against the JavaScript computations over `store.log()` they replace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { captureSql, restKey, type Capture, type CaptureQuery } from '../../src/store/log-reads.ts';
import type { SqliteStore } from '../../src/store/sqlite.ts';
import { backends, type Backend } from './backends.ts';
import { syntheticLog } from './synthetic-log.ts';

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

const NOW = Date.UTC(2026, 0, 1);
const HOST_A = ['http://a.example/', 'https://a.example/', 'http://www.a.example/', 'https://www.a.example/'];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`log reads on ${backend.name}`, () => {
    let env: Awaited<ReturnType<Backend['setup']>>;
    let writer: MetadataStore;
    let readOnly: MetadataStore;
    let log: CrawlLogEntry[];

    beforeAll(async () => {
      env = await backend.setup();
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
        ];
        for (const q of queries) {
          const expected = expectedCaptures(log, { ...q, limit: 0 });
          expect(await store().captures({ ...q, limit: 10_000 }), JSON.stringify(q)).toEqual(expected);
          expect(await allPages(store(), q, 7)).toEqual(expected);
          expect(await store().captures({ ...q, limit: 3 })).toEqual(expected.slice(0, 3));
        }
        expect(expectedCaptures(log, { prefixes: HOST_A, limit: 0 }).some((c) => c.entry.url.includes('Zed'))).toBe(true); // the case order is exercised
      });

      it(`${which}: the origins of the logged URLs`, async () => {
        expect((await store().logOrigins()).sort()).toEqual([...new Set(log.map((e) => /^https?:\/\/[^/]*/.exec(e.url)![0]))].sort());
      });
    }

    // SQLite only: its plan is what the test reads (PostgreSQL's plans depend on its statistics).
    if (backend.name === 'SQLite') it('EXPLAIN QUERY PLAN: exact, prefix and host captures are searches of crawl_log_url, never a scan of the log', async () => {
      const db = (writer as SqliteStore).db;
      const after = { url: 'http://a.example/data/amy', time: log[0]!.time, id: 5 };
      for (const q of [{ urls: ['http://a.example/data/amy', 'https://a.example/data/amy'] }, { prefixes: ['http://a.example/data/'] }, { prefixes: HOST_A, after, fromTime: 1 }]) {
        const { sql, params } = captureSql('sqlite', { ...q, limit: 10 });
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
        expect(plan.some((d) => /^SEARCH crawl_log USING INDEX crawl_log_url \(url/.test(d)), plan.join('\n')).toBe(true);
        expect(plan.some((d) => /^SEARCH p USING INDEX crawl_log_url \(url=\?\)/.test(d)), plan.join('\n')).toBe(true);
        expect(plan.filter((d) => /^SCAN /.test(d)), plan.join('\n')).toEqual([]);
      }
    });
  });
}
