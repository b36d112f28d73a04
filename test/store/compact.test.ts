/**
 * The metadata file rewritten whole after a crawl (src/store/compact.ts): URLs come in no order and rows grow when
 * fetched, which leaves pages of the documents and of the log's URL index part empty. The rewrite gives that back,
 * every row reads the same after it, a reader open meanwhile keeps answering, and a file with little empty is left
 * as it is.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { compactSqliteFile } from '../../src/store/compact.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';

const T0 = Date.UTC(2026, 0, 1);
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A crawl's shape: documents discovered in no URL order, then each fetched (its row grows) and logged. */
async function crawled(n: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-compact-'));
  dirs.push(dir);
  const file = path.join(dir, 'meta.sqlite');
  const store = new SqliteStore(file);
  await store.init();
  // A multiplicative walk visits every i once in an order unrelated to the URL's.
  const ids = Array.from({ length: n }, (_, i) => (i * 7919) % n);
  const url = (i: number) => `http://data${i % 7}.lod.test/doc/${i.toString().padStart(6, '0')}`;
  for (let at = 0; at < n; at += 500) {
    const batch = ids.slice(at, at + 500);
    await store.addDocuments(batch.map((i) => ({ url: url(i), host: `data${i % 7}.lod.test`, depth: i % 5 })));
    for (const i of batch) {
      const e: CrawlLogEntry = {
        url: url(i), finalUrl: url(i), time: T0 + i, status: i % 3 === 0 ? 404 : 200, durationMs: 3, bytes: 900 + (i % 50), change: i % 3 === 0 ? 'error' : 'new',
        triples: 35, reason: i % 3 === 0 ? 'http-error' : 'fetched', mediaType: 'text/turtle', checksum: `sha1:${'A'.repeat(32)}`,
        graphHash: (i * 2654435761 >>> 0).toString(16).padStart(64, '0'), warcFile: `warc/${i % 7}.warc.gz`, warcOffset: i * 1000, warcLength: 900,
      };
      await store.logFetch(e, { state: 'fetched', lastFetched: e.time, checksum: e.checksum, graphHash: e.graphHash });
    }
  }
  await store.close();
  return file;
}

const dump = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return {
      documents: db.prepare('SELECT * FROM documents ORDER BY url').all(),
      log: db.prepare('SELECT * FROM crawl_log ORDER BY id').all(),
      check: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
};

describe('compactSqliteFile', () => {
  it('gives back the part-empty pages of a crawl in no URL order; every row reads the same after', async () => {
    const file = await crawled(20_000);
    const before = dump(file);
    const size = fs.statSync(file).size;
    // A reader open across the rewrite (a server on the archive) keeps answering.
    const reader = new SqliteStore(file, { readonly: true });
    await reader.init();
    const c = compactSqliteFile(file, { minEmptyBytes: 0 });
    expect(c).toBeDefined();
    expect(c!.freedBytes).toBeGreaterThan(size * 0.04);
    expect(fs.statSync(file).size).toBe(size - c!.freedBytes);
    expect(await reader.countDocuments('fetched')).toBe(20_000);
    expect((await reader.getDocument('http://data3.lod.test/doc/000010'))?.graphHash).toBe((10 * 2654435761 >>> 0).toString(16).padStart(64, '0'));
    await reader.close();
    expect(dump(file)).toEqual(before);
    expect(before.check).toBe('ok');
    // Nothing left to give: a second look leaves it.
    expect(compactSqliteFile(file, { minEmptyBytes: 0 })).toBeUndefined();
  }, 120_000);

  it('leaves the file of a small crawl as it is: a rewrite there gives back less than it costs', async () => {
    const file = await crawled(2_000);
    const size = fs.statSync(file).size;
    expect(compactSqliteFile(file)).toBeUndefined();
    expect(fs.statSync(file).size).toBe(size);
  }, 60_000);
});
