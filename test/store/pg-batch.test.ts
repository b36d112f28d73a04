/**
 * Group commit on the real PostgreSQL (src/store/pg-batch.ts): what a worker's batched store promises
 * beyond the contracts (which test/store/contract/postgres.test.ts runs on it too). A batch commits
 * all or nothing; it commits when full or when its wait is over without anyone asking; until then
 * another process sees none of it while this one reads its own writes. Skips loudly without a server
 * (test/store/pg.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from './pg.ts';

const pgBase = await pgBaseUrl();
const T0 = 1_700_000_000_000;

const page = (i: number) => `http://h${i % 3}.example/p/${i}`;
const entry = (url: string, over: Partial<CrawlLogEntry> = {}): CrawlLogEntry => ({
  url, time: T0, status: 200, durationMs: 3, bytes: 120, change: 'new', triples: 4, warcFile: 'w/a.warc.gz', warcOffset: 0, warcLength: 120, ...over,
});
const fetched = { state: 'fetched' as const, lastFetched: T0, checksum: 'sha1:X', graphHash: 'g' };

describe.skipIf(!pgBase)('PostgreSQL store with batched writes', () => {
  const opened: PostgresStore[] = [];
  const schemas: string[] = [];
  /** A fresh schema; `writer` batches (a long wait unless given: only size or a flush commits), `other` is a second process's view. */
  async function setup(batch = { pages: 1000, waitMs: 600_000 }) {
    const url = isolatedSchemaUrl(pgBase!, 'dm_batch');
    schemas.push(url);
    const writer = new PostgresStore(url, { batch });
    const other = new PostgresStore(url);
    opened.push(writer, other);
    await writer.init();
    await other.init();
    return { writer, other };
  }
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    for (const u of schemas.splice(0)) await dropSchema(u).catch(() => undefined);
  });

  it('a batch commits all or nothing: one bad row rolls back every page of its batch, and every writer of it hears why', async () => {
    const { writer, other } = await setup();
    await other.addDocuments([0, 1, 2, 3].map((i) => ({ url: page(i), host: `h${i % 3}.example`, depth: 0 })));
    const writes: Promise<number>[] = [];
    for (let i = 0; i < 3; i++) {
      writes.push(writer.logFetch(entry(page(i)), fetched));
      writes.push(writer.addDocuments([{ url: `${page(i)}/link`, host: `h${i % 3}.example`, depth: 1 }]));
    }
    // A log row the server refuses (status is NOT NULL): the fourth page of the batch.
    writes.push(writer.logFetch(entry(page(3), { status: undefined as unknown as number }), fetched));
    const outcomes = Promise.allSettled(writes);
    await expect(writer.flush()).rejects.toThrow(/status/);
    for (const o of await outcomes) {
      expect(o.status).toBe('rejected');
      expect(String((o as PromiseRejectedResult).reason)).toMatch(/status/);
    }
    // Nothing of it is in the store: no log row, no patch, no new URL; the pages are still queued for whoever fetches them.
    expect(await other.log()).toEqual([]);
    expect((await other.getDocuments([0, 1, 2, 3].map(page))).map((d) => d.state)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(await other.countDocuments()).toBe(4);
    // The store goes on: the next batch commits whole.
    const ids = await Promise.all([writer.logFetch(entry(page(0)), fetched), writer.logFetch(entry(page(1)), fetched), writer.flush().then(() => 0)]);
    expect((await other.log()).map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect((await other.getDocument(page(0)))?.state).toBe('fetched');
  });

  it('until its batch commits, another process sees none of a page; this one reads its own pages (the fetch stage\'s read does not end the batch)', async () => {
    const { writer, other } = await setup();
    await other.addDocuments([{ url: page(0), host: 'h0.example', depth: 0 }]);
    const logged = writer.logFetch(entry(page(0), { finalUrl: `${page(0)}/` }), { ...fetched, etag: '"e1"' });
    const found = writer.addDocuments([{ url: page(3), host: 'h0.example', depth: 1 }, { url: page(0), host: 'h0.example', depth: 1 }]);
    let settled = false;
    void Promise.all([logged, found]).then(() => (settled = true));
    // The writer's own view: the patch laid over the server's row, the new URL queued.
    expect(await writer.getDocument(page(0))).toMatchObject({ state: 'fetched', checksum: 'sha1:X', etag: '"e1"', depth: 0 });
    expect(await writer.getDocument(page(3))).toMatchObject({ url: page(3), state: 'queued', depth: 1, monitored: false });
    expect((await writer.getDocuments([page(0), page(3), page(6)])).map((d) => [d.url, d.state]).sort()).toEqual([[page(0), 'fetched'], [page(3), 'queued']]);
    expect(settled).toBe(false);
    // Another process: nothing yet.
    expect(await other.getDocument(page(0))).toMatchObject({ state: 'queued' });
    expect(await other.getDocument(page(3))).toBeUndefined();
    expect(await other.log()).toEqual([]);
    // Any other statement of the writer commits what waits first, so its reads and writes keep their order.
    expect(await writer.countDocuments('fetched')).toBe(1);
    expect(await found).toBe(1); // page(0) was known: only page(3) is new
    const id = await logged;
    expect(await other.log()).toEqual([expect.objectContaining({ id, url: page(0), finalUrl: `${page(0)}/` })]);
    expect(await other.getDocument(page(3))).toMatchObject({ state: 'queued', depth: 1 });
  });

  it('commits by itself when the batch is full, and when its wait is over, with no flush', async () => {
    const full = await setup({ pages: 5, waitMs: 600_000 });
    await full.other.addDocuments([0, 1, 2, 3, 4].map((i) => ({ url: page(i), host: `h${i % 3}.example`, depth: 0 })));
    // Five pages fill it: their writes resolve (after a commit) though nobody flushed and the wait is ten minutes.
    const ids = await Promise.all([0, 1, 2, 3, 4].map((i) => full.writer.logFetch(entry(page(i)), fetched)));
    expect((await full.other.log()).map((e) => e.id)).toEqual(ids);
    expect(await full.other.countDocuments('fetched')).toBe(5);

    const timed = await setup({ pages: 1000, waitMs: 50 });
    await timed.other.addDocuments([{ url: page(0), host: 'h0.example', depth: 0 }]);
    const one = await timed.writer.logFetch(entry(page(0)), fetched); // one page of a thousand: the wait commits it
    expect((await timed.other.log()).map((e) => e.id)).toEqual([one]);
    expect((await timed.other.getDocument(page(0)))?.state).toBe('fetched');
  });

  it('keeps call order within and across batches: ids increase in the order pages were logged, and a later patch of a page wins', async () => {
    const { writer, other } = await setup({ pages: 4, waitMs: 600_000 });
    await other.addDocuments([0, 1, 2].map((i) => ({ url: page(i), host: `h${i % 3}.example`, depth: 0 })));
    const urls = [0, 1, 2, 0, 1, 2, 0, 1, 2].map(page);
    const writes = urls.map((u, i) => writer.logFetch(entry(u, { time: T0 + i }), { state: 'fetched', lastFetched: T0 + i, etag: i < 3 ? `"${i}"` : undefined }));
    await writer.flush();
    const ids = await Promise.all(writes);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    expect((await other.log()).map((e) => [e.id, e.url, e.time])).toEqual(urls.map((u, i) => [ids[i], u, T0 + i]));
    // The last patch of each page: its time, and etag cleared by the later `etag: undefined`.
    for (const i of [0, 1, 2]) {
      const d = await other.getDocument(page(i));
      expect(d?.lastFetched).toBe(T0 + 6 + i);
      expect(d?.etag).toBeUndefined();
    }
  });

  it('a URL found by two pages of one batch is added once, counted new once, and its host becomes leasable', async () => {
    const { writer, other } = await setup();
    const a = writer.addDocuments([{ url: 'http://new.example/x', host: 'new.example', depth: 1 }, { url: 'http://new.example/y', host: 'new.example', depth: 1 }]);
    const b = writer.addDocuments([{ url: 'http://new.example/x', host: 'new.example', depth: 2 }]);
    await writer.flush();
    expect([await a, await b]).toEqual([2, 0]);
    expect(await other.getDocument('http://new.example/x')).toMatchObject({ depth: 1, state: 'queued' });
    const leased = await other.leaseHosts('w', { index: 0, count: 1 }, 10_000, 5);
    expect(leased.map((l) => l.host)).toEqual(['new.example']);
  });

  it('a URL found and fetched within one batch is stored fetched, not queued (fetched again later)', async () => {
    const { writer, other } = await setup();
    const found = writer.addDocuments([{ url: 'http://new.example/z', host: 'new.example', depth: 1 }]);
    const logged = writer.logFetch(entry('http://new.example/z'), fetched);
    await writer.flush();
    expect([await found, typeof (await logged)]).toEqual([1, 'number']);
    expect(await other.getDocument('http://new.example/z')).toMatchObject({ state: 'fetched', checksum: 'sha1:X', depth: 1 });
  });
});
