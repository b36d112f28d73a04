/**
 * The metadata file rewritten whole after a crawl (src/store/compact.ts): URLs come in no order and rows grow when
 * fetched, which leaves pages of the documents and of the log's URL index part empty. The rewrite gives that back,
 * every row reads the same after it, a reader open meanwhile keeps answering, and a file with little empty is left
 * as it is.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { compactSqliteFile } from '../../src/store/compact.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';
import type { CrawlLogEntry } from '../../src/store/types.ts';
import { startSyntheticSite } from '../../src/testkit/synthetic-site.ts';
import { LOADED_TIMEOUT_MS, repoRoot, runMain, tempDir, warcFiles } from '../helpers.ts';

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

/**
 * Another process in the middle of a read of `file` (a `serve` answering a query at T on a large archive): its snapshot,
 * taken before the rewrite, is held for `holdMs`. Resolves once the snapshot is taken; `ended` once the reader is gone.
 */
async function readerHolding(file: string, holdMs: number): Promise<{ ended: Promise<unknown>; stop: () => void }> {
  const script = `const db = new (require('better-sqlite3'))(${JSON.stringify(file)}, { readonly: true });
db.exec('BEGIN'); db.prepare('SELECT count(*) FROM documents').get();
process.stdout.write('holding\\n');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const ended = once(child, 'exit');
  let out = '';
  for await (const chunk of child.stdout) if ((out += chunk).includes('holding')) break;
  if (!out.includes('holding')) throw new Error(`the reader process ended before reading: ${out}`);
  return { ended, stop: () => child.kill() };
}

const walSize = (file: string) => fs.statSync(file + '-wal', { throwIfNoEntry: false })?.size ?? 0;

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
    const c = await compactSqliteFile(file, { minEmptyBytes: 0 });
    expect(c).toBeDefined();
    expect(c!.freedBytes).toBeGreaterThan(size * 0.04);
    expect(fs.statSync(file).size).toBe(size - c!.freedBytes);
    expect(await reader.countDocuments('fetched')).toBe(20_000);
    expect((await reader.getDocument('http://data3.lod.test/doc/000010'))?.graphHash).toBe((10 * 2654435761 >>> 0).toString(16).padStart(64, '0'));
    await reader.close();
    expect(dump(file)).toEqual(before);
    expect(before.check).toBe('ok');
    // Nothing left to give: a second look leaves it.
    expect(await compactSqliteFile(file, { minEmptyBytes: 0 })).toBeUndefined();
  }, 120_000);

  it('leaves the file of a small crawl as it is: a rewrite there gives back less than it costs', async () => {
    const file = await crawled(2_000);
    const size = fs.statSync(file).size;
    expect(await compactSqliteFile(file)).toBeUndefined();
    expect(fs.statSync(file).size).toBe(size);
  }, 60_000);

  it('waits for a reader in the middle of a read to empty the WAL: the rewrite does not stay on disk twice', async () => {
    const file = await crawled(20_000);
    // Held well past the first 5 s try, so that even a slow rewrite on a loaded machine meets the reader still there.
    const reader = await readerHolding(file, 15_000);
    let waited = 0;
    const t0 = performance.now();
    // The store's busy timeout (5 s) alone gave up on the reader and left the whole rewrite in meta.sqlite-wal.
    const c = await compactSqliteFile(file, { minEmptyBytes: 0, onWaiting: () => waited++ });
    expect(c).toBeDefined();
    expect(waited).toBe(1);
    expect(performance.now() - t0).toBeGreaterThan(5_000);
    expect(c!.walBytes).toBe(0);
    expect(walSize(file)).toBe(0);
    await reader.ended;
    expect(dump(file).check).toBe('ok');
  }, 120_000);

  it('says what stays in the WAL when a reader outlasts the wait, and the next writer folds it in', async () => {
    const file = await crawled(20_000);
    // Held long enough that the rewrite is over before it ends, on a loaded machine too.
    const reader = await readerHolding(file, 8_000);
    const c = await compactSqliteFile(file, { minEmptyBytes: 0, readerWaitMs: 200 });
    expect(c!.walBytes).toBeGreaterThan(fs.statSync(file).size / 2);
    expect(walSize(file)).toBe(c!.walBytes);
    await reader.ended;
    const store = new SqliteStore(file);
    await store.init();
    await store.close();
    expect(walSize(file)).toBe(0);
    expect(dump(file).check).toBe('ok');
  }, 120_000);

  it('stops waiting for readers when asked (a Ctrl-C), and says what stayed in the WAL', async () => {
    const file = await crawled(20_000);
    const reader = await readerHolding(file, 30_000);
    const stop = new AbortController();
    const t0 = performance.now();
    // The wait runs between tries on the event loop: this timer fires during it.
    setTimeout(() => stop.abort(), 1_000);
    const c = await compactSqliteFile(file, { minEmptyBytes: 0, signal: stop.signal });
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(c!.walBytes).toBeGreaterThan(0);
    expect(walSize(file)).toBe(c!.walBytes);
    reader.stop();
    await reader.ended;
    expect(dump(file).check).toBe('ok');
  }, 120_000);
});

/** Leaves `bytes` of free pages in an archive's metadata file, as a large crawl's dropped rows and split pages would. */
function emptied(dataDir: string, bytes: number): number {
  const db = new Database(path.join(dataDir, 'meta.sqlite'));
  try {
    db.exec('CREATE TABLE scratch (b BLOB)');
    const add = db.prepare('INSERT INTO scratch VALUES (?)');
    for (let n = 0; n < bytes; n += 100_000) add.run(Buffer.alloc(100_000, n % 251));
    db.exec('DROP TABLE scratch');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return fs.statSync(path.join(dataDir, 'meta.sqlite')).size;
}

describe('the commands that write an archive end with the rewrite', () => {
  it('crawl and import give back a metadata file\'s empty pages as they end, and say so', async () => {
    const site = await startSyntheticSite({ pages: 30, linksPerPage: 3 });
    try {
      const crawlArgs = (dir: string) => ['crawl', site.seed, '--data', dir, '--allow-private', '--delay', '0', '--no-vocabularies', '--domain', '127.0.0.1', '--json'];
      const a = tempDir('dm-compact-crawl-');
      const first = await runMain(crawlArgs(a));
      expect(first.code).toBe(0);
      expect(first.err).not.toMatch(/rewritten whole/); // a small crawl's file has nothing worth a rewrite
      const inflated = emptied(a, 12 * 1048576);
      const again = await runMain(crawlArgs(a));
      expect(again.code).toBe(0);
      expect(again.err).toMatch(/metadata store rewritten whole in [\d.]+ s: 1[12]\.\d MiB of part-empty pages given back/);
      expect(fs.statSync(path.join(a, 'meta.sqlite')).size).toBeLessThan(inflated - 11 * 1048576);
      JSON.parse(again.out); // --json's summary stays the only thing on stdout

      const b = tempDir('dm-compact-import-');
      const files = warcFiles(a);
      expect((await runMain(['import', '--data', b, ...files])).code).toBe(0);
      const before = emptied(b, 12 * 1048576);
      const imported = await runMain(['import', '--data', b, ...files]);
      expect(imported.code).toBe(0);
      expect(imported.err).toMatch(/metadata store rewritten whole/);
      expect(fs.statSync(path.join(b, 'meta.sqlite')).size).toBeLessThan(before - 11 * 1048576);
    } finally {
      await site.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('a Ctrl-C while the crawl waits for a reader ends the wait, not the archive', async () => {
    const site = await startSyntheticSite({ pages: 30, linksPerPage: 3 });
    const dir = tempDir('dm-compact-signal-');
    const args = ['crawl', site.seed, '--data', dir, '--allow-private', '--delay', '0', '--no-vocabularies', '--domain', '127.0.0.1', '--json'];
    try {
      expect((await runMain(args)).code).toBe(0);
      emptied(dir, 12 * 1048576);
      // A serve's read in progress across the next crawl's end.
      const reader = await readerHolding(path.join(dir, 'meta.sqlite'), 120_000);
      const crawl = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = once(crawl, 'exit');
      let err = '';
      let interrupted = false;
      crawl.stderr.on('data', (d) => {
        err += d;
        if (!interrupted && err.includes('Ctrl-C stops waiting')) interrupted = crawl.kill('SIGINT');
      });
      const waitedFrom = performance.now();
      const [code] = await exited;
      reader.stop();
      await reader.ended;
      expect(err).toContain('Ctrl-C stops waiting');
      expect(code).toBe(0); // the crawl was done: only the wait was cut short
      expect(err).toMatch(/a reader still holds the old pages: the file keeps its size and [\d.]+ (?:B|KiB|MiB) of the rewrite stay in .*meta\.sqlite-wal/);
      expect(walSize(path.join(dir, 'meta.sqlite'))).toBeGreaterThan(0);
      expect(performance.now() - waitedFrom).toBeLessThan(60_000);
      const db = new Database(path.join(dir, 'meta.sqlite'), { readonly: true });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
    } finally {
      await site.close();
    }
  }, LOADED_TIMEOUT_MS);
});
