import fs from 'node:fs';
import path from 'node:path';
import type { RobotsStore } from '../fetch/index.ts';
import { SeenSet } from '../frontier/seen/index.ts';
import { SqliteFrontierSpill, type FrontierSpill } from '../frontier/spill.ts';
import type { CrawlOptions } from './options.ts';

/**
 * A crawl's scratch space on disk: its seen set and its frontier's spill, each in a directory of its own
 * under the data directory, named by the process and removed by `close`; the directories that killed
 * processes left behind are removed when the next crawl opens its own.
 */

/** A seen set in a directory of its own under the data directory, removed again by `close`. */
export interface CrawlSeen {
  seen: SeenSet;
  close(): Promise<void>;
}

/**
 * The seen test of a crawl or a worker: 64-bit fingerprints on disk with a CLOCK cache in front
 * (seed 002), so memory stays bounded however large the crawl grows. Its directory is named by
 * the process, so the directories that killed processes left behind are removed first.
 */
export function openCrawlSeen(dataDir: string, o: Pick<CrawlOptions, 'seenCache' | 'seenCacheSize'>): CrawlSeen {
  removeStaleDirs(dataDir, '.seen-');
  const dir = fs.mkdtempSync(path.join(dataDir, `.seen-${process.pid}-`));
  const seen = SeenSet.openSync({ dir, cache: o.seenCache ?? 'clock', cacheSize: o.seenCacheSize });
  return {
    seen,
    async close() {
      try {
        await seen.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The spill of a bounded frontier (src/frontier/spill.ts), removed again by `close`. Made on its first
 * entry: most crawls (a re-crawl cycle, a site of a few thousand pages) never fill the memory.
 */
export function openFrontierSpill(dataDir: string): { spill: FrontierSpill & RobotsStore; close(): void } {
  let dir: string | undefined;
  const spill = new SqliteFrontierSpill(() => {
    removeStaleDirs(dataDir, '.frontier-');
    return (dir = fs.mkdtempSync(path.join(dataDir, `.frontier-${process.pid}-`)));
  });
  return {
    spill,
    close() {
      try {
        spill.close();
      } finally {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** Scratch directories (`prefix` + pid) left by crawls that were killed (their process is gone). */
export function removeStaleDirs(dataDir: string, prefix: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    if (!name.startsWith(prefix)) continue;
    const m = /^\.[a-z]+-(\d+)-/.exec(name);
    if (!m) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch (e) {
      alive = (e as NodeJS.ErrnoException).code === 'EPERM';
    }
    if (!alive) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
  }
}
