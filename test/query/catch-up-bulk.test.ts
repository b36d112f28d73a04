import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { crawl } from '../../src/crawler/crawl.ts';
import { startLinkedDataWeb, type LinkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { catchUpVersions, LiveIndex, openVersionStore, VERSIONS_FILE, type CatchUpProgress, type VersionArchive } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import type { CrawlLog } from '../../src/store/types.ts';
import { nquadLine } from '../../src/versions/sqlite-store.ts';
import { cli, crawlLog, repoRoot, tempDir } from '../helpers.ts';
import { indexVersions } from './helpers.ts';

/**
 * A first catch-up after a crawl loads in bulk: the read indexes come down, the versions go in, the
 * indexes are built once at the end. What a user must not see: a different archive, an index left
 * without its indexes, or versions applied twice when the catch-up is killed half-way and run again.
 */
describe('a bulk catch-up of a crawled Web of Linked Data', () => {
  const DOCS = 60;
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  let crawled: string;

  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: DOCS, hosts: 6 });
    proxy = await startForwardProxy((host) => (host.endsWith('.lod.test') ? web.port : undefined));
    crawled = tempDir();
    await crawl({
      seeds: [web.seed], dataDir: crawled, proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 50,
      delayMs: 0, perHost: 4, domains: ['lod.test'], vocabularies: false,
    }).run();
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  /** The Web crawled into `dataDir` at this politeness. */
  const crawlWeb = (dataDir: string, politeness: { delayMs: number; perHost: number }) => crawl({
    seeds: [web.seed], dataDir, proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 50, domains: ['lod.test'], vocabularies: false, ...politeness,
  }).run();
  /** A copy of the crawled archive without its versions.sqlite. */
  const copy = (): string => {
    const dir = tempDir();
    fs.cpSync(crawled, dir, { recursive: true, filter: (src) => !path.basename(src).startsWith(VERSIONS_FILE) });
    return dir;
  };
  /** What queries see: every graph's versions and the quads valid now, as sorted lines. */
  const contents = (archive: VersionArchive) => ({
    graphs: archive.graphs(),
    quads: [...archive.snapshot(Date.now())].map(nquadLine).sort(),
  });
  const indexNames = (dataDir: string): string[] => {
    const db = new Database(path.join(dataDir, VERSIONS_FILE), { readonly: true });
    try {
      return db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all().map((r) => r.name);
    } finally {
      db.close();
    }
  };
  /** A copy of the crawl with its log and version store open, and `loggedThrough`: its log as a crawl sees it that has logged up to an id. */
  const midCrawl = async () => {
    const dataDir = copy();
    const store = await openStore(dataDir);
    await store.init();
    const archive = openVersionStore(dataDir);
    const log = crawlLog(dataDir);
    const loggedThrough = (last: () => number): CrawlLog => Object.assign(Object.create(store) as CrawlLog, {
      log: async (q: Parameters<CrawlLog['log']>[0]) => (await store.log(q)).filter((e) => e.id! <= last()),
    });
    return { dataDir, store, archive, log, half: log[Math.floor(log.length / 2)]!.id as number, loggedThrough };
  };
  const versionsInLog = (dataDir: string) => crawlLog(dataDir).filter((e) => e.rdf_offset !== null).length;

  // In bulk the versions are read on a thread, the next batch while one is written (src/versions/version-reader.ts), or in process.
  it.each([true, false])('gives the same archive as a row-by-row catch-up, with every index in place (read on a thread: %s)', async (readThread) => {
    const rowByRow = copy();
    const bulk = copy();
    const a = await indexVersions(rowByRow, { bulk: false });
    const phases: CatchUpProgress['phase'][] = [];
    const b = await indexVersions(bulk, { bulk: true, readThread, batchRows: 50, onProgress: (p) => phases.push(p.phase) });
    try {
      expect(a.result.bulk).toBe(false);
      expect(b.result).toMatchObject({ bulk: true, failed: 0, versions: versionsInLog(bulk), rows: crawlLog(bulk).length });
      expect(a.result.versions).toBe(b.result.versions);
      expect(b.result.versions).toBeGreaterThanOrEqual(DOCS);
      expect(contents(b.archive)).toEqual(contents(a.archive));
      expect(b.archive.missingIndexes()).toEqual([]);
      expect(phases.at(-1)).toBe('indexes'); // the progress line says what the last seconds are spent on
    } finally {
      await a.close();
      await b.close();
    }
    expect(indexNames(bulk)).toEqual(indexNames(rowByRow));
  });

  it('a follower of a running crawl loads on with the read indexes down; its last catch-up builds them once', async () => {
    const { dataDir, store, archive, log, half, loggedThrough } = await midCrawl();
    // The crawl has logged half its rows when the follower first looks.
    const sofar = loggedThrough(() => half);
    const freshDir = copy();
    const fresh = await indexVersions(freshDir, { bulk: false });
    try {
      const first = await catchUpVersions(archive, sofar, dataDir, { bulk: true, keepIndexesDown: true });
      expect(first).toMatchObject({ bulk: true, failed: 0, lastLogId: half });
      expect(archive.missingIndexes().length).toBeGreaterThan(0);
      // Not every second: the next catch-up finds them down and loads without them.
      const second = await catchUpVersions(archive, store, dataDir, { keepIndexesDown: true });
      expect(second).toMatchObject({ bulk: true, failed: 0, rows: log.filter((e) => e.id > half).length });
      expect(archive.missingIndexes().length).toBeGreaterThan(0);
      const last = await catchUpVersions(archive, store, dataDir);
      expect(last.rows).toBe(0);
      expect(archive.missingIndexes()).toEqual([]);
      expect(contents(archive)).toEqual(contents(fresh.archive));
    } finally {
      await archive.close();
      await store.close();
      await fresh.close();
    }
    expect(indexNames(dataDir)).toEqual(indexNames(freshDir));
  });

  it('a catch-up indexes the rows logged when it began, not those a crawl logs while it runs', async () => {
    const { dataDir, store, archive, log, half, loggedThrough } = await midCrawl();
    // The crawl has logged half its rows when the catch-up begins, and the rest while it runs.
    let visible = half;
    const growing = loggedThrough(() => visible);
    try {
      const first = await catchUpVersions(archive, growing, dataDir, { batchRows: 10, onProgress: () => { visible = Number.MAX_SAFE_INTEGER; } });
      expect(first.failed).toBe(0);
      // It stops at the batch that reaches the last row there was when it began (a query answers then; a live
      // index decides anew how to load the rest).
      expect(first.lastLogId).toBeGreaterThanOrEqual(half);
      expect(first.lastLogId).toBeLessThan(log.at(-1)!.id);
      const second = await catchUpVersions(archive, growing, dataDir);
      expect(second).toMatchObject({ failed: 0, lastLogId: log.at(-1)!.id, rows: log.length - first.rows });
    } finally {
      await archive.close();
      await store.close();
    }
  });

  it('a live index keeps versions.sqlite current during a crawl: the first query after it has nothing to index', async () => {
    const dataDir = tempDir();
    const live = LiveIndex.start(dataDir, { intervalMs: 100 });
    await crawl({
      seeds: [web.seed], dataDir, proxy: proxy.url, resolve: {}, allowPrivate: true, depth: 50,
      delayMs: 0, perHost: 4, domains: ['lod.test'], vocabularies: false,
    }).run();
    const summary = await live.stop();
    expect(summary.diagnostics).toEqual([]); // first: a failure says why
    expect(summary).toMatchObject({ failed: 0, versions: versionsInLog(dataDir), rows: crawlLog(dataDir).length, lastLogId: crawlLog(dataDir).at(-1)!.id });
    const after = await indexVersions(dataDir);
    const fresh = await indexVersions(copy(), { bulk: false });
    try {
      expect(after.result.rows).toBe(0);
      expect(after.archive.missingIndexes()).toEqual([]);
      // The same documents and triples as a catch-up of the crawl that ran without it.
      expect(after.archive.graphs().map((g) => [g.graph, g.triples])).toEqual(fresh.archive.graphs().map((g) => [g.graph, g.triples]));
    } finally {
      await after.close();
      await fresh.close();
    }
  }, 120_000);

  it('a follower whose catch-ups, one version at a time, take as long as its pause loads on in bulk; a polite crawl\'s keeps the indexes up', async () => {
    // A pause of 1 ms: any catch-up with rows takes longer, as a crawl at --delay 0 outruns one that keeps every index up.
    // The crawl itself is paced (100 ms between a host's requests, about 2 s in all) so that it outlasts the follower's
    // start and its first catch-ups: one that ended first would leave the follower only its last.
    const fast = tempDir();
    const eager = LiveIndex.start(fast, { intervalMs: 1 });
    await crawlWeb(fast, { delayMs: 100, perHost: 1 });
    const loaded = await eager.stop();
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.bulkCatchUps).toBeGreaterThan(0);
    expect(loaded).toMatchObject({ failed: 0, versions: versionsInLog(fast), rows: crawlLog(fast).length });
    // A catch-up every 2 s, a crawl waiting 400 ms between a host's requests: each catch-up indexes a few dozen rows in
    // tens of milliseconds, far from its pause even on a loaded machine.
    const polite = tempDir();
    const follower = LiveIndex.start(polite, { intervalMs: 2_000 });
    await crawlWeb(polite, { delayMs: 400, perHost: 1 });
    const kept = await follower.stop();
    expect(kept.catchUps).toBeGreaterThan(2);
    expect(kept.bulkCatchUps).toBe(0);
    const freshDir = copy();
    const fresh = await indexVersions(freshDir, { bulk: false });
    try {
      // Either way the same triples, and every read index in place once the crawl is over.
      for (const dir of [fast, polite]) {
        const after = await indexVersions(dir);
        try {
          expect(after.result.rows).toBe(0);
          expect(after.archive.missingIndexes()).toEqual([]);
          expect(contents(after.archive).quads).toEqual(contents(fresh.archive).quads);
        } finally {
          await after.close();
        }
        expect(indexNames(dir)).toEqual(indexNames(freshDir));
      }
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it("the live index's last catch-up tells the crawl's user how far it is", async () => {
    const dataDir = copy();
    // No look before the stop: the last catch-up does it all, as when a crawl outran its index.
    const live = LiveIndex.start(dataDir, { intervalMs: 600_000 });
    const heard: CatchUpProgress[] = [];
    const summary = await live.stop((p) => heard.push(p));
    const rows = crawlLog(dataDir).length;
    expect(summary).toMatchObject({ catchUps: 1, failed: 0, rows, versions: versionsInLog(dataDir) });
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.at(-1)).toMatchObject({ phase: 'versions', done: rows, total: rows });
  });

  it('crawl keeps the index current by default, says so after its summary, and leaves it at the crawl\'s last log row', async () => {
    const dataDir = tempDir();
    const r = await cli(['crawl', web.seed, '--data', dataDir, '--proxy', proxy.url, '--allow-private', '--domain', 'lod.test', '--depth', '50',
      '--delay', '0', '--per-host', '4', '--no-vocabularies', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).documents).toBeGreaterThan(DOCS); // stdout stays one JSON document
    const versions = versionsInLog(dataDir);
    expect(r.err).toContain(`version index kept current: ${versions} versions indexed`);
    const index = openVersionStore(dataDir, { readonly: true });
    try {
      expect(index.indexedLogId()).toBe(crawlLog(dataDir).at(-1)!.id);
      expect(index.stats().versions).toBe(versions);
      expect(index.missingIndexes()).toEqual([]);
    } finally {
      await index.close();
    }
  }, 120_000);

  it('crawl --no-live-index leaves the indexing to the first query', async () => {
    const dataDir = tempDir();
    const r = await cli(['crawl', web.seed, '--data', dataDir, '--proxy', proxy.url, '--allow-private', '--domain', 'lod.test', '--depth', '50',
      '--delay', '0', '--per-host', '4', '--no-vocabularies', '--no-live-index']);
    expect(r.code).toBe(0);
    expect(r.err).not.toContain('version index kept current');
    expect(fs.existsSync(path.join(dataDir, VERSIONS_FILE))).toBe(false);
    const q = await cli(['query', '--data', dataDir, 'SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }', '--json']);
    expect(q.code).toBe(0);
    expect(Number(JSON.parse(q.out).results.bindings[0].n.value)).toBeGreaterThan(0);
  }, 120_000);

  it('a query while a crawl loads the index in bulk says why it is slower, and answers the same', async () => {
    const dataDir = copy();
    const COUNT_LABELS = 'SELECT (COUNT(*) AS ?n) WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?o }';
    const count = (out: string) => Number(JSON.parse(out).results.bindings[0].n.value);
    const before = await cli(['query', '--data', dataDir, '--json', COUNT_LABELS]);
    expect(before.code).toBe(0);
    expect(before.err).not.toContain('in bulk');
    // Another process in the middle of a bulk load: the read indexes dropped, its pid recorded, as catch-up.ts does.
    const file = path.join(dataDir, VERSIONS_FILE);
    const loader = spawn(process.execPath, ['-e', `const db = new (require('better-sqlite3'))(${JSON.stringify(file)});
for (const i of ['quads_by_sp', 'quads_by_op', 'quads_by_p']) db.exec('DROP INDEX ' + i);
db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('bulk_loader_pid', ?)").run(process.pid);
db.close(); process.stdout.write('loading\\n'); setInterval(() => {}, 1000);`], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const gone = new Promise((r) => loader.once('exit', r));
    try {
      await new Promise<void>((resolve) => loader.stdout.on('data', (d: Buffer) => d.toString().includes('loading') && resolve()));
      const during = await cli(['query', '--data', dataDir, '--json', COUNT_LABELS]);
      expect(during.code).toBe(0);
      expect(during.err).toContain(`note: a crawl (process ${loader.pid}) is loading this archive's index in bulk`);
      expect(count(during.out)).toBe(count(before.out));
    } finally {
      loader.kill();
      await gone;
    }
    // The loader gone, the next query's catch-up builds what it dropped, and says nothing.
    const after = await cli(['query', '--data', dataDir, '--json', COUNT_LABELS]);
    expect(after.err).not.toContain('in bulk');
    expect(count(after.out)).toBe(count(before.out));
    expect(indexNames(dataDir)).toContain('quads_by_sp');
  }, 120_000);

  it('a catch-up killed half-way resumes where it stopped: nothing doubled, indexes restored', async () => {
    const dataDir = copy();
    const logRows = crawlLog(dataDir).length;
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/run-ts.mjs'), path.join(repoRoot, 'test/query/fixtures/catch-up-stalls.ts'), dataDir, '25'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((r) => child.once('exit', r));
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    // The first batch is committed when the child reports it; then it stalls, and is killed.
    const first = await new Promise<CatchUpProgress>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      child.once('exit', (code) => reject(new Error(`the indexer exited (${code}) before its first batch: ${err}`)));
    });
    expect(first).toMatchObject({ phase: 'versions', done: 25 });
    try {
      // While the loader lives, opening the store for writing leaves its indexes down (it builds them once, at its end).
      const meanwhile = openVersionStore(dataDir);
      expect(meanwhile.missingIndexes().length).toBeGreaterThan(0);
      await meanwhile.close();
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const indexedAtKill = (() => {
      const s = openVersionStore(dataDir, { readonly: true });
      try {
        return s.indexedLogId()!;
      } finally {
        void s.close();
      }
    })();
    expect(indexedAtKill).toBe(crawlLog(dataDir)[24].id); // the committed batch, nothing of the one in flight

    const resumed = await indexVersions(dataDir);
    const fresh = await indexVersions(copy(), { bulk: false });
    try {
      expect(resumed.result.rows).toBe(logRows - 25); // only the rows after the kill
      expect(resumed.result.failed).toBe(0);
      expect(resumed.archive.stats().versions).toBe(versionsInLog(dataDir)); // each version once
      expect(resumed.archive.missingIndexes()).toEqual([]);
      expect(contents(resumed.archive)).toEqual(contents(fresh.archive));
    } finally {
      await resumed.close();
      await fresh.close();
    }
  }, 60_000);
});
