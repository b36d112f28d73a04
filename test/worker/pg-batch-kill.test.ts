/**
 * A worker on PostgreSQL killed in the middle of a write batch (src/store/pg-batch.ts): SIGKILL while
 * pages it fetched and archived wait uncommitted. The store it leaves is consistent (every committed
 * log row has its document marked fetched, every fetched document its row, the pages of the lost
 * batch are still queued or not yet known), and a second worker, once the dead one's leases expire, completes the
 * crawl: every page archived exactly once, and only pages of the lost batch fetched twice.
 * Real processes, real PostgreSQL (skips loudly without it), a real HTTP site on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from '../store/pg.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { hostOf } from '../../src/frontier/normalize.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { SITE_DOMAIN, startMultiHostSite, type MultiHostSite } from './multi-host-site.ts';
import { spawnWorker } from './spawn-worker.ts';

const pgBase = await pgBaseUrl();

describe.skipIf(!pgBase)('a PostgreSQL worker killed mid-batch', () => {
  let site: MultiHostSite;
  let tmp: string;
  let db: string;
  beforeAll(async () => {
    site = await startMultiHostSite({ hosts: 6, pagesPerHost: 40, latencyMs: 2 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-batch-kill-'));
    db = isolatedSchemaUrl(pgBase!, 'dm_batch_kill');
  });
  afterAll(async () => {
    await site?.close();
    if (db) await dropSchema(db).catch(() => undefined);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const args = (id: string, extra: string[]) => [
    '--db', db, '--data', tmp, '--lease', '2s', '--max-hosts', '6', '--idle-exit', '1s', '--delay', '0', '--per-host', '2',
    '--concurrency', '12', '--user-agent', `dm-test ${id}`, '--allow-private', '--no-vocabularies', '--domain', SITE_DOMAIN, '--depth', '50',
    ...site.resolveFlags(), '--json', ...extra,
  ];
  const pageUrl = (r: { host: string; path: string }) => `http://${r.host}:${site.port}${r.path}`;
  const fetchedBy = (agent: string) => site.requests.filter((r) => r.userAgent === `dm-test ${agent}` && r.path.startsWith('/p/')).map(pageUrl);

  it('leaves a consistent store, and another worker archives every page exactly once', async () => {
    const watcher = new PostgresStore(db, { max: 1 });
    try {
      await watcher.init();
      await watcher.addDocuments(site.seeds.map((url) => ({ url, host: hostOf(url), depth: 0 })));
      // Big batches that wait long: they commit only when the worker renews its leases (every lease/3)
      // or reads something else, so pages fetched since then wait in memory.
      const victim = spawnWorker('victim', args('victim', ['--batch', '1000', '--batch-wait', '60s']));
      let uncommitted: string[] = [];
      for (let i = 0; ; i++) {
        // Pages only: a first commit may hold no more than the robots.txt each worker archives (a prerequisite row).
        const logged = new Set((await watcher.log()).filter((e) => e.reason !== 'prerequisite').map((e) => e.url));
        uncommitted = fetchedBy('victim').filter((u) => !logged.has(u));
        // Mid-batch: some pages committed already, and at least ten archived but not committed.
        if (logged.size > 0 && uncommitted.length >= 10) break;
        if (i > 1500) throw new Error(`never caught the worker mid-batch (${logged.size} logged, ${uncommitted.length} waiting)`);
        await new Promise((r) => setTimeout(r, 10));
      }
      victim.child.kill('SIGKILL');
      expect((await victim.exited).signal).toBe('SIGKILL');
      // What it had fetched by the time it died (requests in flight included).
      const loggedAtDeath = new Set((await watcher.log()).map((e) => e.url));
      const lost = new Set(fetchedBy('victim').filter((u) => !loggedAtDeath.has(u)));
      expect(lost.size).toBeGreaterThanOrEqual(10);

      // Consistent: log rows and document states agree, and the lost batch's pages are queued, not half-written.
      // robots.txt is archived as each worker asks for it (a prerequisite row): no page, no documents row.
      const log = (await watcher.log()).filter((e) => e.reason !== 'prerequisite');
      const docs = await watcher.getDocuments(site.pages);
      const logged = new Set(log.map((e) => e.url));
      expect(docs.filter((d) => d.state === 'fetched').map((d) => d.url).sort()).toEqual([...logged].sort());
      // A lost page is queued, or unknown when the page that found it was lost too (it is found again when that one is fetched again).
      for (const u of lost) expect(['queued', undefined], u).toContain(docs.find((d) => d.url === u)?.state);

      // Another worker takes the hosts over once the dead one's leases lapse and finishes the crawl.
      const rescuer = spawnWorker('rescuer', args('rescuer', []));
      const done = await rescuer.exited;
      expect(done.code, done.stderr).toBe(0);

      const final = (await watcher.log()).filter((e) => e.status === 200 && e.warcFile && e.reason !== 'prerequisite');
      const perPage = new Map<string, number>();
      for (const e of final) perPage.set(e.url, (perPage.get(e.url) ?? 0) + 1);
      expect(perPage.size).toBe(site.pages.length);
      expect([...perPage].filter(([, n]) => n !== 1)).toEqual([]);
      expect(await watcher.countDocuments('queued')).toBe(0);
      // Fetched twice: exactly pages the victim fetched and never committed, each once more.
      const requests = new Map<string, number>();
      for (const r of site.requests) if (r.path.startsWith('/p/')) requests.set(pageUrl(r), (requests.get(pageUrl(r)) ?? 0) + 1);
      const twice = [...requests].filter(([, n]) => n > 1);
      expect(twice.length).toBeGreaterThan(0);
      for (const [u, n] of twice) {
        expect(lost.has(u), u).toBe(true);
        expect(n, u).toBe(2);
      }
      // Export (the reads serve and query make) finds every page once, from both workers' WARC files.
      const out = await exportArchive(watcher, tmp, 'nquads', () => undefined);
      expect(out.documents).toBe(site.pages.length);
      expect(new Set(final.map((e) => e.warcFile!.split('/')[0]))).toEqual(new Set(['victim', 'rescuer']));
    } finally {
      await watcher.close();
    }
  }, 120_000);
});
