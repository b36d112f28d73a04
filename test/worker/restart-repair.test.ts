/**
 * A worker killed mid-crawl leaves `.warc.gz.open` files: records appended but not yet logged. When it
 * starts again with the same id it must repair them at once (cut back to the last logged record,
 * closed), also when it finds no work: before, the repair ran only inside a crawl round, so a worker
 * that came back to a finished schedule left its files open and unreadable by `verify` and `serve`.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { runWorker } from '../../src/worker/worker.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { startMultiHostSite, SITE_DOMAIN } from './multi-host-site.ts';
import { tempDir } from '../helpers.ts';

describe('a restarted worker', () => {
  it('repairs the WARC files its killed predecessor left open when it starts, though no work is left', async () => {
    const site = await startMultiHostSite({ hosts: 1, pagesPerHost: 6, latencyMs: 1 });
    const root = tempDir('dm-worker-restart-');
    const resolve = Object.fromEntries(site.hosts.map((h) => [h, '127.0.0.1']));
    const crawl = { delayMs: 0, robots: false, allowPrivate: true, vocabularies: false, domains: [SITE_DOMAIN], depth: 50, minFreeBytes: 0, resolve };
    try {
      const store = new SqliteWorkerStore(path.join(root, 'meta.sqlite'));
      await store.init();
      const first = await runWorker({ store, id: 'w1', dataDir: root, seeds: site.seeds, idleExitMs: 200, leaseMs: 2000, crawl, signal: AbortSignal.timeout(30_000) });
      expect(first.documents).toBe(site.pages.length);
      expect(first.recovered).toEqual({ repaired: [], removed: [] });

      // The state a SIGKILL leaves: the last file still open, with a record written after the last
      // logged one (garbage no log entry points to), and a file opened with no logged record at all.
      const warcRoot = path.join(root, 'w1', 'warc');
      const files = (fs.readdirSync(warcRoot, { recursive: true }) as string[]).filter((f) => f.endsWith('.warc.gz')).map((f) => path.join(warcRoot, f));
      expect(files.length).toBeGreaterThan(0);
      const victim = files[0]!;
      const size = fs.statSync(victim).size;
      fs.renameSync(victim, `${victim}.open`);
      fs.appendFileSync(`${victim}.open`, Buffer.alloc(3000, 0x1f));
      const orphan = path.join(path.dirname(victim), 'datamonitor-orphan.warc.gz');
      fs.writeFileSync(`${orphan}.open`, Buffer.alloc(500, 0x1f));
      const before = await verifyArchive(root, store);
      expect(before.problemCount + before.openFiles.length).toBeGreaterThan(0);

      // Restart with the same id: every page is fetched, so there is no work and no crawl round.
      const second = await runWorker({ store, id: 'w1', dataDir: root, idleExitMs: 200, leaseMs: 2000, crawl, signal: AbortSignal.timeout(30_000) });
      expect(second.rounds).toBe(0);
      expect(second.documents).toBe(0);
      expect(second.recovered.repaired).toEqual([path.relative(path.join(root, 'w1'), victim)]);
      expect(second.recovered.removed).toEqual([path.relative(path.join(root, 'w1'), orphan)]);
      expect(fs.existsSync(`${victim}.open`)).toBe(false);
      expect(fs.statSync(victim).size).toBe(size);
      expect(fs.existsSync(`${orphan}.open`)).toBe(false);
      const after = await verifyArchive(root, store);
      expect(after.problemCount).toBe(0);
      expect(after.openFiles).toEqual([]);
      expect(after.records).toBeGreaterThanOrEqual(site.pages.length);
      await store.close();
    } finally {
      await site.close();
    }
  }, 60_000);
});
