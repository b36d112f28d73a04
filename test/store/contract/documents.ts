/**
 * The DocumentStore contract: the frontier's durable state and the re-crawl schedule. What a crawl's
 * resume, the scheduler, `add`/`due` and the server's API rely on.
 */
import { describe, expect, it } from 'vitest';
import type { DocumentStore, StoreLifecycle } from '../../../src/store/types.ts';
import { type StoreMaker, useStores } from './harness.ts';

const T0 = 1_700_000_000_000;
const doc = (url: string, depth = 0) => ({ url, host: new URL(url).host, depth });

export function documentStoreContract(make: StoreMaker<DocumentStore & StoreLifecycle>): void {
  describe.skipIf(make.skip)(`DocumentStore on ${make.name}`, () => {
    const fx = useStores(make);

    it('addDocuments inserts only new URLs, also within one batch, with queued defaults', async () => {
      const { s } = fx;
      const before = Date.now();
      expect(await s.addDocuments([doc('http://a.example/1'), doc('http://a.example/2', 1), doc('http://a.example/1', 5)])).toBe(2);
      expect(await s.addDocuments([doc('http://a.example/2', 9), doc('http://b.example/', 2)])).toBe(1);
      expect(await s.addDocuments([])).toBe(0);
      const d = await s.getDocument('http://a.example/1');
      expect(d).toMatchObject({ url: 'http://a.example/1', host: 'a.example', depth: 0, state: 'queued', monitored: false });
      expect(d!.firstSeen).toBeGreaterThanOrEqual(before);
      expect(d!.nextFetch).toBeUndefined();
      expect((await s.getDocument('http://a.example/2'))!.depth).toBe(1); // the first depth stays
      expect(await s.getDocument('http://nowhere.example/')).toBeUndefined();
      expect(await s.countDocuments()).toBe(3);
      const pages: string[][] = [];
      for await (const page of s.documentUrlPages(2)) pages.push(page);
      // In URL order, pages of at most the size asked, every URL once.
      expect(pages).toEqual([['http://a.example/1', 'http://a.example/2'], ['http://b.example/']]);
    });

    it("getDocuments reads many URLs at once, past one query's batch, returning only the known ones, each once, as getDocument does", async () => {
      const { s } = fx;
      const urls = Array.from({ length: 12_345 }, (_, i) => `http://a.example/p${i}?q='"%20ü`);
      await s.addDocuments(urls.filter((_, i) => i % 3 !== 0).map((url) => ({ url, host: 'a.example', depth: 2 })));
      await s.updateDocument(urls[1]!, { state: 'fetched', lastFetched: T0, strategyState: { n: 1 } });
      const rows = await s.getDocuments([...urls, 'http://nowhere.example/', urls[2]!]);
      const byUrl = new Map(rows.map((r) => [r.url, r]));
      expect(rows).toHaveLength(urls.filter((_, i) => i % 3 !== 0).length); // each known URL once, even when asked twice
      for (const [i, url] of urls.entries()) expect(byUrl.has(url)).toBe(i % 3 !== 0);
      expect(byUrl.get(urls[1]!)).toEqual(await s.getDocument(urls[1]!));
      expect(await s.getDocuments([])).toEqual([]);
    });

    it('addDocuments with monitored sets strategy and nextFetch, turns known URLs into monitored ones, and leaves monitored ones as they are', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/old')]);
      expect(await s.addDocuments([doc('http://a.example/old'), doc('http://a.example/new')], { monitored: true, strategy: 'dyn', nextFetch: T0 })).toBe(1);
      for (const url of ['http://a.example/old', 'http://a.example/new']) {
        expect(await s.getDocument(url)).toMatchObject({ monitored: true, strategy: 'dyn', nextFetch: T0 });
      }
      // Adding again (a second `add` of the same URL) does not reset a schedule the strategy has set.
      await s.updateDocument('http://a.example/new', { nextFetch: T0 + 5000 });
      expect(await s.addDocuments([doc('http://a.example/new')], { monitored: true, strategy: 'other', nextFetch: T0 + 1 })).toBe(0);
      expect(await s.getDocument('http://a.example/new')).toMatchObject({ monitored: true, strategy: 'dyn', nextFetch: T0 + 5000 });
    });

    it('updateDocument patches the given fields, round-trips JSON state and clears a field set to undefined', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/')]);
      const state = { rate: 0.25, history: [1, 2, { nested: 'ünïcödé ✓' }], flag: true, nothing: null };
      await s.updateDocument('http://a.example/', {
        state: 'fetched', lastFetched: T0, nextFetch: T0 + 3_600_000, strategy: 'state-1', strategyState: state,
        etag: '"abc"', lastModified: 'Tue, 14 Nov 2023 22:13:20 GMT', checksum: 'SHA1:XYZ', graphHash: 'g1', monitored: true,
      });
      expect(await s.getDocument('http://a.example/')).toEqual({
        url: 'http://a.example/', host: 'a.example', depth: 0, firstSeen: expect.any(Number),
        state: 'fetched', lastFetched: T0, nextFetch: T0 + 3_600_000, strategy: 'state-1', strategyState: state,
        etag: '"abc"', lastModified: 'Tue, 14 Nov 2023 22:13:20 GMT', checksum: 'SHA1:XYZ', graphHash: 'g1', monitored: true,
      });
      await s.updateDocument('http://a.example/', { etag: undefined, state: 'failed' });
      await s.updateDocument('http://a.example/', {});
      await s.updateDocument('http://nowhere.example/', { state: 'fetched' }); // an unknown URL: nothing, no error
      const d = await s.getDocument('http://a.example/');
      expect(d!.etag).toBeUndefined();
      expect(d!.state).toBe('failed');
      expect(d!.checksum).toBe('SHA1:XYZ');
      expect(await s.countDocuments('failed')).toBe(1);
      expect(await s.countDocuments('queued')).toBe(0);
      expect(await s.countDocuments()).toBe(1);
    });

    it('queuedDocuments lists queued documents shallowest first, then oldest, up to the limit', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/d2', 2)]);
      await s.addDocuments([doc('http://a.example/d0', 0), doc('http://a.example/d1', 1)]);
      await s.addDocuments([doc('http://a.example/done', 0)]);
      await s.updateDocument('http://a.example/done', { state: 'fetched' });
      expect((await s.queuedDocuments()).map((d) => d.url)).toEqual(['http://a.example/d0', 'http://a.example/d1', 'http://a.example/d2']);
      expect((await s.queuedDocuments(2)).map((d) => d.url)).toEqual(['http://a.example/d0', 'http://a.example/d1']);
    });

    it('dueDocuments lists monitored documents due at now, soonest first, up to the limit', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/late')], { monitored: true, nextFetch: T0 + 500 });
      await s.addDocuments([doc('http://a.example/early')], { monitored: true, nextFetch: T0 - 500 });
      await s.addDocuments([doc('http://a.example/future')], { monitored: true, nextFetch: T0 + 10_000 });
      await s.addDocuments([doc('http://a.example/unmonitored')]);
      await s.updateDocument('http://a.example/unmonitored', { nextFetch: T0 - 1000 });
      expect((await s.dueDocuments(T0 + 500, 10)).map((d) => d.url)).toEqual(['http://a.example/early', 'http://a.example/late']);
      expect((await s.dueDocuments(T0 + 500, 1)).map((d) => d.url)).toEqual(['http://a.example/early']);
      expect(await s.dueDocuments(T0 - 501, 10)).toEqual([]);
    });

    it('makeDue makes monitored documents due by URL, by host or all, and leaves the others alone', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/1'), doc('http://a.example/2')], { monitored: true, nextFetch: T0 + 9e6 });
      await s.addDocuments([doc('http://b.example/1')], { monitored: true, nextFetch: T0 + 9e6 });
      await s.addDocuments([doc('http://b.example/crawled-once')]);
      const due = async () => (await s.dueDocuments(T0, 10)).map((d) => d.url).sort();
      expect(await s.makeDue({ url: 'http://a.example/2' }, T0)).toBe(1);
      expect(await due()).toEqual(['http://a.example/2']);
      expect(await s.makeDue({ host: 'b.example' }, T0)).toBe(1); // the unmonitored one is not made due
      expect(await due()).toEqual(['http://a.example/2', 'http://b.example/1']);
      expect(await s.makeDue({ all: true }, T0)).toBe(3);
      expect(await due()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://b.example/1']);
      expect(await s.makeDue({ url: 'http://nowhere.example/' }, T0)).toBe(0);
      expect(await s.makeDue({ host: 'nowhere.example' }, T0)).toBe(0);
    });

    it('after flush, another instance on the same database sees every document written', async () => {
      const { s } = fx;
      await s.addDocuments([doc('http://a.example/')]);
      await s.updateDocument('http://a.example/', { state: 'fetched', etag: '"e"' });
      await s.flush();
      const other = await fx.open();
      expect(await other.getDocument('http://a.example/')).toMatchObject({ state: 'fetched', etag: '"e"' });
    });
  });
}
