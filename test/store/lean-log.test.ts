/**
 * The leaner crawl log (issue #32): a row keeps only the headers log reads use, and final_url is indexed only
 * where it differs from url. An archive written before (every header as JSON in each row, a full final_url
 * index: written here with that SQL directly) must answer the reads that CDX, Memento, `log` and the export
 * make just as an archive written wholly in the new form does, and get the partial index on its next open.
 */
import path from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { sha1Digest } from '../../src/archive/warc-record.ts';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startLinkedDataSite } from '../../src/testkit/linked-data-site.ts';
import { generatedVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { tempDir } from '../helpers.ts';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { headerValue } from '../../src/util/headers.ts';
import { versionsArgs, versionsWhere } from '../../src/store/schema.ts';
import { captureIndexDdl, fates, searchUrls, type LogReader } from '../../src/store/log-reads.ts';
import { postgresStore, sqliteStore } from './contract/backends.ts';
import type { StoreEnv } from './contract/harness.ts';
import { exec } from './exec.ts';

const T0 = Date.UTC(2026, 0, 1);
const WARC = 'warc/2026/01/01/00/t.example/x.warc.gz';
const headers = (...extra: [string, string][]): [string, string][] =>
  [['Date', 'Thu, 01 Jan 2026 00:00:00 GMT'], ['Server', 'old/1'], ...extra, ['Connection', 'keep-alive']];
const entry = (i: number, url: string, e: Partial<CrawlLogEntry>): CrawlLogEntry => ({
  url, finalUrl: url, time: T0 + i * 1000, status: 200, durationMs: 1, bytes: 10, change: 'new', triples: 1, reason: 'fetched',
  mediaType: 'text/turtle', checksum: `sha1:${i}`, warcFile: WARC, warcOffset: i * 100, warcLength: 100, ...e,
});

/** Rows a crawl of the earlier form wrote; then rows a crawl writes now. */
const OLD: CrawlLogEntry[] = [
  entry(1, 'http://t.example/old', { status: 301, reason: 'redirected', change: 'error', triples: 0, headers: headers(['Location', '/doc']) }),
  entry(2, 'http://t.example/doc', { headers: headers(['Content-Type', 'text/turtle'], ['ETag', '"1"']) }),
  entry(3, 'http://t.example/a', { finalUrl: 'http://t.example/doc', headers: headers(['Content-Type', 'text/turtle']) }),
  entry(4, 'http://t.example/v', { reason: 'variant-mismatch', headers: headers(['Content-Location', 'v.jsonld']) }),
  entry(5, 'http://t.example/gone', { status: 404, change: 'error', reason: 'http-error', error: 'HTTP 404', triples: 0, headers: headers() }),
];
const NEW: CrawlLogEntry[] = [
  entry(6, 'http://t.example/doc', { change: 'changed', checksum: 'sha1:6', headers: headers(['Content-Type', 'text/turtle']) }),
  entry(7, 'http://t.example/new', { status: 302, reason: 'redirected', change: 'error', triples: 0, headers: headers(['location', 'old']) }),
  entry(8, 'http://t.example/b', { finalUrl: 'http://t.example/doc', headers: headers() }),
];

const COLS = 'url, final_url, time, status, headers, duration_ms, bytes, media_type, checksum, change, error, triples, truncated, warc_id, warc_offset, warc_length, reason';
const oldValues = (e: CrawlLogEntry) => [e.url, e.finalUrl, e.time, e.status, JSON.stringify(e.headers), e.durationMs, e.bytes, e.mediaType, e.checksum, e.change, e.error ?? null, e.triples, 0, 1, e.warcOffset, e.warcLength, e.reason];


async function indexes(store: MetadataStore): Promise<string[]> {
  const rows = 'pool' in store
    ? await exec(store, "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'crawl_log'")
    : await exec(store, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'crawl_log'");
  return rows.map((r) => r.name as string).sort();
}

/** What the reads answer, with each entry's headers as the reads take them (by name). */
async function answers(store: MetadataStore) {
  const strip = (e: CrawlLogEntry) => {
    const { headers: h, id: _id, ...rest } = e;
    return { ...rest, location: headerValue(h, 'location'), contentLocation: headerValue(h, 'content-location') };
  };
  return {
    versions: (await store.versions('http://t.example/doc')).map(strip),
    cdx: (await store.captures({ prefixes: ['http://t.example/'], limit: 100 })).map((c) => ({ ...strip(c.entry), last: c.lastGoodChecksum })),
    logUrl: (await store.fates({ url: 'http://t.example/new', limit: 100 })).map(strip),
    latest: (await store.latestEntries({ kind: 'redirect', limit: 100 })).map(strip),
    log: (await store.log()).map(strip),
  };
}

for (const make of [sqliteStore, postgresStore]) {
  describe.skipIf(make.skip)(`the leaner crawl log on ${make.name}`, () => {
    const envs: StoreEnv<MetadataStore>[] = [];
    afterEach(async () => {
      for (const env of envs.splice(0)) await env.cleanup();
    });

    it('an archive written in the earlier form answers log, CDX and Memento reads as one written now', async () => {
      const now = await make.setup();
      const before = await make.setup();
      envs.push(now, before);

      const a = await now.open();
      for (const e of [...OLD, ...NEW]) await a.appendLog(e);
      await a.flush();
      const expected = await answers(a);
      // A row keeps Location and Content-Location only; one with neither keeps no headers.
      const kept = await a.log();
      expect(kept.map((e) => e.headers)).toEqual([[['Location', '/doc']], undefined, undefined, [['Content-Location', 'v.jsonld']], undefined, undefined, [['location', 'old']], undefined]);
      await a.close();

      // The earlier form, with its SQL: every header in the row, final_url indexed in full, schema before the change.
      const b0 = await before.open();
      await exec(b0, 'DROP INDEX crawl_log_moved');
      await exec(b0, 'CREATE INDEX crawl_log_final_url ON crawl_log (final_url, time)');
      if (!('pool' in b0)) {
        // SQLite's two URL indexes of then: the URL, and the capture index of CDX pages (captures only).
        await exec(b0, 'DROP INDEX crawl_log_by_url');
        await exec(b0, 'DROP INDEX crawl_log_odd_origin');
        await exec(b0, 'CREATE INDEX crawl_log_url ON crawl_log (url, time)');
        await exec(b0, captureIndexDdl('sqlite'));
      }
      if ('pool' in b0) await exec(b0, 'DELETE FROM schema_version WHERE version >= 5');
      await exec(b0, 'INSERT INTO warc_files (id, name) VALUES (1, ?)', [WARC]);
      for (const e of OLD) await exec(b0, `INSERT INTO crawl_log (${COLS}) VALUES (${COLS.split(',').map(() => '?').join(', ')})`, oldValues(e));
      await b0.close();

      const b = await before.open();
      try {
        expect(await indexes(b)).not.toContain('crawl_log_final_url');
        expect(await indexes(b)).toContain('crawl_log_moved');
        // SQLite: one index of the log's URLs in place of the two (log-reads.ts sqliteUrlIndexDdl).
        if (!('pool' in b)) expect((await indexes(b)).filter((n) => /url|capture|origin/.test(n))).toEqual(['crawl_log_by_url', 'crawl_log_odd_origin']);
        for (const e of NEW) await b.appendLog(e);
        await b.flush();
        expect(await answers(b)).toEqual(expected);
        // Rows written before keep every header they had.
        expect((await b.log({ limit: 1 }))[0]!.headers).toEqual(OLD[0]!.headers);
        if (!('pool' in b)) {
          // versions(url)'s own query can use the partial index (a URL's captures are one index look-up, not a scan).
          const plan = await exec(b, `EXPLAIN QUERY PLAN SELECT * FROM crawl_log WHERE ${versionsWhere('sqlite')} ORDER BY time, id`, versionsArgs('sqlite', 'x'));
          expect(plan.map((r) => r.detail).join('\n')).toMatch(/INDEX crawl_log_moved/);
          // So do the other reads by final URL: `log --url` and the URL search; none scans the log.
          const plans: string[] = [];
          const reader: LogReader = {
            dialect: 'sqlite',
            all: async (sql, params) => {
              plans.push(...(await exec(b, `EXPLAIN QUERY PLAN ${sql}`, params)).map((r) => r.detail as string));
              return exec(b, sql, params);
            },
          };
          await fates(reader, { url: 'http://t.example/new', limit: 10 });
          await searchUrls(reader, { text: 'http://t.example/d', match: 'prefix', limit: 10 });
          expect(plans.join('\n')).toMatch(/INDEX crawl_log_moved \(final_url=\?\)/);
          expect(plans.join('\n')).toMatch(/INDEX crawl_log_moved \(final_url>\? AND final_url<\?\)/);
          expect(plans.filter((p) => /^SCAN crawl_log/.test(p))).toEqual([]);
        }
      } finally {
        await b.close();
      }
    });
  });
}

const payload = (i: number) => sha1Digest(`payload ${i}`);
const graphHash = (i: number) => createHash('sha256').update(`graph ${i}`).digest('hex');

for (const make of [sqliteStore, postgresStore]) {
  describe.skipIf(make.skip)(`digests and final URLs in the crawl log on ${make.name}`, () => {
    it('reads back every digest as written, and a final URL only where a redirect was followed', async () => {
      const env = await make.setup();
      const store = await env.open();
      try {
        const rows: CrawlLogEntry[] = [
          entry(1, 'http://t.example/doc', { checksum: payload(1), graphHash: graphHash(1) }),
          entry(2, 'http://t.example/id/1', { status: 303, reason: 'redirected', change: 'error', triples: 0, finalUrl: undefined, checksum: payload(0) }),
          entry(3, 'http://t.example/a', { finalUrl: 'http://t.example/doc', checksum: payload(1), graphHash: graphHash(1) }),
          // An imported WARC's digest in another spelling, and a hash that is not hex: kept as written.
          entry(4, 'http://t.example/imported', { checksum: `sha256:${graphHash(4)}`, graphHash: 'gone' }),
          entry(5, 'http://t.example/doc', { change: 'unchanged', checksum: payload(1), graphHash: graphHash(1) }),
        ];
        // The earlier form's row: digests as text, final_url repeating url.
        await exec(store, 'INSERT INTO warc_files (id, name) VALUES (1, ?)', [WARC]);
        await exec(store, `INSERT INTO crawl_log (${COLS}, graph_hash) VALUES (${COLS.split(',').map(() => '?').join(', ')}, ?)`,
          [...oldValues(entry(0, 'http://t.example/doc', { checksum: payload(1) })), graphHash(1)]);
        for (const e of rows) await store.appendLog(e);
        await store.addDocuments([{ url: 'http://t.example/doc', host: 't.example', depth: 0 }]);
        await store.updateDocument('http://t.example/doc', { state: 'fetched', checksum: payload(1), graphHash: graphHash(1) });
        await store.flush();

        const log = await store.log();
        expect(log.map((e) => [e.checksum, e.graphHash])).toEqual([
          [payload(1), graphHash(1)], [payload(1), graphHash(1)], [payload(0), undefined], [payload(1), graphHash(1)],
          [`sha256:${graphHash(4)}`, 'gone'], [payload(1), graphHash(1)],
        ]);
        // Absent where the body came from the URL asked for, written then or now.
        expect(log.map((e) => e.finalUrl)).toEqual([undefined, undefined, undefined, 'http://t.example/doc', undefined, undefined]);
        expect((await store.versions('http://t.example/doc')).map((e) => e.url))
          .toEqual(['http://t.example/doc', 'http://t.example/doc', 'http://t.example/a', 'http://t.example/doc']);
        const doc = await store.getDocument('http://t.example/doc');
        expect([doc!.checksum, doc!.graphHash]).toEqual([payload(1), graphHash(1)]);
        // A capture's last good digest, the revisit test of CDX, across a row of each form.
        const caps = await store.captures({ urls: ['http://t.example/doc'], limit: 10 });
        expect(caps.map((c) => c.lastGoodChecksum)).toEqual([undefined, payload(1), payload(1)]);

        if (!('pool' in store)) {
          // SQLite keeps the bytes: 20 for a payload's sha1, 32 for a graph's sha256; the others as written.
          const raw = await exec(store, `SELECT typeof(checksum) AS c, length(checksum) AS cl, typeof(graph_hash) AS g, length(graph_hash) AS gl,
            final_url IS NULL AS nofinal FROM crawl_log ORDER BY id`);
          expect(raw).toEqual([
            { c: 'text', cl: 37, g: 'text', gl: 64, nofinal: 0 },
            { c: 'blob', cl: 20, g: 'blob', gl: 32, nofinal: 1 },
            { c: 'blob', cl: 20, g: 'null', gl: null, nofinal: 1 },
            { c: 'blob', cl: 20, g: 'blob', gl: 32, nofinal: 0 },
            { c: 'text', cl: 71, g: 'text', gl: 4, nofinal: 1 },
            { c: 'blob', cl: 20, g: 'blob', gl: 32, nofinal: 1 },
          ]);
          expect(await exec(store, 'SELECT typeof(checksum) AS c, typeof(graph_hash) AS g FROM documents')).toEqual([{ c: 'blob', g: 'blob' }]);
        }
      } finally {
        await store.close();
        await env.cleanup();
      }
    });
  });
}

describe.skipIf(postgresStore.skip)('versions(url) on PostgreSQL', () => {
  it('reads both arms from indexes, the partial one for final URLs', async () => {
    const env = await postgresStore.setup();
    const store = await env.open();
    try {
      // A log of 20,000 rows, one in 500 ending at another URL than it asked for.
      await exec(store, "INSERT INTO warc_files (id, name) VALUES (1, 'w.warc.gz')");
      await exec(store, `INSERT INTO crawl_log (url, final_url, time, status, duration_ms, bytes, change, triples, warc_id, warc_offset)
        SELECT 'http://h' || (i % 10) || '.example/' || i, CASE WHEN i % 500 = 0 THEN 'http://x.example/' || i ELSE 'http://h' || (i % 10) || '.example/' || i END,
          i, 200, 1, 1, 'new', 1, 1, i FROM generate_series(1, 20000) i`);
      await exec(store, 'ANALYZE crawl_log');
      const plan = await exec(store, `EXPLAIN SELECT * FROM crawl_log WHERE ${versionsWhere('postgres')} ORDER BY time, id`, versionsArgs('postgres', 'http://x.example/500'));
      const text = plan.map((r) => r['QUERY PLAN']).join('\n');
      expect(text).toMatch(/Index Scan on crawl_log_moved/);
      expect(text).not.toMatch(/Seq Scan/);
      expect((await store.versions('http://x.example/500')).map((e) => e.url)).toEqual(['http://h0.example/500']);
    } finally {
      await store.close();
      await env.cleanup();
    }
  });
});

/**
 * The size of the log on a real crawl of a generated Linked Data site: the crawl_log table and its indexes per
 * row, counted in SQLite pages (dbstat). The earliest form took 834 B a row on a crawl like this one (every header
 * as JSON, a full final_url index); with digests as text and the final URL in every row it took 434 B on this one,
 * as it is now 345–361 B (the pages' fill moves with the crawl's order); the bound sits between.
 */
describe('the crawl log on a crawl of a generated site', () => {
  let dataDir = '';
  beforeAll(async () => {
    const site = await startLinkedDataSite({ documents: 500, hosts: 10, vocabulary: generatedVocabulary() });
    dataDir = tempDir('dm-lean-log-');
    try {
      await crawl({
        seeds: [site.seed], dataDir, delayMs: 0, perHost: 8, concurrency: 16, robots: true,
        allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'], depth: 100_000,
      }).run();
    } finally {
      await site.close();
    }
  });

  it('takes under 400 B a row (table and indexes), which the earlier forms exceed', () => {
    const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
    try {
      const rows = (db.prepare('SELECT COUNT(*) AS n FROM crawl_log').get() as { n: number }).n;
      expect(rows).toBeGreaterThanOrEqual(500);
      const { bytes } = db.prepare(`SELECT SUM(pgsize) AS bytes FROM dbstat
        WHERE name = 'crawl_log' OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'crawl_log')`).get() as { bytes: number };
      expect(bytes / rows).toBeLessThan(400);
      // Only the redirects' and variants' rows hold headers; no 200 does on this site.
      expect(db.prepare("SELECT COUNT(*) AS n FROM crawl_log WHERE headers IS NOT NULL AND status = 200").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it("keeps in its partial indexes only the fates a log read lists, and no document (src/store/schema.ts PARTIAL_INDEXES)", () => {
    const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
    try {
      const entries = (name: string) => (db.prepare("SELECT coalesce(SUM(ncell), 0) AS n FROM dbstat WHERE name = ? AND pagetype = 'leaf'").get(name) as { n: number }).n;
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT COUNT(*) AS n FROM documents')).toBeGreaterThanOrEqual(500);
      expect(count("SELECT COUNT(*) AS n FROM documents WHERE state = 'queued' OR monitored = 1")).toBe(0);
      expect(entries('documents_queued')).toBe(0);
      expect(entries('documents_monitored')).toBe(0);
      // The site's 404s (one a document) are listed by `datamonitor log`; its 200s and 303s are not.
      const unusual = count("SELECT COUNT(*) AS n FROM crawl_log WHERE reason NOT IN ('fetched', 'unchanged', 'redirected')");
      expect(unusual).toBeGreaterThan(0);
      expect(unusual).toBeLessThan(count('SELECT COUNT(*) AS n FROM crawl_log') / 2);
      expect(entries('crawl_log_fate')).toBe(unusual);
    } finally {
      db.close();
    }
  });
});
