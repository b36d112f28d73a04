/**
 * The version index over a PostgreSQL crawl log written by several workers: log ids come from a sequence at
 * INSERT and become visible at COMMIT, so a lower id can show up after a higher one was indexed. The
 * catch-up must still index it, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { catchUpVersions, openVersionStore, GAP_TTL_MS } from '../../src/query/index.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { LOG_WRITE_COLS, logValues } from '../../src/store/schema.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';
import { tempDir } from '../helpers.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../store/pg.ts';
import path from 'node:path';

const pgBase = await pgBaseUrl();

describe.skipIf(!pgBase)('the version index over a PostgreSQL log whose rows commit out of id order', () => {
  const DOCS = 4;
  let server: TestServer;
  let dataDir: string;
  /** The crawl's log rows (SQLite), each pointing at its WARC conversion record in dataDir. */
  let captured: CrawlLogEntry[];
  const docUrl = (i: number) => `${server.url}/d${i}.ttl`;

  beforeAll(async () => {
    server = await startServer((_req, res, url) => {
      const m = /^\/d(\d+)\.ttl$/.exec(url.pathname);
      if (!m) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<http://example.org/d${m[1]}> <http://example.org/v> "doc ${m[1]}" .\n`);
    });
    dataDir = tempDir();
    await crawl({
      seeds: Array.from({ length: DOCS }, (_, i) => docUrl(i)), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false,
      noFollow: true, domains: ['127.0.0.1'],
    }).run();
    const sqlite = new SqliteStore(path.join(dataDir, 'meta.sqlite'));
    await sqlite.init();
    captured = (await sqlite.log()).filter((e) => e.rdfOffset !== undefined).map(({ id: _id, ...e }) => e);
    await sqlite.close();
    expect(captured).toHaveLength(DOCS);
  });
  afterAll(() => server.close());

  /** INSERT of one log row on its own connection, in a transaction left open: the id is taken, the row invisible. */
  async function openInsert(store: PostgresStore, e: CrawlLogEntry): Promise<{ id: number; client: pg.PoolClient }> {
    const client = await store.pool.connect();
    try {
      // The row names its WARC file by id (warc_files): the name is stored first, committed, as the store does.
      await client.query('INSERT INTO warc_files (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [e.warcFile]);
      const warcId = Number((await client.query('SELECT id FROM warc_files WHERE name = $1', [e.warcFile])).rows[0].id);
      await client.query('BEGIN');
      const cols = LOG_WRITE_COLS.map(([, c]) => c);
      const { rows } = await client.query(`INSERT INTO crawl_log (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`, logValues(e, warcId, 'postgres'));
      return { id: Number(rows[0].id), client };
    } catch (err) {
      // Released, or closing the store would wait for this connection for ever.
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      throw err;
    }
  }

  it('a lower id committed after a higher one was indexed is indexed by the next catch-up, exactly once', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const store = new PostgresStore(url);
    const versionsDir = tempDir();
    const archive = openVersionStore(versionsDir);
    try {
      await store.init();
      await store.appendLog(captured[0]);
      const late = await openInsert(store, captured[1]); // worker A: id taken, not committed
      const after = await store.appendLog(captured[2]); // worker B: a higher id, committed at once
      expect(after).toBeGreaterThan(late.id);

      const first = await catchUpVersions(archive, store, dataDir);
      expect(first).toMatchObject({ rows: 2, lateRows: 0, versions: 2, failed: 0, lastLogId: after });
      expect(archive.versions(docUrl(1))).toEqual([]);
      expect(archive.logGaps.list().map((g) => [g.from, g.to])).toEqual([[late.id, late.id]]);

      await late.client.query('COMMIT');
      late.client.release();
      await store.appendLog(captured[3]);

      const second = await catchUpVersions(archive, store, dataDir);
      expect(second).toMatchObject({ rows: 2, lateRows: 1, versions: 2, failed: 0 });
      expect(archive.versions(docUrl(1))).toHaveLength(1);
      expect(archive.logGaps.list()).toEqual([]);

      const third = await catchUpVersions(archive, store, dataDir);
      expect(third).toMatchObject({ rows: 0, lateRows: 0 });
      expect(archive.stats().versions).toBe(DOCS);
      for (let i = 0; i < DOCS; i++) expect(archive.versions(docUrl(i))).toHaveLength(1);
    } finally {
      await archive.close();
      await store.close();
      await dropSchema(url);
    }
  });

  it('the hole an aborted insert leaves is re-checked until it is older than the time-to-live, then forgotten', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const store = new PostgresStore(url);
    const archive = openVersionStore(tempDir());
    try {
      await store.init();
      await store.appendLog(captured[0]);
      const aborted = await openInsert(store, captured[1]);
      await aborted.client.query('ROLLBACK');
      aborted.client.release();
      await store.appendLog(captured[2]);

      const t0 = Date.now();
      await catchUpVersions(archive, store, dataDir, { now: t0 });
      expect(archive.logGaps.list().map((g) => [g.from, g.to, g.seenAt])).toEqual([[aborted.id, aborted.id, t0]]);
      // Within the time-to-live the hole stays (the row could still come)…
      expect(await catchUpVersions(archive, store, dataDir, { now: t0 + GAP_TTL_MS - 1 })).toMatchObject({ rows: 0 });
      expect(archive.logGaps.list()).toHaveLength(1);
      // …after it, it is forgotten.
      await catchUpVersions(archive, store, dataDir, { now: t0 + GAP_TTL_MS + 1 });
      expect(archive.logGaps.list()).toEqual([]);
      expect(archive.stats().versions).toBe(2);
    } finally {
      await archive.close();
      await store.close();
      await dropSchema(url);
    }
  });
});
