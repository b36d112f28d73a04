/**
 * The crawl log names each row's WARC file by an id into warc_files (issue #32, a leaner crawl log). An
 * archive written before (the file's path in every row, indexed: built here with that SQL directly) must
 * read the same when opened read-only, which cannot migrate it, and be migrated on its next open for
 * writing; writers on one store must agree on the ids of the files they add.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { captureIndexDdl } from '../../src/store/log-reads.ts';
import { legacySql } from '../../src/store/warc-ids.ts';
import { postgresBatchedStore, postgresStore, sqliteStore } from './contract/backends.ts';
import type { StoreEnv } from './contract/harness.ts';
import { exec } from './exec.ts';

const T0 = Date.UTC(2026, 2, 1);
const FILES = [
  'warc/2026/03/01/00/data.example.org/datamonitor-20260301000000-00000.warc.gz',
  'warc/2026/03/01/00/vocab.example.net/datamonitor-20260301000004-00000.warc.gz',
  'w0/warc/2026/03/01/00/data.example.org/datamonitor-20260301000009-00001.warc.gz',
];

/** A small crawl's log: captures in three files, a redirect, a 404, a failure with no response, a stream member with only a graph record. */
function crawlRows(): CrawlLogEntry[] {
  const rows: CrawlLogEntry[] = [];
  let t = T0;
  const add = (e: Partial<CrawlLogEntry> & { url: string }) =>
    rows.push({ finalUrl: e.url, time: (t += 1000), status: 200, durationMs: 12, bytes: 2048, change: 'new', triples: 40, reason: 'fetched', mediaType: 'text/turtle', ...e });
  for (let i = 0; i < 6; i++) {
    add({ url: `http://data.example.org/person/${i}`, checksum: `sha1:P${i}`, graphHash: `g${i}`, warcFile: FILES[i % 2 === 0 ? 0 : 2], warcOffset: 1000 * i, warcLength: 900, rdfOffset: 1000 * i + 900, rdfLength: 80 });
  }
  add({ url: 'http://vocab.example.net/ns', checksum: 'sha1:V', warcFile: FILES[1], warcOffset: 0, warcLength: 5000 });
  add({ url: 'http://data.example.org/old', status: 301, change: 'error', reason: 'redirected', triples: 0, headers: [['Location', '/person/1']], warcFile: FILES[0], warcOffset: 9000, warcLength: 300 });
  add({ url: 'http://data.example.org/gone', status: 404, change: 'error', reason: 'http-error', error: 'HTTP 404', triples: 0, warcFile: FILES[2], warcOffset: 7000, warcLength: 200 });
  add({ url: 'http://unreachable.example.com/', status: 0, change: 'error', reason: 'connect-refused', error: 'ECONNREFUSED', triples: 0, mediaType: undefined });
  add({ url: 'http://data.example.org/person/1', change: 'changed', checksum: 'sha1:P1b', warcFile: FILES[2], warcOffset: 12000, warcLength: 950, rdfOffset: 12950, rdfLength: 90 });
  add({ url: 'http://data.example.org/stream#m1', warcFile: FILES[1], rdfOffset: 6000, rdfLength: 400 });
  return rows;
}


/** Turns a store written now into the earlier form: the file's path in each row, indexed, and the schema version before. */
async function toEarlierForm(store: MetadataStore): Promise<void> {
  const pg = 'pool' in store;
  for (const sql of [
    'ALTER TABLE crawl_log ADD COLUMN warc_file TEXT',
    'UPDATE crawl_log SET warc_file = (SELECT w.name FROM warc_files w WHERE w.id = crawl_log.warc_id)',
    'DROP INDEX crawl_log_converted',
    // SQLite's capture index is its one URL index now (log-reads.ts sqliteUrlIndexDdl), on no column of these.
    'DROP INDEX IF EXISTS crawl_log_capture',
    'ALTER TABLE crawl_log DROP COLUMN warc_id',
    'DROP TABLE warc_files',
    'CREATE INDEX crawl_log_file ON crawl_log (warc_file)',
    legacySql(captureIndexDdl(pg ? 'postgres' : 'sqlite')),
    pg ? 'DELETE FROM schema_version WHERE version >= 6' : 'PRAGMA user_version = 2',
  ]) await exec(store, sql);
}

async function columns(store: MetadataStore): Promise<string[]> {
  const rows = 'pool' in store
    ? await exec(store, "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'crawl_log'")
    : await exec(store, "SELECT name FROM pragma_table_info('crawl_log')");
  return rows.map((r) => r.name as string).filter((c) => c.startsWith('warc_'));
}

/** What reads by file and by URL answer: the log, each file's rows and end, versions, CDX captures, the latest responses. */
async function answers(store: MetadataStore) {
  const byFile = [];
  const files = [...FILES, 'warc/never-written.warc.gz'];
  const ends = await store.warcEnds(files);
  for (const f of files) {
    byFile.push({ f, rows: (await store.log({ warcFile: f })).map((e) => e.id), converted: (await store.log({ warcFile: f, converted: true })).map((e) => e.id), end: ends.get(f) });
  }
  return {
    log: await store.log(),
    byFile,
    versions: await store.versions('http://data.example.org/person/1'),
    cdx: await store.captures({ prefixes: ['http://data.example.org/'], limit: 100 }),
    latest: await store.latestEntries({ kind: 'response', limit: 100 }),
  };
}

