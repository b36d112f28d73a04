/**
 * The write-behind of `crawl --db` (src/store/write-behind.ts) on the real PostgreSQL: a crawl's log
 * rows are in the batch when their write returns, so a batch the server refuses cannot fail the write
 * that sent it; it must fail the next write or flush, which stops the crawl, and not be lost. Skips
 * loudly without a server (test/store/pg.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BATCH_DEFAULTS } from '../../src/store/pg-batch.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';
import { writeBehind } from '../../src/store/write-behind.ts';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from './pg.ts';

const pgBase = await pgBaseUrl();
const T0 = 1_700_000_000_000;

const page = (i: number) => `http://h.example/p/${i}`;
const entry = (url: string, over: Partial<CrawlLogEntry> = {}): CrawlLogEntry => ({
  url, time: T0, status: 200, durationMs: 3, bytes: 120, change: 'new', triples: 4, warcFile: 'w/a.warc.gz', warcOffset: 0, warcLength: 120, ...over,
});
const fetched = { state: 'fetched' as const, lastFetched: T0, checksum: 'sha1:X', graphHash: 'g' };
/** A log row the server refuses: status is NOT NULL. */
const refused = (url: string) => entry(url, { status: undefined as unknown as number });

describe.skipIf(!pgBase)('write-behind of a batching PostgreSQL store', () => {
  const opened: PostgresStore[] = [];
  const schemas: string[] = [];
  /** `crawl` is the store as `crawl --db` opens and writes it (`store` beneath it); `other` another process's view. */
  async function setup() {
    const url = isolatedSchemaUrl(pgBase!, 'dm_behind');
    schemas.push(url);
    const store = new PostgresStore(url, { batch: BATCH_DEFAULTS });
    const other = new PostgresStore(url);
    opened.push(store, other);
    await store.init();
    await other.init();
    await other.addDocuments([0, 1, 2].map((i) => ({ url: page(i), host: 'h.example', depth: 0 })));
    return { store, crawl: writeBehind(store), other };
  }
  /** The batch committed (here: refused; flushed rather than waited for) and every callback of its writes run. */
  async function committed(store: PostgresStore): Promise<void> {
    await store.flush().catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
  }
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    for (const u of schemas.splice(0)) await dropSchema(u).catch(() => undefined);
  });

  it('a refused batch fails the next write, once; the writes after it go on', async () => {
    const { store, crawl, other } = await setup();
    // Returns with the row in the batch: the server has not seen it yet.
    await expect(crawl.logFetch(refused(page(0)), fetched)).resolves.toBe(0);
    await committed(store);
    await expect(crawl.logFetch(entry(page(1)), fetched)).rejects.toThrow(/status/);
    expect(await other.log()).toEqual([]);
    // Told once: the store goes on, and the next batch commits whole.
    await crawl.logFetch(entry(page(2)), fetched);
    await crawl.flush();
    expect((await other.log()).map((e) => e.url)).toEqual([page(2)]);
    expect((await other.getDocuments([0, 1, 2].map(page))).map((d) => [d.url, d.state]).sort()).toEqual([[page(0), 'queued'], [page(1), 'queued'], [page(2), 'fetched']]);
  });

  it('a refused batch fails the links written after its page, and the flush that ends the crawl', async () => {
    const { store, crawl } = await setup();
    await crawl.appendLog(refused(page(0)));
    await committed(store);
    await expect(crawl.addDocuments([{ url: page(5), host: 'h.example', depth: 1 }])).rejects.toThrow(/status/);
    await crawl.logFetch(refused(page(1)), fetched);
    await expect(crawl.flush()).rejects.toThrow(/status/);
  });
});
