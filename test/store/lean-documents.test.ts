/**
 * The partial indexes of the metadata store (src/store/schema.ts PARTIAL_INDEXES): the queue, the monitored
 * documents and the unusual fates are indexed, not every row. An archive written with the full indexes gets the
 * partial ones on its next open for writing and answers the same; the reads that used the full ones reach the
 * partial ones (SQLite's plans); after a crawl they hold only the rows those reads ask for (test/store/lean-log.test.ts). And SQLite's
 * documents table keyed by URL (documentsDdl), which an archive with rowids gets on its next open for writing.
 */
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { fates, type LogReader } from '../../src/store/log-reads.ts';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { postgresStore, sqliteStore } from './contract/backends.ts';
import type { StoreEnv } from './contract/harness.ts';
import { exec } from './exec.ts';

const T0 = Date.UTC(2026, 0, 1);
const OLD_INDEXES = [
  'CREATE INDEX documents_due ON documents (monitored, next_fetch)',
  'CREATE INDEX documents_state ON documents (state)',
  'CREATE INDEX crawl_log_reason ON crawl_log (reason)',
];
const NEW_INDEXES = ['crawl_log_fate', 'documents_monitored', 'documents_queued'];

const row = (i: number, reason: CrawlLogEntry['reason'], e: Partial<CrawlLogEntry> = {}): CrawlLogEntry => ({
  url: `http://h${i % 3}.example/${i}`, time: T0 + i * 1000, status: 200, durationMs: 3.25, bytes: 10, change: 'new', triples: 5, reason, ...e,
});

/** A log and a documents table with every kind of row the partial indexes leave out or keep. */
async function fill(store: MetadataStore): Promise<void> {
  const docs = Array.from({ length: 40 }, (_, i) => ({ url: `http://h${i % 3}.example/${i}`, host: `h${i % 3}.example`, depth: i % 4 }));
  await store.addDocuments(docs);
  await store.addDocuments(docs.slice(30), { monitored: true, strategy: 'fixed', nextFetch: T0 + 5_000 });
  for (let i = 0; i < 20; i++) {
    const reason = (['fetched', 'unchanged', 'redirected', 'http-error', 'refused-address'] as const)[i % 5];
    const e = row(i, reason, reason === 'refused-address' ? { status: 0, change: 'error', error: 'private address' } : reason === 'http-error' ? { status: 404, change: 'error', error: 'HTTP 404' } : {});
    await store.logFetch(e, { state: reason === 'refused-address' ? 'failed' : 'fetched', lastFetched: e.time });
  }
  await store.flush();
}

async function answers(store: MetadataStore) {
  return {
    queued: (await store.queuedDocuments()).map((d) => d.url),
    firstQueued: (await store.queuedDocuments(3)).map((d) => d.url),
    counts: [await store.countDocuments('queued'), await store.countDocuments('fetched'), await store.countDocuments('failed'), await store.countDocuments()],
    due: (await store.dueDocuments(T0 + 10_000, 100)).map((d) => d.url).sort(),
    refused: (await store.fates({ reasons: ['refused-address'], limit: 100 })).map((e) => e.url),
    errors: (await store.fates({ reasons: ['http-error', 'refused-address'], limit: 100 })).map((e) => e.url),
    fetched: (await store.fates({ reasons: ['fetched', 'http-error'], limit: 100 })).map((e) => e.url),
    problems: (await store.fates({ limit: 100 })).map((e) => e.url),
  };
}

