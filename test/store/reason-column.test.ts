import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { tempDir } from '../helpers.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from './pg.ts';

const pgBase = await pgBaseUrl();

const row = (url: string, status: number, change: CrawlLogEntry['change'], extra: Partial<CrawlLogEntry> = {}): CrawlLogEntry =>
  ({ url, time: Date.now(), status, durationMs: 1, bytes: 0, change, triples: 0, ...extra });

/** Rows as a crawl of the old schema left them: the reason column did not exist. */
const OLD_ROWS = [
  row('http://a.test/doc', 200, 'new'),
  row('http://a.test/same', 200, 'unchanged'),
  row('http://a.test/gone', 404, 'error', { error: 'HTTP 404' }),
  row('http://a.test/see', 303, 'new'),
  row('http://a.test/private', 0, 'error', { error: 'robots.txt: disallowed' }),
  row('http://a.test/dead', 0, 'error', { error: 'dns: host name did not resolve' }),
];

async function checkMigrated(store: MetadataStore): Promise<void> {
  const byUrl = new Map((await store.log()).map((e) => [e.url, e.reason]));
  expect(Object.fromEntries(byUrl)).toEqual({
    'http://a.test/doc': 'fetched', 'http://a.test/same': 'unchanged', 'http://a.test/gone': 'http-error',
    'http://a.test/see': 'redirected', 'http://a.test/private': 'robots-disallowed', 'http://a.test/dead': undefined,
  });
  // New rows keep their reason, and the log command's read finds failures old and new.
  await store.appendLog(row('http://a.test/refused', 0, 'error', { error: 'blocked-address: 10.0.0.1', reason: 'refused-address' }));
  await store.flush();
  const failures = (await store.fates({ limit: 100 })).map((e) => e.url).sort();
  expect(failures).toEqual(['http://a.test/dead', 'http://a.test/gone', 'http://a.test/private', 'http://a.test/refused', 'http://a.test/see']);
  expect((await store.fates({ reasons: ['refused-address'], limit: 10 })).map((e) => e.url)).toEqual(['http://a.test/refused']);
  expect((await store.fates({ url: 'http://a.test/doc', reasons: ['fetched'], limit: 10 })).map((e) => e.reason)).toEqual(['fetched']);
}

describe('the crawl log reason column on SQLite', () => {
  it('is added to an archive written before it, with the reasons its rows show', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'meta.sqlite');
    const first = new SqliteStore(file);
    await first.init();
    for (const e of OLD_ROWS) await first.appendLog(e);
    await first.close();
    // Take the archive back to schema 1: no reason column, no index on it.
    const db = new Database(file);
    db.exec('DROP INDEX crawl_log_fate; ALTER TABLE crawl_log DROP COLUMN reason');
    db.pragma('user_version = 1');
    db.close();

    const store = new SqliteStore(file);
    await store.init();
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(!pgBase)('the crawl log reason column on PostgreSQL', () => {
  it('is added to an archive written before it (schema 2), with the reasons its rows show', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const first = new PostgresStore(url);
    try {
      await first.init();
      for (const e of OLD_ROWS) await first.appendLog(e);
      // Take the archive back to schema 2.
      await first.pool.query('DROP INDEX crawl_log_fate');
      await first.pool.query('ALTER TABLE crawl_log DROP COLUMN reason');
      await first.pool.query('DROP INDEX crawl_log_capture');
      await first.pool.query('DELETE FROM schema_version WHERE version >= 3');
    } finally {
      await first.close();
    }
    const store = new PostgresStore(url);
    try {
      await store.init();
      await checkMigrated(store);
      const { rows } = await store.pool.query('SELECT MAX(version) AS v FROM schema_version');
      expect(Number(rows[0].v)).toBe(8);
      // Migration 4: the index CDX pages are read from (captureIndexDdl).
      const idx = await store.pool.query(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname = 'crawl_log_capture'`);
      expect(idx.rows).toHaveLength(1);
    } finally {
      await store.close();
      await dropSchema(url);
    }
  });
});
