import fs from 'node:fs';
import path from 'node:path';
import { SeenSet } from '../frontier/seen/index.ts';
import type { CrawlOptions } from './options.ts';

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
  removeStaleSeenDirs(dataDir);
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

/** Seen sets left by crawls that were killed (their process is gone). */
function removeStaleSeenDirs(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    const m = /^\.seen-(\d+)-/.exec(name);
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
