/**
 * The CrawlLog contract: the append-only log of fates, and its reads by id (export, the index's
 * catch-up), by URL (Memento) and by WARC file (crash recovery).
 */
import { describe, expect, it } from 'vitest';
import type { CrawlLog, CrawlLogEntry, DocumentStore, StoreLifecycle } from '../../../src/store/types.ts';
import { type StoreMaker, useStores } from './harness.ts';

const T0 = 1_700_000_000_000;

export function logEntry(over: Partial<CrawlLogEntry>): CrawlLogEntry {
  return { url: 'http://a.example/x', time: T0, status: 200, durationMs: 12, bytes: 100, change: 'new', triples: 3, ...over };
}

/** logFetch patches a document: the contract reads it back through DocumentStore. */
export function crawlLogContract(make: StoreMaker<CrawlLog & DocumentStore & StoreLifecycle>): void {
  describe.skipIf(make.skip)(`CrawlLog on ${make.name}`, () => {
    const fx = useStores(make);

    it('appendLog gives increasing ids; log reads in id order with sinceId, limit and url; optional fields round-trip', async () => {
      const { s } = fx;
      const full = logEntry({
        url: 'http://a.example/x', finalUrl: 'http://a.example/x/', durationMs: 12.5, headers: [['Content-Type', 'text/turtle'], ['Content-Location', 'x.ttl?ü=1'], ['X-Ünï', 'a, b'], ['LOCATION', '/y']],
        mediaType: 'text/turtle', checksum: 'sha1:AAA', graphHash: 'gh', truncated: true, diagnostics: ['line 3: bad IRI', 'ok ✓'], reason: 'fetched',
        warcFile: '2024/01/01/00/a.example/x.warc.gz', warcOffset: 0, warcLength: 900, rdfOffset: 900, rdfLength: 300, cycleId: 4, error: undefined,
      });
      const id1 = await s.appendLog(full);
      const failed = logEntry({ url: 'http://b.example/', status: 0, change: 'error', error: 'ECONNREFUSED', triples: 0, bytes: 0 });
      const id2 = await s.appendLog(failed);
      const id3 = await s.appendLog(logEntry({ url: 'http://a.example/x', time: T0 - 5000 })); // an earlier time: ids, not times, order the log
      expect(id2).toBeGreaterThan(id1);
      expect(id3).toBeGreaterThan(id2);
      const all = await s.log();
      expect(all.map((e) => e.id)).toEqual([id1, id2, id3]);
      // The row keeps the headers log reads use (Location, Content-Location), as sent; the rest are in the WARC record.
      // Its duration in whole milliseconds (12.5 written).
      expect(all[0]).toEqual({ ...full, durationMs: 13, headers: [['Content-Location', 'x.ttl?ü=1'], ['LOCATION', '/y']], id: id1 });
      // An entry without `truncated` reads back as not truncated; absent optional fields stay absent.
      expect(all[1]).toEqual({ ...failed, truncated: false, id: id2 });
      expect((await s.log({ sinceId: id1 })).map((e) => e.id)).toEqual([id2, id3]);
      expect((await s.log({ sinceId: id3 }))).toEqual([]);
      expect((await s.log({ limit: 1 })).map((e) => e.id)).toEqual([id1]);
      expect((await s.log({ url: 'http://a.example/x' })).map((e) => e.id)).toEqual([id1, id3]);
      expect((await s.log({ url: 'http://a.example/x', sinceId: id1 })).map((e) => e.id)).toEqual([id3]);
      expect(await s.log({ url: 'http://a.example/x/' })).toEqual([]); // the request URL only, not the final one
    });

    it('logFetch appends the entry and patches its document in one call, and logs even an unknown URL', async () => {
      const { s } = fx;
      await s.addDocuments([{ url: 'http://a.example/x', host: 'a.example', depth: 0 }]);
      const entry = logEntry({ url: 'http://a.example/x', finalUrl: 'http://a.example/x/', checksum: 'sha1:BBB', warcFile: 'f.warc.gz', warcOffset: 5, warcLength: 7 });
      const id = await s.logFetch(entry, { state: 'fetched', lastFetched: T0, checksum: 'sha1:BBB', etag: '"e"' });
      expect(await s.getDocument('http://a.example/x')).toMatchObject({ state: 'fetched', lastFetched: T0, checksum: 'sha1:BBB', etag: '"e"' });
      const only = await s.logFetch(logEntry({ url: 'http://a.example/x', time: T0 + 1 }), {});
      const stray = await s.logFetch(logEntry({ url: 'http://nowhere.example/', time: T0 + 2 }), { state: 'failed' });
      expect((await s.log()).map((e) => [e.id, e.url])).toEqual([[id, 'http://a.example/x'], [only, 'http://a.example/x'], [stray, 'http://nowhere.example/']]);
      expect((await s.log())[0]).toEqual({ ...entry, id, truncated: false });
      expect(await s.getDocument('http://nowhere.example/')).toBeUndefined();
    });

    it('versions are the entries with a WARC record whose request or final URL is the URL, oldest first', async () => {
      const { s } = fx;
      const w = { warcFile: 'f.warc.gz', warcOffset: 0, warcLength: 10 };
      const late = await s.appendLog(logEntry({ time: T0 + 2000, ...w }));
      const early = await s.appendLog(logEntry({ time: T0 + 1000, ...w }));
      await s.appendLog(logEntry({ time: T0 + 1500 })); // not modified: no record
      await s.appendLog(logEntry({ url: 'http://other.example/', time: T0, ...w }));
      const redirected = await s.appendLog(logEntry({ url: 'http://a.example/old', finalUrl: 'http://a.example/x', time: T0 + 1200, ...w }));
      expect((await s.versions('http://a.example/x')).map((e) => e.id)).toEqual([early, redirected, late]);
      expect((await s.versions('http://a.example/old')).map((e) => e.id)).toEqual([redirected]);
      expect(await s.versions('http://none.example/')).toEqual([]);
    });

    it('warcEnds are the furthest record end (WARC or RDF record) in each file, 0 for an unknown file', async () => {
      const { s } = fx;
      await s.appendLog(logEntry({ warcFile: 'a.warc.gz', warcOffset: 0, warcLength: 500, rdfOffset: 500, rdfLength: 250 }));
      await s.appendLog(logEntry({ warcFile: 'a.warc.gz', warcOffset: 750, warcLength: 100 }));
      await s.appendLog(logEntry({ warcFile: 'b.warc.gz', warcOffset: 0, warcLength: 5_000_000_000 }));
      expect(await s.warcEnds(['a.warc.gz', 'b.warc.gz', 'c.warc.gz'])).toEqual(new Map([['a.warc.gz', 850], ['b.warc.gz', 5_000_000_000], ['c.warc.gz', 0]]));
      expect(await s.warcEnds(['b.warc.gz'])).toEqual(new Map([['b.warc.gz', 5_000_000_000]]));
      expect(await s.warcEnds([])).toEqual(new Map());
    });

    it('log with warcFile reads the entries with records in that file, in id order, a page at a time', async () => {
      const { s } = fx;
      const a1 = await s.appendLog(logEntry({ warcFile: 'a.warc.gz', warcOffset: 0, warcLength: 10, rdfOffset: 10, rdfLength: 5 }));
      await s.appendLog(logEntry({ warcFile: 'b.warc.gz', warcOffset: 0, warcLength: 10 }));
      await s.appendLog(logEntry({ url: 'http://c.example/', status: 0, change: 'error' }));
      const a2 = await s.appendLog(logEntry({ url: 'http://d.example/', warcFile: 'a.warc.gz', warcOffset: 15, warcLength: 10 }));
      expect((await s.log({ warcFile: 'a.warc.gz' })).map((e) => e.id)).toEqual([a1, a2]);
      expect((await s.log({ warcFile: 'a.warc.gz', limit: 1 })).map((e) => e.id)).toEqual([a1]);
      expect((await s.log({ warcFile: 'a.warc.gz', sinceId: a1 })).map((e) => e.id)).toEqual([a2]);
      expect(await s.log({ warcFile: 'none.warc.gz' })).toEqual([]);
      // The export's read: the entries of the file with a conversion record.
      expect((await s.log({ warcFile: 'a.warc.gz', converted: true })).map((e) => e.id)).toEqual([a1]);
    });

    it("latestEntries gives each URL's latest version, redirect or response, as at a time, a page in log order", async () => {
      const { s } = fx;
      const w = (o: number) => ({ warcFile: 'f.warc.gz', warcOffset: o, warcLength: 10 });
      const rdf = (o: number) => ({ ...w(o), rdfOffset: o + 10, rdfLength: 5 });
      const a1 = await s.appendLog(logEntry({ url: 'http://a.example/', time: T0, ...rdf(0) }));
      const b1 = await s.appendLog(logEntry({ url: 'http://b.example/', time: T0 + 1, ...rdf(20) }));
      const r1 = await s.appendLog(logEntry({ url: 'http://r.example/', time: T0 + 2, status: 303, triples: 0, ...w(40) }));
      await s.appendLog(logEntry({ url: 'http://a.example/', time: T0 + 3, change: 'unchanged', ...w(50) })); // a revisit: no RDF, a's version stays
      const c1 = await s.appendLog(logEntry({ url: 'http://c.example/', time: T0 + 4, ...rdf(60) }));
      const b2 = await s.appendLog(logEntry({ url: 'http://b.example/', time: T0 + 5, change: 'changed', ...rdf(80) }));
      await s.appendLog(logEntry({ url: 'http://c.example/', time: T0 + 6, status: 410, change: 'error', ...w(100) })); // gone
      await s.appendLog(logEntry({ url: 'http://r.example/', time: T0 + 7, ...rdf(110) })); // no longer a redirect
      await s.appendLog(logEntry({ url: 'http://e.example/', time: T0 + 8, status: 0, change: 'error' }));
      const ids = async (q: Parameters<CrawlLog['latestEntries']>[0]) => (await s.latestEntries(q)).map((e) => e.id);
      const r2 = (await s.log({ url: 'http://r.example/' })).at(-1)!.id!;
      expect(await ids({ kind: 'version', limit: 10 })).toEqual([a1, b2, r2]);
      expect(await ids({ kind: 'version', at: T0 + 4, limit: 10 })).toEqual([a1, b1, c1]);
      expect(await ids({ kind: 'version', at: T0 + 5, limit: 10 })).toEqual([a1, c1, b2]);
      // Pages: resumed after the last id of the previous one.
      expect(await ids({ kind: 'version', limit: 2 })).toEqual([a1, b2]);
      expect(await ids({ kind: 'version', afterId: b2, limit: 2 })).toEqual([r2]);
      expect(await ids({ kind: 'redirect', limit: 10 })).toEqual([]);
      expect(await ids({ kind: 'redirect', at: T0 + 6, limit: 10 })).toEqual([r1]);
      expect(await ids({ kind: 'response', limit: 10 })).toEqual([a1, c1, b2, r2]); // a 410 ends a version, not a response
      expect(await ids({ kind: 'version', limit: 0 })).toEqual([]);
    });

    it('latestEntries keeps the representations of crawl --variants apart: never a response, each standing disagreement per URL and type', async () => {
      const { s } = fx;
      const w = (o: number) => ({ warcFile: 'f.warc.gz', warcOffset: o, warcLength: 10 });
      const doc = await s.appendLog(logEntry({ url: 'http://a.example/', time: T0, mediaType: 'text/turtle', reason: 'fetched', ...w(0), rdfOffset: 10, rdfLength: 5 }));
      const json = await s.appendLog(logEntry({ url: 'http://a.example/', time: T0 + 1, mediaType: 'application/ld+json', reason: 'variant-mismatch', change: 'unchanged', ...w(20) }));
      const xml = await s.appendLog(logEntry({ url: 'http://a.example/', time: T0 + 2, mediaType: 'application/rdf+xml', reason: 'variant-mismatch', change: 'unchanged', ...w(30) }));
      // A later crawl finds the JSON-LD agreeing again: that disagreement no longer stands.
      await s.appendLog(logEntry({ url: 'http://a.example/', time: T0 + 3, mediaType: 'application/ld+json', reason: 'variant', change: 'unchanged', ...w(40) }));
      const ids = async (q: Parameters<CrawlLog['latestEntries']>[0]) => (await s.latestEntries(q)).map((e) => e.id);
      expect(await ids({ kind: 'response', limit: 10 })).toEqual([doc]);
      expect(await ids({ kind: 'version', limit: 10 })).toEqual([doc]);
      expect(await ids({ kind: 'variant-mismatch', limit: 10 })).toEqual([xml]);
      expect(await ids({ kind: 'variant-mismatch', at: T0 + 2, limit: 10 })).toEqual([json, xml]);
    });

    it('after flush, another instance on the same database reads every entry', async () => {
      const { s } = fx;
      const id = await s.appendLog(logEntry({ url: 'http://a.example/' }));
      await s.flush();
      const other = await fx.open();
      expect((await other.log()).map((e) => e.id)).toEqual([id]);
      // And the ids go on increasing across instances.
      expect(await other.appendLog(logEntry({}))).toBeGreaterThan(id);
    });
  });
}
