/** The metadata store contracts on the embedded SQLite store (a real file in a temp dir per test), and what only SQLite promises. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureSql, type CaptureQuery } from '../../../src/store/log-reads.ts';
import type { SqliteStore } from '../../../src/store/sqlite.ts';
import { syntheticLog } from '../synthetic-log.ts';
import { sqliteStore, sqliteWorkerStore } from './backends.ts';
import type { StoreEnv } from './harness.ts';
import { documentStoreContract, storeContracts } from './index.ts';
import type { MetadataStore } from '../../../src/store/types.ts';

storeContracts(sqliteStore, sqliteWorkerStore);
// The worker store overrides addDocuments (it registers hosts for leasing) and init: its documents too.
documentStoreContract(sqliteWorkerStore);

// Its plan is what the test reads (PostgreSQL's plans depend on its statistics).
describe('SQLite: captures are index searches', () => {
  let env: StoreEnv<MetadataStore>;
  let store: MetadataStore;
  beforeAll(async () => {
    env = await sqliteStore.setup();
    store = await env.open();
    for (const e of syntheticLog(300)) await store.appendLog(e);
    await store.flush();
  });
  afterAll(async () => {
    await store?.close();
    await env?.cleanup();
  });

  it('EXPLAIN QUERY PLAN: exact captures, prefixes and hosts read the one URL index (exact ones seek it, the others walk it in page order), never a scan of the log', async () => {
    const db = (store as SqliteStore).db;
    const HOST_A = ['http://a.example/', 'https://a.example/', 'http://www.a.example/', 'https://www.a.example/'];
    const after = { url: 'http://a.example/data/amy', time: (await store.log({ limit: 1 }))[0]!.time, id: 5 };
    const cases: Array<[Omit<CaptureQuery, 'limit'>, RegExp]> = [
      [{ urls: ['http://a.example/data/amy', 'https://a.example/data/amy'] }, /^SEARCH crawl_log USING INDEX crawl_log_by_url \(<expr>=\?\)/],
      [{ prefixes: ['http://a.example/data/'] }, /^SEARCH crawl_log USING INDEX crawl_log_by_url /],
      [{ prefixes: HOST_A, after, fromTime: 1 }, /^SEARCH crawl_log USING INDEX crawl_log_by_url /],
    ];
    for (const [q, search] of cases) {
      const { sql, params } = captureSql('sqlite', { ...q, limit: 10 });
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map((r) => r.detail);
      expect(plan.filter((d) => search.test(d)).length, plan.join('\n')).toBe(q.prefixes?.length ?? 1);
      expect(plan.some((d) => /^SEARCH p USING INDEX crawl_log_by_url \(<expr>=\?\)/.test(d)), plan.join('\n')).toBe(true);
      // What is scanned is the page the arms gave (a0, a1, c), never the log.
      expect(plan.filter((d) => /^SCAN crawl_log/.test(d)), plan.join('\n')).toEqual([]);
    }
  });
});
