import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { catchUpVersions, openVersionStore, VERSIONS_FILE, type CatchUpProgress, type CatchUpResult } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import { queryCommand } from '../../src/cli/commands/query.ts';
import { crawlLog, LOADED_TIMEOUT_MS, readOnlyView, repoRoot, tempDir } from '../helpers.ts';
import { indexVersions } from './helpers.ts';
import { buildServer } from '../../src/server/index.ts';

/** The versioned store is derived from the archive: the crawler does not write it, readers catch it up. */
describe('the version index, caught up from the crawl log', () => {
  const DOCS = 40;
  let server: TestServer;
  /** d0.ttl says which generation of the site this is; the other documents never change. */
  let generation = 1;
  const docUrl = (i: number) => `${server.url}/d${i}.ttl`;
  const valueAt = (i: number) => (i === 0 ? `gen ${generation}` : `doc ${i}`);
  const crawlSite = (dataDir: string, onVersion?: Parameters<typeof crawl>[0]['onVersion']) =>
    crawl({
      seeds: Array.from({ length: DOCS }, (_, i) => docUrl(i)), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false,
      refetch: true, noFollow: true, domains: ['127.0.0.1'], onVersion,
    }).run();
  const d0Value = async (dataDir: string, at?: string) => {
    const json = JSON.parse(await queryCommand('SELECT ?o WHERE { <http://example.org/d0> <http://example.org/v> ?o }', { data: dataDir, json: true, at }));
    return json.results.bindings.map((b: { o: { value: string } }) => b.o.value);
  };
  const withLogRows = (dataDir: string) => crawlLog(dataDir).filter((e) => e.rdf_offset !== null);

  beforeAll(async () => {
    server = await startServer((_req, res, url) => {
      const m = /^\/d(\d+)\.ttl$/.exec(url.pathname);
      if (!m) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<http://example.org/d${m[1]}> <http://example.org/v> "${valueAt(Number(m[1]))}" .\n`);
    });
  });
  afterAll(() => server.close());

  it('query sees a crawl\'s versions; after a second crawl it indexes only the new log rows', async () => {
    generation = 1;
    const dataDir = tempDir();
    await crawlSite(dataDir);
    expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false); // the crawler no longer writes it
    expect(await d0Value(dataDir)).toEqual(['gen 1']);
    const rowsBefore = crawlLog(dataDir).length;
    const between = new Date().toISOString();

    generation = 2;
    await crawlSite(dataDir);
    const log = crawlLog(dataDir);
    const progress: CatchUpProgress[] = [];
    const { archive, result, close } = await indexVersions(dataDir, { batchRows: 7, onProgress: (p) => progress.push(p) });
    try {
      expect(result.rows).toBe(log.length - rowsBefore); // the first crawl's rows were not replayed again
      expect(result.versions).toBe(1); // only d0 changed
      expect(result).toMatchObject({ failed: 0, rebuilt: false, lastLogId: log.at(-1)!.id });
      expect(archive.indexedLogId()).toBe(log.at(-1)!.id);
      expect(archive.versions(docUrl(0))).toHaveLength(2);
      expect(archive.versions(docUrl(1))).toHaveLength(1);
      expect(progress.at(-1)).toMatchObject({ done: log.length - rowsBefore, total: log.length - rowsBefore });
    } finally {
      await close();
    }
    expect(await d0Value(dataDir)).toEqual(['gen 2']);
    expect(await d0Value(dataDir, between)).toEqual(['gen 1']);
    // Nothing new: a catch-up reads no row.
    const again = await indexVersions(dataDir);
    await again.close();
    expect(again.result.rows).toBe(0);
  }, LOADED_TIMEOUT_MS);

  it('two indexers catching up at once apply each log row once (in one process, and in two)', async () => {
    generation = 1;
    const dataDir = tempDir();
    await crawlSite(dataDir);
    generation = 2;
    await crawlSite(dataDir);
    const log = crawlLog(dataDir);

    // In one process, two connections: both read the same batches; the one that commits second must skip them.
    const store = await openStore(dataDir);
    await store.init();
    const a = openVersionStore(dataDir);
    const b = openVersionStore(dataDir);
    try {
      const [ra, rb] = await Promise.all([catchUpVersions(a, store, dataDir, { batchRows: 3 }), catchUpVersions(b, store, dataDir, { batchRows: 3 })]);
      expect(ra.rows + rb.rows).toBe(log.length);
      expect(ra.failed + rb.failed).toBe(0);
      expect(ra.versions + rb.versions).toBe(withLogRows(dataDir).length);
      expect(a.versions(docUrl(0)).map((v) => v.kind)).toEqual(['put', 'put']);
    } finally {
      await a.close();
      await b.close();
      await store.close();
    }

    // In two processes, on a fresh copy of the archive: SQLite's write lock orders them.
    const copy = tempDir();
    fs.cpSync(dataDir, copy, { recursive: true, filter: (src) => !path.basename(src).startsWith(VERSIONS_FILE) });
    const child = () => new Promise<CatchUpResult>((resolve, reject) => {
      const p = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/query/fixtures/catch-up-child.ts'), copy], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (err += d));
      p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!)) : reject(new Error(`indexer exited ${code}: ${err}`))));
    });
    const [c1, c2] = await Promise.all([child(), child()]);
    expect(c1.rows + c2.rows).toBe(log.length);
    expect(c1.failed + c2.failed).toBe(0);
    const check = await indexVersions(copy);
    try {
      expect(check.result.rows).toBe(0);
      expect(check.archive.stats().versions).toBe(withLogRows(dataDir).length);
    } finally {
      await check.close();
    }
  }, LOADED_TIMEOUT_MS);

  // A bulk catch-up reads the versions on a thread of its own (src/versions/version-reader.ts): the same loss there.
  it.each([
    ['read in process', { bulk: false, readThread: false }],
    ['read on the bulk load\'s thread', { bulk: true, readThread: true }],
  ])('a corrupt WARC record costs its version, not the index (%s)', async (_, opts) => {
    generation = 1;
    const dataDir = tempDir();
    await crawlSite(dataDir);
    const victim = crawlLog(dataDir).find((e) => e.url === docUrl(3))!;
    // Garbage over the middle of the gzip member holding d3's canonical N-Quads.
    const fd = fs.openSync(path.join(dataDir, victim.warc_file), 'r+');
    fs.writeSync(fd, Buffer.alloc(Math.min(40, victim.rdf_length - 20), 0xa5), 0, undefined, victim.rdf_offset + 10);
    fs.closeSync(fd);
    const { archive, result, close } = await indexVersions(dataDir, opts);
    try {
      expect(result.bulk).toBe(opts.bulk === true);
      expect(result.failed).toBe(1);
      expect(result.diagnostics).toEqual([expect.stringContaining(`log entry ${victim.id} (${docUrl(3)})`)]);
      expect(archive.graphs().map((g) => g.graph)).toHaveLength(DOCS - 1);
      expect(archive.versions(docUrl(3))).toEqual([]);
      expect(archive.indexedLogId()).toBe(crawlLog(dataDir).at(-1)!.id); // the index went past it
    } finally {
      await close();
    }
    expect(await d0Value(dataDir)).toEqual(['gen 1']);
  });

  it('a store written live by an older crawler (versions, no indexed log id) is rebuilt from the log, not replayed on top', async () => {
    generation = 1;
    const dataDir = tempDir();
    // What crawl() did before: every changed version written into versions.sqlite as it was captured.
    const live = openVersionStore(dataDir);
    await crawlSite(dataDir, (g, t, q) => live.putVersion(g, t, q).then(() => undefined));
    await live.putVersion('http://example.org/not-in-the-log', Date.now(), []); // a version the log cannot account for
    await live.close();
    const log = crawlLog(dataDir);
    const { archive, result, close } = await indexVersions(dataDir);
    try {
      expect(result).toMatchObject({ rebuilt: true, rows: log.length, versions: DOCS, failed: 0 });
      expect(archive.graphs().map((g) => g.graph)).not.toContain('http://example.org/not-in-the-log');
      expect(archive.stats().versions).toBe(DOCS);
    } finally {
      await close();
    }
    const again = await indexVersions(dataDir);
    await again.close();
    expect(again.result).toMatchObject({ rebuilt: false, rows: 0 });
  });

  it('serve catches the index up as soon as it is ready, before any query', async () => {
    generation = 1;
    const dataDir = tempDir();
    await crawlSite(dataDir);
    expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false);
    const app = await buildServer({ dataDir, token: 'x' });
    try {
      await app.ready();
      const last = crawlLog(dataDir).at(-1)!.id;
      let indexed = 0;
      for (let i = 0; i < 100 && indexed !== last; i++) {
        await new Promise((r) => setTimeout(r, 50));
        if (!fs.existsSync(path.join(dataDir, VERSIONS_FILE))) continue;
        const archive = openVersionStore(dataDir, { readonly: true });
        indexed = archive.indexedLogId() ?? 0;
        await archive.close();
      }
      expect(indexed).toBe(last);
    } finally {
      await app.close();
    }
  });

  it('a read-only data directory still answers (a temporary index, nothing written)', async () => {
    generation = 1;
    const dataDir = tempDir();
    await crawlSite(dataDir);
    const before = fs.readdirSync(dataDir).sort();
    const view = readOnlyView(dataDir);
    if (!view) {
      console.warn('\n*** SKIPPED: no read-only view of a directory can be made here (needs root for a read-only bind mount) ***\n');
      return;
    }
    try {
      const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'query', '--data', view.path, '--json', '--progress', 'none', 'SELECT ?o WHERE { <http://example.org/d0> ?p ?o }'],
          { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
        let out = '';
        let err = '';
        p.stdout.on('data', (d) => (out += d));
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => resolve({ code, out, err }));
      });
      // No warning or error (progress lines off: a loaded machine's catch-up lasts long enough to print them).
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).results.bindings.map((b: { o: { value: string } }) => b.o.value)).toEqual(['gen 1']);
      expect(fs.readdirSync(dataDir).sort()).toEqual(before);
    } finally {
      view.release();
    }
  }, LOADED_TIMEOUT_MS);
});
