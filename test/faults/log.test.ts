import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { reasonOf, saysOneOf } from '../../src/testkit/faults/log.ts';
import { tempDir } from '../helpers.ts';

/** A crawl log as a data directory holds it, with or without the `reason` column. */
function logDir(withReason: boolean, rows: Array<Record<string, unknown>>): string {
  const dir = tempDir('dm-fault-log-');
  const db = new Database(path.join(dir, 'meta.sqlite'));
  db.exec(`CREATE TABLE crawl_log (id INTEGER PRIMARY KEY, url TEXT NOT NULL, final_url TEXT, status INTEGER NOT NULL, error TEXT,
    truncated INTEGER NOT NULL DEFAULT 0, triples INTEGER NOT NULL DEFAULT 0, diagnostics TEXT, warc_file TEXT${withReason ? ', reason TEXT' : ''})`);
  const insert = db.prepare(`INSERT INTO crawl_log (url, final_url, status, error, truncated${withReason ? ', reason' : ''}) VALUES (@url, @final_url, @status, @error, @truncated${withReason ? ', @reason' : ''})`);
  for (const r of rows) insert.run({ final_url: null, error: null, truncated: 0, reason: null, ...r });
  db.close();
  return dir;
}

describe('reasonOf: a URL\'s fate from the crawl log, before and after the reason column', () => {
  it('reads the reason column when there is one', () => {
    const dir = logDir(true, [{ url: 'http://h/a', status: 0, error: 'timeout after 2000 ms', reason: 'timeout-headers' }]);
    expect(reasonOf(dir, 'http://h/a')).toBe('timeout-headers');
    expect(saysOneOf(reasonOf(dir, 'http://h/a'), ['timeout-headers'])).toBe(true);
    expect(saysOneOf(reasonOf(dir, 'http://h/a'), ['timeout-body'])).toBe(false);
  });

  it('falls back to the error text, status and truncation without it', () => {
    const dir = logDir(false, [
      { url: 'http://h/a', status: 0, error: 'robots.txt unavailable: robots.txt of http://h answered 500' },
      { url: 'http://h/b', status: 200, truncated: 1 },
      { url: 'http://h/c', final_url: 'http://h/d', status: 200 },
    ]);
    expect(saysOneOf(reasonOf(dir, 'http://h/a'), ['robots-unavailable'])).toBe(true);
    expect(saysOneOf(reasonOf(dir, 'http://h/b'), ['too-large'])).toBe(true);
    expect(saysOneOf(reasonOf(dir, 'http://h/b'), ['fetched'])).toBe(false);
    // The end of a redirect is found through final_url.
    expect(saysOneOf(reasonOf(dir, 'http://h/d'), ['fetched'])).toBe(true);
    expect(reasonOf(dir, 'http://h/never')).toBeUndefined();
  });
});
