/**
 * The origins of the logged URLs, which a CDX domain query asks for once a page: on SQLite a skip scan of the
 * url index (one probe per origin) instead of a pass over every log row. Origins whose names continue one
 * another (`a.example`, `a.example.org`, `a.example-x`, `a.example:8080`) and schemes side by side are where
 * a skip could jump over one.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { tempDir } from '../helpers.ts';

describe('logOrigins on SQLite', () => {
  it('finds every origin once, whatever sorts between them', async () => {
    const store = new SqliteStore(path.join(tempDir('dm-origins-'), 'meta.sqlite'));
    await store.init();
    const urls = [
      'http://a.example/', 'http://a.example/x?y=1', 'http://a.example-x/p', 'http://a.example.org/q', 'http://a.example:8080/',
      'http://a.example:8080/z', 'https://a.example/', 'http://a.exampl/', 'http://b.example/0', 'http://b.example0/', 'http://[::1]:8080/v',
      'https://c.example/a/b/c', 'http://A.example/upper',
    ];
    let t = Date.UTC(2026, 0, 1);
    for (const url of [...urls, ...urls]) await store.appendLog({ url, time: t++, status: 200, durationMs: 1, bytes: 1, change: 'new', triples: 0 });
    await store.flush();
    const expected = [...new Set(urls.map((u) => /^https?:\/\/[^/]*/.exec(u)![0]))].sort();
    expect((await store.logOrigins()).sort()).toEqual(expected);
    await store.close();
  });
});
