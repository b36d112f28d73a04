/**
 * The metadata store contract, run against every backend: SQLite (a real file in a temp dir) and
 * PostgreSQL (the shared `test` database, each test in its own schema that is dropped after).
 */
import { describe, it, expect, beforeEach } from 'vitest';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { ReadOnlyStoreError } from '../../src/store/read-only.ts';
import { backends, useStores, type BackendEnv } from './backends.ts';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');

const T0 = 1_700_000_000_000;

function logEntry(over: Partial<CrawlLogEntry>): CrawlLogEntry {
  return { url: 'http://a.example/x', time: T0, status: 200, durationMs: 12.5, bytes: 100, change: 'new', triples: 3, ...over };
}

for (const backend of backends) {
  describe.skipIf(backend.skip)(`MetadataStore on ${backend.name}`, () => {
    const stores = useStores(backend);
    const open = stores.open;
    let s: MetadataStore;
    let env: BackendEnv<MetadataStore>;
    beforeEach(() => void ({ s, env } = stores));

    it('opened read-only: reads what was written, refuses every write with ReadOnlyStoreError', async () => {
      await s.addDocuments([{ url: 'http://a.example/x', host: 'a.example', depth: 0 }]);
      await s.appendLog(logEntry({}));
      await s.flush();
      const ro = await stores.openReadOnly();
      expect(await ro.countDocuments()).toBe(1);
      expect(await ro.log()).toHaveLength(1);
      // One write at a time: a write started before the previous one's expectation would reject unobserved.
      const refused = [
        () => ro.appendLog(logEntry({})),
        () => ro.logFetch(logEntry({}), { state: 'fetched' }),
        () => ro.addDocuments([{ url: 'http://a.example/y', host: 'a.example', depth: 0 }]),
        () => ro.updateDocument('http://a.example/x', { state: 'fetched' }),
        () => ro.putHost({ host: 'a.example', fetches: 1, errors: 0 }),
        () => ro.startCycle({ startedAt: T0, urls: 1, status: 'running' }),
      ];
      for (const write of refused) await expect(write()).rejects.toThrow(ReadOnlyStoreError);
      expect(await s.countDocuments()).toBe(1);
      expect(await s.log()).toHaveLength(1);
    });

    it('init is idempotent and what was written survives close and reopen', async () => {
      await s.init();
      expect(await s.addDocuments([{ url: 'http://a.example/', host: 'a.example', depth: 0 }])).toBe(1);
      await s.flush();
      await s.close();
      const again = await open();
      await again.init();
      expect((await again.getDocument('http://a.example/'))?.host).toBe('a.example');
    });

    it('addDocuments inserts only new URLs, also within one batch, with queued defaults', async () => {
      const before = Date.now();
      const n = await s.addDocuments([
        { url: 'http://a.example/1', host: 'a.example', depth: 0 },
        { url: 'http://a.example/2', host: 'a.example', depth: 1 },
        { url: 'http://a.example/1', host: 'a.example', depth: 5 },
      ]);
      expect(n).toBe(2);
      expect(await s.addDocuments([{ url: 'http://a.example/2', host: 'a.example', depth: 9 }, { url: 'http://b.example/', host: 'b.example', depth: 2 }])).toBe(1);
      expect(await s.addDocuments([])).toBe(0);
      const d = await s.getDocument('http://a.example/1');
      expect(d).toMatchObject({ url: 'http://a.example/1', host: 'a.example', depth: 0, state: 'queued', monitored: false });
      expect(d!.firstSeen).toBeGreaterThanOrEqual(before);
      expect(d!.nextFetch).toBeUndefined();
      expect((await s.getDocument('http://a.example/2'))!.depth).toBe(1);
      expect(await s.getDocument('http://nowhere.example/')).toBeUndefined();
      expect(await s.countDocuments()).toBe(3);
      expect((await s.allDocumentUrls()).sort()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://b.example/']);
    });

    it('getDocuments reads many URLs at once, past one query\'s batch, returning only the known ones as getDocument does', async () => {
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

    it('addDocuments with monitored sets strategy and nextFetch, and turns known URLs into monitored ones', async () => {
      await s.addDocuments([{ url: 'http://a.example/old', host: 'a.example', depth: 0 }]);
      const n = await s.addDocuments(
        [{ url: 'http://a.example/old', host: 'a.example', depth: 0 }, { url: 'http://a.example/new', host: 'a.example', depth: 0 }],
        { monitored: true, strategy: 'dyn', nextFetch: T0 },
      );
      expect(n).toBe(1);
      for (const url of ['http://a.example/old', 'http://a.example/new']) {
        expect(await s.getDocument(url)).toMatchObject({ monitored: true, strategy: 'dyn', nextFetch: T0 });
      }
    });

    it('updateDocument patches the given fields, round-trips JSON state and clears a field set to undefined', async () => {
      await s.addDocuments([{ url: 'http://a.example/', host: 'a.example', depth: 0 }]);
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
      const d = await s.getDocument('http://a.example/');
      expect(d!.etag).toBeUndefined();
      expect(d!.state).toBe('failed');
      expect(d!.checksum).toBe('SHA1:XYZ');
      expect(await s.countDocuments('failed')).toBe(1);
      expect(await s.countDocuments('queued')).toBe(0);
    });

    it('queuedDocuments lists queued documents shallowest first, then oldest, up to the limit', async () => {
      await s.addDocuments([{ url: 'http://a.example/d2', host: 'a.example', depth: 2 }]);
      await s.addDocuments([{ url: 'http://a.example/d0', host: 'a.example', depth: 0 }, { url: 'http://a.example/d1', host: 'a.example', depth: 1 }]);
      await s.addDocuments([{ url: 'http://a.example/done', host: 'a.example', depth: 0 }]);
      await s.updateDocument('http://a.example/done', { state: 'fetched' });
      expect((await s.queuedDocuments()).map((d) => d.url)).toEqual(['http://a.example/d0', 'http://a.example/d1', 'http://a.example/d2']);
      expect((await s.queuedDocuments(2)).map((d) => d.url)).toEqual(['http://a.example/d0', 'http://a.example/d1']);
    });

    it('dueDocuments lists monitored documents due at now, soonest first, up to the limit', async () => {
      await s.addDocuments([{ url: 'http://a.example/late', host: 'a.example', depth: 0 }], { monitored: true, nextFetch: T0 + 500 });
      await s.addDocuments([{ url: 'http://a.example/early', host: 'a.example', depth: 0 }], { monitored: true, nextFetch: T0 - 500 });
      await s.addDocuments([{ url: 'http://a.example/future', host: 'a.example', depth: 0 }], { monitored: true, nextFetch: T0 + 10_000 });
      await s.addDocuments([{ url: 'http://a.example/unmonitored', host: 'a.example', depth: 0 }]);
      await s.updateDocument('http://a.example/unmonitored', { nextFetch: T0 - 1000 });
      expect((await s.dueDocuments(T0 + 500, 10)).map((d) => d.url)).toEqual(['http://a.example/early', 'http://a.example/late']);
      expect((await s.dueDocuments(T0 + 500, 1)).map((d) => d.url)).toEqual(['http://a.example/early']);
      expect(await s.dueDocuments(T0 - 501, 10)).toEqual([]);
    });

    it('makeDue makes monitored documents due by URL, by host or all, and leaves the others alone', async () => {
      await s.addDocuments([{ url: 'http://a.example/1', host: 'a.example', depth: 0 }, { url: 'http://a.example/2', host: 'a.example', depth: 0 }], { monitored: true, nextFetch: T0 + 9e6 });
      await s.addDocuments([{ url: 'http://b.example/1', host: 'b.example', depth: 0 }], { monitored: true, nextFetch: T0 + 9e6 });
      await s.addDocuments([{ url: 'http://b.example/crawled-once', host: 'b.example', depth: 0 }]);
      const due = async () => (await s.dueDocuments(T0, 10)).map((d) => d.url).sort();
      expect(await s.makeDue({ url: 'http://a.example/2' }, T0)).toBe(1);
      expect(await due()).toEqual(['http://a.example/2']);
      expect(await s.makeDue({ host: 'b.example' }, T0)).toBe(1); // the unmonitored one is not made due
      expect(await due()).toEqual(['http://a.example/2', 'http://b.example/1']);
      expect(await s.makeDue({ all: true }, T0)).toBe(3);
      expect(await due()).toEqual(['http://a.example/1', 'http://a.example/2', 'http://b.example/1']);
      expect(await s.makeDue({ url: 'http://nowhere.example/' }, T0)).toBe(0);
    });

    it('appendLog gives increasing ids; log reads in id order with sinceId, limit and url; optional fields round-trip', async () => {
      const full = logEntry({
        url: 'http://a.example/x', finalUrl: 'http://a.example/x/', headers: [['Content-Type', 'text/turtle'], ['X-Ünï', 'a, b']],
        mediaType: 'text/turtle', checksum: 'sha1:AAA', graphHash: 'gh', truncated: true, diagnostics: ['line 3: bad IRI', 'ok ✓'],
        warcFile: '2024/01/01/00/a.example/x.warc.gz', warcOffset: 0, warcLength: 900, rdfOffset: 900, rdfLength: 300, cycleId: 4, error: undefined,
      });
      const id1 = await s.appendLog(full);
      const id2 = await s.appendLog(logEntry({ url: 'http://b.example/', status: 0, change: 'error', error: 'ECONNREFUSED', triples: 0, bytes: 0 }));
      const id3 = await s.appendLog(logEntry({ url: 'http://a.example/x', time: T0 + 1 }));
      expect(id2).toBeGreaterThan(id1);
      expect(id3).toBeGreaterThan(id2);
      const all = await s.log();
      expect(all.map((e) => e.id)).toEqual([id1, id2, id3]);
      expect(all[0]).toEqual({ ...full, id: id1 });
      // An entry without `truncated` reads back as not truncated; absent optional fields stay absent.
      expect(all[1]).toEqual({ ...logEntry({ url: 'http://b.example/', status: 0, change: 'error', error: 'ECONNREFUSED', triples: 0, bytes: 0 }), truncated: false, id: id2 });
      expect((await s.log({ sinceId: id1 })).map((e) => e.id)).toEqual([id2, id3]);
      expect((await s.log({ limit: 1 })).map((e) => e.id)).toEqual([id1]);
      expect((await s.log({ url: 'http://a.example/x' })).map((e) => e.id)).toEqual([id1, id3]);
      expect((await s.log({ url: 'http://a.example/x', sinceId: id1 })).map((e) => e.id)).toEqual([id3]);
    });

    it('logFetch appends the entry and patches its document in one call, and logs even an unknown URL', async () => {
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

    it('versions are the log entries of one URL that carry a WARC record, oldest first', async () => {
      const w = { warcFile: 'f.warc.gz', warcOffset: 0, warcLength: 10 };
      const late = await s.appendLog(logEntry({ time: T0 + 2000, ...w }));
      const early = await s.appendLog(logEntry({ time: T0 + 1000, ...w }));
      await s.appendLog(logEntry({ time: T0 + 1500 })); // not modified: no record
      await s.appendLog(logEntry({ url: 'http://other.example/', time: T0, ...w }));
      expect((await s.versions('http://a.example/x')).map((e) => e.id)).toEqual([early, late]);
      expect(await s.versions('http://none.example/')).toEqual([]);
    });

    it('warcEnd is the furthest record end (WARC or RDF record) in one file, 0 for an unknown file', async () => {
      await s.appendLog(logEntry({ warcFile: 'a.warc.gz', warcOffset: 0, warcLength: 500, rdfOffset: 500, rdfLength: 250 }));
      await s.appendLog(logEntry({ warcFile: 'a.warc.gz', warcOffset: 750, warcLength: 100 }));
      await s.appendLog(logEntry({ warcFile: 'b.warc.gz', warcOffset: 0, warcLength: 5_000_000_000 }));
      expect(await s.warcEnd('a.warc.gz')).toBe(850);
      expect(await s.warcEnd('b.warc.gz')).toBe(5_000_000_000);
      expect(await s.warcEnd('c.warc.gz')).toBe(0);
    });

    it('putHost inserts and then replaces a host row', async () => {
      expect(await s.getHost('a.example')).toBeUndefined();
      const row = { host: 'a.example', robotsTxt: 'User-agent: *\nDisallow: /private', robotsStatus: 200, robotsFetchedAt: T0, crawlDelayMs: 1500, meanDownloadMs: 42.5, fetches: 3, errors: 1 };
      await s.putHost(row);
      expect(await s.getHost('a.example')).toEqual(row);
      await s.putHost({ host: 'a.example', robotsStatus: 404, fetches: 4, errors: 1 });
      expect(await s.getHost('a.example')).toEqual({ host: 'a.example', robotsStatus: 404, fetches: 4, errors: 1 });
    });

    it('cycles: startCycle numbers them, finishCycle patches, cycles() lists in order', async () => {
      const a = await s.startCycle({ startedAt: T0, urls: 10, status: 'running', estimateMs: 1234.5 });
      const b = await s.startCycle({ startedAt: T0 + 3_600_000, urls: 0, status: 'skipped', note: 'previous cycle still running' });
      expect(b).toBeGreaterThan(a);
      await s.finishCycle(a, { endedAt: T0 + 60_000, actualMs: 60_000, status: 'done' });
      expect(await s.cycles()).toEqual([
        { id: a, startedAt: T0, endedAt: T0 + 60_000, urls: 10, estimateMs: 1234.5, actualMs: 60_000, status: 'done' },
        { id: b, startedAt: T0 + 3_600_000, urls: 0, status: 'skipped', note: 'previous cycle still running' },
      ]);
    });

    it('after flush a second store instance sees every write', async () => {
      await s.addDocuments([{ url: 'http://a.example/', host: 'a.example', depth: 0 }]);
      const id = await s.appendLog(logEntry({ url: 'http://a.example/' }));
      await s.putHost({ host: 'a.example', fetches: 1, errors: 0 });
      await s.flush();
      const other = await open();
      expect(await other.countDocuments()).toBe(1);
      expect((await other.log()).map((e) => e.id)).toEqual([id]);
      expect((await other.getHost('a.example'))?.fetches).toBe(1);
    });

    it('two processes adding overlapping documents at once: every URL stored once, each counted new once', async () => {
      await s.flush();
      const child = (from: number, to: number) =>
        run(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(here, 'add-docs-child.ts'), env.target, String(from), String(to), '250'], { cwd: repoRoot });
      // 0..3000 and 1500..4500 overlap in 1500 URLs.
      const [a, b] = await Promise.all([child(0, 3000), child(1500, 4500)]);
      const added = JSON.parse(a.stdout).added + JSON.parse(b.stdout).added;
      expect(added).toBe(4500);
      expect(await s.countDocuments()).toBe(4500);
      expect(new Set(await s.allDocumentUrls()).size).toBe(4500);
    });
  });
}
