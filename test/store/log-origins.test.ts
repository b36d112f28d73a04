/**
 * The origins of the logged URLs, which a CDX domain query asks for once a page: a skip scan of the url index
 * (one probe per origin) instead of a pass over every log row, on SQLite and on PostgreSQL where the url column
 * sorts byte-wise; under a linguistic collation PostgreSQL makes the one pass. Origins whose names continue one
 * another (`a.example`, `a.example.org`, `a.example-x`, `a.example:8080`) and schemes side by side are where
 * a skip could jump over one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MetadataStore } from '../../src/store/types.ts';
import type { PostgresStore } from '../../src/store/postgres.ts';
import { postgresStore, sqliteStore } from './contract/backends.ts';
import type { StoreEnv } from './contract/harness.ts';

const URLS = [
  'http://a.example/', 'http://a.example/x?y=1', 'http://a.example-x/p', 'http://a.example.org/q', 'http://a.example:8080/',
  'http://a.example:8080/z', 'https://a.example/', 'http://a.exampl/', 'http://b.example/0', 'http://b.example0/', 'http://[::1]:8080/v',
  'https://c.example/a/b/c', 'http://A.example/upper',
];
const EXPECTED = [...new Set(URLS.map((u) => /^https?:\/\/[^/]*/.exec(u)![0]))].sort();

async function logged(env: StoreEnv<MetadataStore>): Promise<MetadataStore> {
  const store = await env.open();
  let t = Date.UTC(2026, 0, 1);
  for (const url of [...URLS, ...URLS]) await store.appendLog({ url, time: t++, status: 200, durationMs: 1, bytes: 1, change: 'new', triples: 0 });
  await store.flush();
  return store;
}

for (const make of [sqliteStore, postgresStore]) {
  describe.skipIf(make.skip)(`logOrigins on ${make.name}`, () => {
    let env: StoreEnv<MetadataStore> | undefined;
    let store: MetadataStore | undefined;
    afterEach(async () => {
      await store?.close();
      await env?.cleanup();
    });

    it('finds every origin once, whatever sorts between them', async () => {
      env = await make.setup();
      store = await logged(env);
      expect((await store.logOrigins()).sort()).toEqual(EXPECTED);
    });
  });
}

describe.skipIf(postgresStore.skip)('logOrigins on PostgreSQL under a linguistic collation', () => {
  it('finds them all (one pass, no skip)', async () => {
    const env = await postgresStore.setup();
    const store = await logged(env);
    try {
      // ICU's order ignores punctuation at first: `a.example0` no longer sorts after every `a.example/…`.
      await (store as PostgresStore).pool.query('ALTER TABLE crawl_log ALTER COLUMN url TYPE text COLLATE "und-x-icu"');
      expect((await store.logOrigins()).sort()).toEqual(EXPECTED);
    } finally {
      await store.close();
      await env.cleanup();
    }
  });
});
