/**
 * The store reads behind the URL search and the worker panel (searchUrls, heldLeases in
 * src/store/log-reads.ts) on SQLite and PostgreSQL, against the same question answered over the log in memory.
 */
import { describe, expect, it } from 'vitest';
import type { CrawlLogEntry, MetadataStore, UrlSearch } from '../../src/store/types.ts';
import { backends, useStores, workerBackends } from '../store/backends.ts';

const T = Date.UTC(2025, 0, 1);

/** Captures (with a WARC record) and fates without one, some behind redirects, in mixed letter case. */
function log(): CrawlLogEntry[] {
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

/** The answer computed over the log in memory: a capture counts for its URL and its final URL. */
function expected(entries: CrawlLogEntry[], q: Omit<UrlSearch, 'limit' | 'after'>): Map<string, number> {
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

async function everyPage(s: MetadataStore, q: Omit<UrlSearch, 'limit' | 'after'>, size: number): Promise<string[]> {
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

for (const backend of backends) {
  describe.skipIf(backend.skip)(`searchUrls on ${backend.name}`, () => {
    const fx = useStores(backend);

    it('finds archived URLs by prefix and by substring in any case, counting captures, a page at a time', async () => {
      const entries = log();
      for (const e of entries) await fx.s.appendLog(e);
      await fx.s.flush();
      const reader = await fx.openReadOnly();
      for (const q of [
        { text: 'http://a.example/docs/', match: 'prefix' }, { text: 'https://', match: 'prefix' }, { text: '', match: 'prefix' },
        { text: 'DOCS/', match: 'substring' }, { text: 'shop', match: 'substring' }, { text: 'bob', match: 'substring' }, { text: 'nothing', match: 'substring' },
      ] as const) {
        const want = expected(entries, q);
        const got = await reader.searchUrls({ ...q, limit: 1000 });
        expect(new Map(got.map((u) => [u.url, u.captures])), JSON.stringify(q)).toEqual(want);
        // In the database's order, each URL once, whatever the page size.
        expect(await everyPage(reader, q, 2), JSON.stringify(q)).toEqual(got.map((u) => u.url));
      }
      const two = (await reader.searchUrls({ text: 'http://a.example/docs/two.ttl', match: 'prefix', limit: 5 }))[0]!;
      expect([two.firstTime, two.lastTime]).toEqual(entries.filter((e) => e.url === two.url).map((e) => e.time));
      // The target of a redirect is found under its own name, the failed fetch (no record) not at all.
      expect((await reader.searchUrls({ text: 'moved', match: 'substring', limit: 5 })).map((u) => u.url)).toEqual(['http://a.example/docs/moved.ttl']);
      expect(await reader.searchUrls({ text: 'failed', match: 'substring', limit: 5 })).toEqual([]);
    });
  });
}

for (const backend of workerBackends) {
  describe.skipIf(backend.skip)(`heldLeases on ${backend.name}`, () => {
    const fx = useStores(backend);

    it("lists each worker's hosts, lapsed leases included, released ones not", async () => {
      await fx.s.addDocuments(['a', 'b', 'c'].map((h) => ({ url: `http://${h}.example/`, host: `${h}.example`, depth: 0 })));
      await fx.s.flush();
      const all = { index: 0, count: 1 };
      const now = Date.now();
      await fx.s.leaseHosts('w1', all, 60_000, 2, now);
      await fx.s.leaseHosts('w2', all, 1, 1, now);
      const reader = await fx.openReadOnly();
      const held = await reader.heldLeases(10);
      expect(held.map((l) => [l.worker, l.host, l.expiresAt])).toEqual([
        ['w1', 'a.example', now + 60_000], ['w1', 'b.example', now + 60_000], ['w2', 'c.example', now + 1],
      ]);
      await fx.s.releaseHost('w1', 'a.example');
      expect((await reader.heldLeases(10)).map((l) => l.host)).toEqual(['b.example', 'c.example']);
      expect(await reader.heldLeases(1)).toHaveLength(1);
    });
  });
}

describe('heldLeases without a lease table', () => {
  const fx = useStores(backends[0]!);
  it('is empty on a store no worker ever used', async () => {
    expect(await fx.s.heldLeases(10)).toEqual([]);
  });
});