async function indexNames(store: MetadataStore): Promise<string[]> {
  const rows = 'pool' in store
    ? await exec(store, "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('crawl_log', 'documents')")
    : await exec(store, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('crawl_log', 'documents')");
  return rows.map((r) => r.name as string);
}

for (const make of [sqliteStore, postgresStore]) {
  describe.skipIf(make.skip)(`partial indexes on ${make.name}`, () => {
    const envs: StoreEnv<MetadataStore>[] = [];
    afterEach(async () => {
      for (const env of envs.splice(0)) await env.cleanup();
    });

    it('replace the full indexes of an archive written before, which answers as one written now', async () => {
      const now = await make.setup();
      const before = await make.setup();
      envs.push(now, before);
      const a = await now.open();
      await fill(a);
      const expected = await answers(a);
      expect(expected.refused).toHaveLength(4);
      expect(expected.due).toHaveLength(10);
      expect(await indexNames(a)).toEqual(expect.arrayContaining(NEW_INDEXES));
      await a.close();

      // The earlier schema: the full indexes, no partial ones (PostgreSQL: before migration 7).
      const b0 = await before.open();
      await fill(b0);
      for (const name of NEW_INDEXES) await exec(b0, `DROP INDEX ${name}`);
      for (const sql of OLD_INDEXES) await exec(b0, sql);
      if ('pool' in b0) await exec(b0, 'DELETE FROM schema_version WHERE version >= 7');
      await b0.close();

      const b = await before.open();
      try {
        const names = await indexNames(b);
        expect(names).toEqual(expect.arrayContaining(NEW_INDEXES));
        for (const old of ['documents_due', 'documents_state', 'crawl_log_reason']) expect(names).not.toContain(old);
        expect(await answers(b)).toEqual(expected);
      } finally {
        await b.close();
      }
    });
  });
}

describe('partial indexes on SQLite', () => {
  it('are what the reads of the queue, the due documents and the unusual fates seek by', async () => {
    const env = await sqliteStore.setup();
    const store = await env.open();
    try {
      await fill(store);
      const plan = async (sql: string, params: unknown[] = []) => (await exec(store, `EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail as string).join('\n');
      // The store's own statements, as it prepares them.
      const db = (store as unknown as { db: Database.Database }).db;
      const spy = db.prepare.bind(db);
      const seen: string[] = [];
      (db as { prepare: unknown }).prepare = (sql: string) => (seen.push(sql), spy(sql));
      try {
        await store.queuedDocuments(5);
        await store.countDocuments('queued');
        await store.dueDocuments(T0, 5);
      } finally {
        (db as { prepare: unknown }).prepare = spy;
      }
      const queued = seen.find((s) => s.includes('ORDER BY depth'))!;
      expect(await plan(queued, [5])).toMatch(/USING INDEX documents_queued/);
      expect(await plan(queued, [5])).not.toMatch(/TEMP B-TREE/); // read in the queue's order, not sorted
      expect(await plan(seen.find((s) => s.includes('COUNT(*)'))!)).toMatch(/COVERING INDEX documents_queued/);
      expect(await plan(seen.find((s) => s.includes('monitored = 1'))!, [T0, 5])).toMatch(/USING INDEX documents_monitored \(next_fetch<\?\)/);

      const plans: string[] = [];
      const reader: LogReader = {
        dialect: 'sqlite',
        all: async (sql, params) => {
          plans.push(await plan(sql, params));
          return exec(store, sql, params);
        },
      };
      expect((await fates(reader, { reasons: ['refused-address'], limit: 10 })).map((e) => e.reason)).toEqual(Array(4).fill('refused-address'));
      expect(plans.pop()).toMatch(/INDEX crawl_log_fate \(reason=\?\)/);
      // An ordinary reason is most of the log: read in order, no index needed.
      expect(await fates(reader, { reasons: ['fetched'], limit: 10 })).toHaveLength(4);
    } finally {
      await store.close();
      await env.cleanup();
    }
  });
});

/** The documents table as SQLite archives had it: rowids, and a second B-tree for the URL key. */
const ROWID_DOCUMENTS = `CREATE TABLE documents (
  url TEXT PRIMARY KEY, host TEXT NOT NULL, depth INTEGER NOT NULL, state TEXT NOT NULL,
  first_seen BIGINT NOT NULL, last_fetched BIGINT, next_fetch BIGINT, strategy TEXT, strategy_state TEXT,
  etag TEXT, last_modified TEXT, checksum TEXT, graph_hash TEXT, monitored INTEGER NOT NULL DEFAULT 0)`;

describe('documents keyed by URL on SQLite', () => {
  it('an archive whose documents have rowids gets them keyed by URL, with every row, and answers the same', async () => {
    const now = await sqliteStore.setup();
    const before = await sqliteStore.setup();
    try {
      const a = await now.open();
      await fill(a);
      // Every column but when each store saw the URL first (its own clock).
      const docs = async (s: MetadataStore, urls: string[]) => (await s.getDocuments(urls)).map(({ firstSeen: _, ...d }) => d);
      const expected = { ...(await answers(a)), docs: await docs(a, (await a.queuedDocuments()).map((d) => d.url).concat('http://h0.example/0', 'http://h1.example/31')) };
      await a.close();

      // The earlier layout, filled by the same calls: the table rebuilt with rowids, rows and indexes as they were.
      const b0 = await before.open();
      await fill(b0);
      const db0 = (b0 as unknown as { db: Database.Database }).db;
      db0.exec(`ALTER TABLE documents RENAME TO documents_new; ${ROWID_DOCUMENTS}; INSERT INTO documents SELECT * FROM documents_new; DROP TABLE documents_new;
        ${OLD_INDEXES.slice(0, 2).join('; ')}`);
      expect(db0.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sqlite_autoindex_documents_1'").get()).toEqual({ n: 1 });
      await b0.close();

      const b = await before.open();
      try {
        const db = (b as unknown as { db: Database.Database }).db;
        expect(db.prepare("SELECT sql FROM sqlite_master WHERE name = 'documents'").pluck().get()).toMatch(/WITHOUT ROWID/);
        expect(db.prepare("SELECT name FROM sqlite_master WHERE tbl_name = 'documents' AND type = 'index' ORDER BY name").pluck().all()).toEqual(['documents_monitored', 'documents_queued']);
        expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name LIKE 'documents_by_url%'").get()).toEqual({ n: 0 });
        expect({ ...(await answers(b)), docs: await docs(b, expected.docs.map((d) => d.url)) }).toEqual(expected);
        // Written to as before: a new document, a fetch of a queued one.
        await b.addDocuments([{ url: 'http://h9.example/new', host: 'h9.example', depth: 1 }]);
        await b.updateDocument(expected.queued[0]!, { state: 'fetched', lastFetched: T0 });
        await b.flush();
        expect(await b.countDocuments('queued')).toBe(expected.counts[0]);
        expect(await b.countDocuments()).toBe(expected.counts[3] + 1);
      } finally {
        await b.close();
      }
      // The next open finds the table keyed by URL and leaves it be.
      const c = await before.open();
      await c.close();
    } finally {
      await now.cleanup();
      await before.cleanup();
    }
  });
});
