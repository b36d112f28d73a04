/**
 * The worker loop without PostgreSQL: two `datamonitor worker --db FILE` processes share one SQLite
 * file (SqliteWorkerStore), as workers on one machine do. (Separate processes: two connections in
 * one thread would wait on each other's write lock.) Same checks as the
 * PostgreSQL test, on a smaller site: every page archived once, no host fetched by both at once,
 * WARC paths under each worker's id.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { runWorker } from '../../src/worker/worker.ts';
import { spawnWorker } from './spawn-worker.ts';
import { startMultiHostSite, SITE_DOMAIN, type MultiHostSite } from './multi-host-site.ts';

describe('two workers on one SQLite file', () => {
  let site: MultiHostSite;
  let tmp: string;
  beforeAll(async () => {
    site = await startMultiHostSite({ hosts: 6, pagesPerHost: 25, latencyMs: 2 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-sqlite-workers-'));
  });
  afterAll(async () => {
    await site?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('shares the hosts: each page archived once, never one host from both at once', async () => {
    const file = path.join(tmp, 'meta.sqlite');
    const seeds = path.join(tmp, 'seeds.txt');
    fs.writeFileSync(seeds, site.seeds.join('\n') + '\n');
    // Both get the seeds: adding known URLs again is a no-op. Idle means 1.5 s without work: at 300 ms this
    // test failed on a loaded machine, where a round of the other worker can take longer than that.
    const workers = [0, 1].map((i) => spawnWorker(`s${i}`, [
      '--db', file, '--data', path.join(tmp, `m${i}`), '--partition', `${i}/2`, '--seeds', seeds,
      '--lease', '2s', '--max-hosts', '2', '--idle-exit', '1500ms', '--delay', '5ms', '--per-host', '1', '--no-robots',
      '--user-agent', `dm-test s${i}`, '--allow-private', '--no-vocabularies', '--domain', SITE_DOMAIN, '--depth', '50',
      ...site.resolveFlags(), '--json',
    ]));
    const exits = await Promise.all(workers.map((w) => w.exited));
    for (const e of exits) expect(e.code, e.stderr).toBe(0);
    const results = exits.map((e) => JSON.parse(e.stdout));
    const store = new SqliteWorkerStore(file);
    await store.init();
    const log = (await store.log()).filter((e) => e.status === 200);
    await store.close();

    expect(results.map((r) => r.stoppedBy)).toEqual(['idle', 'idle']);
    expect(results[0].documents + results[1].documents).toBe(site.pages.length);
    const perUrl = new Map<string, number>();
    for (const e of log) perUrl.set(e.url, (perUrl.get(e.url) ?? 0) + 1);
    expect(perUrl.size).toBe(site.pages.length);
    expect([...perUrl.values()].every((n) => n === 1)).toBe(true);
    for (const e of log) {
      const id = e.warcFile!.split('/')[0];
      expect(['s0', 's1']).toContain(id);
      expect(fs.existsSync(path.join(tmp, `m${id.slice(1)}`, e.warcFile!))).toBe(true);
    }
    // A host's requests by one worker never overlap those of the other (start/end on the server).
    for (const host of site.hosts) {
      const reqs = site.requests.filter((r) => r.host === host).sort((a, b) => a.start - b.start);
      for (let i = 1; i < reqs.length; i++) if (reqs[i].userAgent !== reqs[i - 1].userAgent) expect(reqs[i].start).toBeGreaterThanOrEqual(reqs[i - 1].end);
      expect(reqs.length).toBe(25);
    }
    // Every host was leased by one of them, and all were given back.
    expect(results[0].hostsLeased + results[1].hostsLeased).toBeGreaterThanOrEqual(site.hosts.length);
  }, 240_000); // two CLI processes booting through tsx: 13 s at load 6, over 60 s at load 30

  it('stops with exit status 74 and gives its hosts back when its disk is short of space', async () => {
    const file = path.join(tmp, 'short.sqlite');
    const seeds = path.join(tmp, 'short-seeds.txt');
    fs.writeFileSync(seeds, site.seeds.join('\n') + '\n');
    const w = spawnWorker('short', [
      '--db', file, '--data', path.join(tmp, 'short'), '--seeds', seeds, '--lease', '30s', '--idle-exit', '300ms', '--delay', '5ms',
      '--no-robots', '--allow-private', '--no-vocabularies', '--domain', SITE_DOMAIN, ...site.resolveFlags(),
      '--min-free-space', '1000000GiB', '--json',
    ]);
    const exit = await w.exited;
    expect(exit.code, exit.stderr).toBe(74);
    expect(exit.stderr).toMatch(/worker stopped early: only .* free/);
    const summary = JSON.parse(exit.stdout);
    expect(summary).toMatchObject({ stoppedBy: 'disk-space', documents: 0 });
    // Its leases are given back at once, not left to expire: another worker can take the hosts now.
    const store = new SqliteWorkerStore(file);
    await store.init();
    expect(await store.activeLeases(Date.now())).toEqual([]);
    await store.close();
  }, 180_000); // one CLI process: 3 s at load 6, 50 s at load 30
});

describe('a worker round on a large shared store', () => {
  it('reads only its hosts\' queued URLs: the store\'s whole URL list once per worker, not once per round', async () => {
    // Answers slow enough that a host's 30 pages take several 150 ms rounds however fast the machine (at 1 ms, 2 rounds were seen).
    const site = await startMultiHostSite({ hosts: 4, pagesPerHost: 30, latencyMs: 20 });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-worker-rounds-'));
    try {
      const store = new SqliteWorkerStore(path.join(tmp, 'meta.sqlite'));
      await store.init();
      // What other workers archived before: 20,000 URLs, none of them work for this one.
      const archived = Array.from({ length: 20_000 }, (_, i) => ({ url: `http://elsewhere-${i % 50}.example/${i}`, host: `elsewhere-${i % 50}.example`, depth: 0 }));
      await store.addDocuments(archived);
      for (const d of archived) await store.updateDocument(d.url, { state: 'fetched', lastFetched: Date.now() });
      const calls = { documentUrlPages: 0, queuedDocuments: 0, countDocuments: 0 };
      const counted = new Proxy(store, {
        get(target, key) {
          const v = Reflect.get(target, key, target);
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            if (key in calls) calls[key as keyof typeof calls]++;
            return v.apply(target, args);
          };
        },
      });
      const summary = await runWorker({
        store: counted, id: 'w', dataDir: tmp, seeds: site.seeds, maxHosts: 2, roundMs: 150, leaseMs: 2000, idleExitMs: 300,
        crawl: {
          delayMs: 0, perHost: 2, robots: false, allowPrivate: true, vocabularies: false, domains: [SITE_DOMAIN], depth: 50, minFreeBytes: 0,
          resolve: Object.fromEntries(site.hosts.map((h) => [h, '127.0.0.1'])),
          // The WARC writer inline: each round's crawl would start a writer thread, and a thread booting the
          // sources through tsx took 4-6 s at load 29 (30 rounds: 134 s); the thread is not what this tests.
          threads: false,
        },
        signal: AbortSignal.timeout(150_000), // a safety net only: the worker ends by going idle (30 s cut it short on a loaded machine)
      });
      const log = (await store.log()).filter((e) => e.status === 200);
      await store.close();
      expect(new Set(log.map((e) => e.url)).size).toBe(site.pages.length);
      expect(log).toHaveLength(site.pages.length); // each page once
      expect(summary.stoppedBy).toBe('idle');
      expect(summary.rounds).toBeGreaterThan(2);
      expect(calls.documentUrlPages).toBe(1);
      expect(calls.queuedDocuments).toBe(0);
    } finally {
      await site.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('a SQLite file seeded by a plain crawl', () => {
  it('is leasable by workers: the hosts of the documents already there get their lease rows', async () => {
    const site = await startMultiHostSite({ hosts: 2, pagesPerHost: 5, latencyMs: 1 });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-seeded-'));
    try {
      const resolve = Object.fromEntries(site.hosts.map((h) => [h, '127.0.0.1']));
      // What docs/workers.md says to do once: put the seeds in the store, fetch nothing.
      const { crawl } = await import('../../src/crawler/crawl.ts');
      await crawl({ seeds: site.seeds, dataDir: tmp, maxDocs: 0, allowPrivate: true, domains: [SITE_DOMAIN], resolve }).run();
      const store = new SqliteWorkerStore(path.join(tmp, 'meta.sqlite'));
      await store.init();
      const s = await runWorker({
        store, id: 'w', dataDir: tmp, idleExitMs: 300, leaseMs: 2000,
        crawl: { delayMs: 0, robots: false, allowPrivate: true, vocabularies: false, domains: [SITE_DOMAIN], depth: 50, minFreeBytes: 0, resolve, threads: false }, // (inline writer: as above)
        signal: AbortSignal.timeout(150_000), // a safety net only: the worker ends by going idle (30 s cut it short on a loaded machine)
      });
      const fetched = new Set((await store.log()).filter((e) => e.status === 200).map((e) => e.url));
      await store.close();
      expect(s.stoppedBy).toBe('idle');
      expect(fetched.size).toBe(site.pages.length);
      // `stats` finds the worker's WARC files under its id, as `verify` and the server do.
      const { spawnSync } = await import('node:child_process');
      const stats = JSON.parse(spawnSync(process.execPath, [path.join(import.meta.dirname, '../../bin/datamonitor.mjs'), 'stats', '--data', tmp, '--json'], { encoding: 'utf8' }).stdout);
      expect(stats.warc.files).toBeGreaterThanOrEqual(1);
      expect(stats.warc.bytes).toBeGreaterThan(0);
    } finally {
      await site.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 180_000);
});
