/**
 * An archive whose crawl log was written in the earlier form (every response header as JSON in each row, a full
 * final_url index) answers the server's CDX, TimeMap and Memento requests and `log`'s read byte for byte as the
 * same archive in the leaner form (issue #32): the routes take what they need from the row or the WARC record.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/server/index.ts';
import { openStore } from '../../src/store/index.ts';
import { parseLinkFormat } from '../../src/util/link-format.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';

describe('a crawl log of the earlier form, served', () => {
  let fx: ArchiveFixture | undefined;
  afterAll(async () => fx?.close());

  async function answers(dataDir: string, doc: string, origin: string) {
    const app = await buildServer({ dataDir, publicUrl: 'http://archive.test' });
    try {
      const get = async (url: string) => {
        const r = await app.inject({ url, headers: { host: 'archive.test' } });
        const { date: _d, ...headers } = r.headers;
        return { status: r.statusCode, headers, body: r.body };
      };
      const timemap = await get(`/timemap/link/${doc}`);
      const mementos = parseLinkFormat(timemap.body).links.filter((l) => l.params.rel?.split(' ').includes('memento')).map((l) => l.uri);
      expect(mementos.length).toBeGreaterThanOrEqual(4);
      const store = await openStore(dataDir);
      await store.init();
      try {
        return {
          cdx: await get(`/cdx?url=${encodeURIComponent(doc)}&output=json`),
          cdxHost: await get(`/cdx?url=${encodeURIComponent(origin + '/')}&matchType=host`),
          timemap,
          mementos: await Promise.all(mementos.map((m) => get(new URL(m).pathname))),
          log: (await store.fates({ url: doc, limit: 100 })).map(({ headers: _h, ...e }) => e),
        };
      } finally {
        await store.close();
      }
    } finally {
      await app.close();
    }
  }

  it('answers CDX, Memento and log reads as the leaner form does', async () => {
    fx = await buildArchive({ spacingMs: 1100 });
    const origin = fx.origin.url;
    const lean = await answers(fx.dataDir, fx.doc, origin);

    const db = new Database(path.join(fx.dataDir, 'meta.sqlite'));
    try {
      // A crawl of the earlier form kept every header in the row, and final_url indexed in full.
      const changed = db.prepare(`UPDATE crawl_log SET headers = json_array(json_array('Date', 'Thu, 01 Jan 2026 00:00:00 GMT'),
        json_array('Content-Type', COALESCE(media_type, 'text/plain')), json_array('X-Origin', 'yes'), json_array('Connection', 'keep-alive'))`).run();
      expect(changed.changes).toBeGreaterThan(4);
      db.exec('DROP INDEX crawl_log_moved; CREATE INDEX crawl_log_final_url ON crawl_log (final_url, time)');
    } finally {
      db.close();
    }
    expect(await answers(fx.dataDir, fx.doc, origin)).toEqual(lean);
  });
});