for (const make of [sqliteStore, postgresStore]) {
  describe.skipIf(make.skip)(`WARC file ids on ${make.name}`, () => {
    const envs: StoreEnv<MetadataStore>[] = [];
    afterEach(async () => {
      for (const env of envs.splice(0)) await env.cleanup();
    });

    it('an archive with the path in every row reads the same read-only, and moves to ids on its next writable open', async () => {
      const env = await make.setup();
      envs.push(env);
      const a = await env.open();
      for (const e of crawlRows()) await a.appendLog(e);
      await a.flush();
      const expected = await answers(a);
      expect(expected.log.map((e) => e.warcFile)).toEqual(crawlRows().map((e) => e.warcFile));
      expect(expected.byFile.map((f) => f.rows.length)).toEqual([4, 2, 5, 0]);
      expect(expected.byFile.map((f) => f.converted.length)).toEqual([3, 1, 4, 0]);
      await toEarlierForm(a);
      await a.close();

      const ro = await env.openReadOnly();
      try {
        expect(await answers(ro)).toEqual(expected);
      } finally {
        await ro.close();
      }
      const old = await env.open();
      try {
        expect(await columns(old)).toEqual(expect.arrayContaining(['warc_id']));
        expect(await columns(old)).not.toContain('warc_file');
        expect(await answers(old)).toEqual(expected);
        // Numbered in the order the log first named them.
        expect((await exec(old, 'SELECT name FROM warc_files ORDER BY id')).map((r) => r.name)).toEqual([FILES[0], FILES[2], FILES[1]]);
        // Writing goes on in the new form, into a known file and a new one.
        await old.appendLog({ ...crawlRows()[0]!, time: T0 + 60_000, warcFile: FILES[2], warcOffset: 20_000 });
        await old.appendLog({ ...crawlRows()[1]!, time: T0 + 61_000, warcFile: 'warc/2026/03/01/01/data.example.org/datamonitor-20260301010000-00000.warc.gz', warcOffset: 0 });
        await old.flush();
        expect((await old.log({ sinceId: expected.log.at(-1)!.id })).map((e) => e.warcFile)).toEqual([FILES[2], 'warc/2026/03/01/01/data.example.org/datamonitor-20260301010000-00000.warc.gz']);
        expect((await old.warcEnds([FILES[2]!])).get(FILES[2]!)).toBe(20_900);
      } finally {
        await old.close();
      }
    });

    it("the export's read of a file's conversion records uses the index of those rows", async () => {
      const env = await make.setup();
      envs.push(env);
      const s = await env.open();
      try {
        for (let i = 0; i < 400; i++) await s.appendLog({ ...crawlRows()[i % 6]!, time: T0 + i, warcFile: FILES[i % 3], warcOffset: i * 10 });
        await s.flush();
        const pg = 'pool' in s;
        if (pg) await exec(s, 'ANALYZE crawl_log');
        const explain = async (sql: string) => (await exec(s, `${pg ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${sql}`, [1])).map((r) => String(r['QUERY PLAN'] ?? r.detail)).join('\n');
        if (pg) await exec(s, 'SET enable_seqscan = off'); // a 400-row table is read whole otherwise; the question is whether the index can serve
        expect(await explain('SELECT * FROM crawl_log WHERE id > 0 AND warc_id = ? AND rdf_offset IS NOT NULL ORDER BY id')).toMatch(/crawl_log_converted/);
      } finally {
        await s.close();
      }
    });
  });
}

describe('writers of one SQLite store agree on the ids', () => {
  const envs: StoreEnv<MetadataStore>[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.cleanup();
  });

  it('files each writer adds by turns keep one id, and each row reads back its own file', async () => {
    const env = await sqliteStore.setup();
    envs.push(env);
    const a = await env.open();
    const b = await env.open();
    try {
      const rows = crawlRows().filter((e) => e.warcFile);
      const written: string[] = [];
      for (let i = 0; i < rows.length; i++) {
        const store = i % 2 === 0 ? a : b;
        await store.appendLog(rows[i]!);
        await store.flush(); // one writer at a time holds SQLite's write lock
        written.push(rows[i]!.warcFile!);
      }
      for (const s of [a, b]) expect((await s.log()).map((e) => e.warcFile)).toEqual(written);
      expect((await exec(a, 'SELECT name FROM warc_files ORDER BY name')).map((r) => r.name)).toEqual([...FILES].sort());
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe.skipIf(postgresBatchedStore.skip)('writers of one PostgreSQL store agree on the ids', () => {
  const envs: StoreEnv<MetadataStore>[] = [];
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.cleanup();
  });

  it('workers logging rows into the same new files at once: one row per file, every row reads back its own file', async () => {
    const env = await postgresBatchedStore.setup();
    envs.push(env);
    const workers = [await env.open(), await env.open(), await env.open()];
    try {
      const names = Array.from({ length: 12 }, (_, i) => `warc/2026/03/01/${String(i).padStart(2, '0')}/data.example.org/datamonitor-20260301-${i}.warc.gz`);
      // Each worker logs rows into every file, in its own order, all at once.
      const logged = await Promise.all(workers.map((w, k) => Promise.all(names.map((_, i) => {
        const file = names[(i * (k + 1)) % names.length]!;
        return w.appendLog({ ...crawlRows()[0]!, url: `http://data.example.org/w${k}/${i}`, warcFile: file }).then((id) => ({ id, file }));
      }))));
      for (const w of workers) await w.flush();
      expect((await exec(workers[0]!, 'SELECT COUNT(*) AS n, COUNT(DISTINCT name) AS d FROM warc_files'))[0]).toEqual({ n: '12', d: '12' });
      const byId = new Map(logged.flat().map((l) => [l.id, l.file]));
      for (const w of workers) {
        const log = await w.log();
        expect(log).toHaveLength(36);
        for (const e of log) expect(e.warcFile).toBe(byId.get(e.id!));
      }
    } finally {
      for (const w of workers) await w.close();
    }
  });
});
