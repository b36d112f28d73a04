import fs from 'node:fs';
import path from 'node:path';
import { SqliteStore } from '../store/sqlite.ts';
import { damageOf } from '../store/damaged.ts';
import { META_FILE, VERSIONS_FILE } from '../util/data-dir.ts';
import { listWarcFiles } from '../archive/warc-files.ts';
import { rebuildFromWarcs, type ImportSummary } from './import-warc.ts';
import { UserError } from '../util/errors.ts';
import { EXIT } from '../util/exit-codes.ts';
import type { CatchUpProgress, CatchUpResult } from '../versions/catch-up.ts';

/**
 * `datamonitor rebuild`: the archive's SQLite files made again from its WARC files, which are the archive
 * (the metadata store is their index, the version store an index of that). A damaged or lost `meta.sqlite`
 * is rebuilt as an import of the archive's own files, in place (rebuildFromWarcs); `versions.sqlite` then by
 * the query index's catch-up, as the first query would. The files replaced are moved aside, never deleted.
 */

/** What the WARC files do not hold, so that no rebuild brings it back: said by the command and in docs/recovery.md. */
export const NOT_REBUILT = [
  'the monitored URLs and their re-crawl schedules (`datamonitor add` them again)',
  'URLs queued but not fetched yet (give them to a crawl again: what is archived is known and not fetched twice)',
  'crawl-log rows of fetches that wrote no WARC record (DNS failures, refused connections, timeouts, robots.txt and scope skips)',
  'the cycles of `run`/`daemon`, and the crawl depth at which each URL was found (rebuilt URLs have depth 0)',
];

export interface RebuildResult {
  /** Files moved aside, as `from -> to`, relative to the data directory. */
  movedAside: string[];
  /** Whether meta.sqlite was made again from the WARC files, and why. */
  meta?: { why: string; summary: ImportSummary };
  /** Whether versions.sqlite was made again (from the crawl log), and why. */
  versions?: { why: string; result: CatchUpResult };
  /** Nothing was damaged or lost, and no --force: nothing done. */
  nothingToDo: boolean;
}

export interface RebuildOptions {
  /** Rebuild both files even if they are sound (a store believed wrong in ways SQLite cannot see). */
  force?: boolean;
  onImport?: (s: ImportSummary) => void;
  onIndex?: (p: CatchUpProgress) => void;
  /** The time in the names of the files moved aside (tests); default now. */
  now?: Date;
}

export async function rebuildArchive(dataDir: string, o: RebuildOptions = {}): Promise<RebuildResult> {
  if (!fs.existsSync(path.join(dataDir, 'warc'))) {
    throw new UserError(`no WARC files in '${dataDir}' (no warc/ directory): there is nothing to rebuild the archive from; give the --data of an archive`, EXIT.noInput);
  }
  const warcs = listWarcFiles(dataDir);
  if (warcs.closed.length + warcs.open.length === 0) throw new UserError(`no WARC files under '${path.join(dataDir, 'warc')}': there is nothing to rebuild the archive from`, EXIT.noInput);
  const result: RebuildResult = { movedAside: [], nothingToDo: false };
  const stamp = (o.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  const metaWhy = !fs.existsSync(path.join(dataDir, META_FILE)) ? 'missing' : damageOf(dataDir, META_FILE) ?? (o.force ? 'rebuilt on request (--force)' : undefined);
  const versionsDamage = damageOf(dataDir, VERSIONS_FILE);
  // A version store indexes the log by row id: a new log makes it wrong however sound it is.
  const versionsWhy = versionsDamage ?? (!fs.existsSync(path.join(dataDir, VERSIONS_FILE)) ? 'missing'
    : metaWhy ? `it indexed the ${metaWhy === 'missing' ? 'lost' : 'replaced'} crawl log` : o.force ? 'rebuilt on request (--force)' : undefined);
  if (!metaWhy && !versionsWhy) {
    result.nothingToDo = true;
    return result;
  }
  if (metaWhy) {
    const building = path.join(dataDir, `${META_FILE}.rebuilding`);
    for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(building + suffix, { force: true }); // a rebuild that was stopped
    const store = new SqliteStore(building);
    let summary: ImportSummary;
    try {
      await store.init();
      summary = await rebuildFromWarcs({ dataDir, store, onProgress: o.onImport });
    } finally {
      await store.close();
    }
    if (fs.existsSync(path.join(dataDir, META_FILE))) moveAside(dataDir, META_FILE, metaWhy === 'rebuilt on request (--force)' ? 'before-rebuild' : 'damaged', stamp, result);
    // Closing checkpointed the WAL into the file; were one left, it goes with it.
    for (const suffix of ['', '-wal']) if (fs.existsSync(building + suffix)) fs.renameSync(building + suffix, path.join(dataDir, META_FILE + suffix));
    fs.rmSync(building + '-shm', { force: true });
    result.meta = { why: metaWhy, summary };
  }
  if (versionsWhy) {
    if (fs.existsSync(path.join(dataDir, VERSIONS_FILE))) moveAside(dataDir, VERSIONS_FILE, versionsDamage ? 'damaged' : 'before-rebuild', stamp, result);
    result.versions = { why: versionsWhy, result: await indexVersions(dataDir, o.onIndex) };
  }
  return result;
}

/** `file` and its WAL and shared-memory files to `<file>.<label>-<stamp>` (the WAL keeps SQLite's `-wal` suffix, so the copy opens whole). */
function moveAside(dataDir: string, file: string, label: string, stamp: string, result: RebuildResult): void {
  const to = `${file}.${label}-${stamp}`;
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    const from = path.join(dataDir, file + suffix);
    if (!fs.existsSync(from)) continue;
    fs.renameSync(from, path.join(dataDir, to + suffix));
    result.movedAside.push(`${file + suffix} -> ${to + suffix}`);
  }
}

/** versions.sqlite built from the crawl log, as the first `query` would (src/versions/catch-up.ts). */
async function indexVersions(dataDir: string, onProgress?: (p: CatchUpProgress) => void): Promise<CatchUpResult> {
  const { VersionIndex } = await import('../versions/version-index.ts');
  const store = new SqliteStore(path.join(dataDir, META_FILE), { readonly: true });
  try {
    await store.init();
    const index = VersionIndex.open(dataDir, store);
    try {
      return await index.catchUp(onProgress);
    } finally {
      await index.close();
    }
  } finally {
    await store.close();
  }
}
