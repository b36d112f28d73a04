/**
 * Where a worker's WARC files are, for every machine that reads the shared store.
 *
 * A worker writes under `<data>/<archive id>/warc/…` and logs the path as `<archive id>/warc/…`:
 * relative to `<data>`, not to its own sub-directory. So a reader (`serve --data ROOT`, export,
 * replay) finds every worker's records under one ROOT that holds each worker's directory, whether
 * ROOT is a shared file system that all workers use as --data or a copy/mount of each worker's
 * --data side by side. Archive ids are unique per worker, so the directories never collide.
 */
import type { CrawlLogEntry, DocumentRow, MetadataStore } from '../store/types.ts';
import { UserError } from '../util/errors.ts';
import { writeBehind } from '../store/write-behind.ts';

/** A file-system and URL safe name: letters, digits, `.`, `_`, `-` (no `..`), at most 100 long. */
export function checkArchiveId(id: string): string {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(id) || id === '.' || id === '..') {
    throw new UserError(`worker id '${id}' must be 1-100 letters, digits, '.', '_' or '-' (it names the worker's archive directory)`);
  }
  return id;
}

/**
 * The store as one crawl round of a worker sees it: WARC paths gain the archive prefix on the way
 * in (appendLog, logFetch, warcEnds for crash recovery), log rows are written behind
 * (src/store/write-behind.ts), and init/close are the worker's business, not the round's. Everything
 * else passes through untouched.
 */
export function archiveScopedStore<S extends MetadataStore>(store: S, archiveId: string): MetadataStore {
  const prefix = `${archiveId}/`;
  const scopedFile = (f: string) => prefix + f.split('\\').join('/');
  const scopedEntry = (e: CrawlLogEntry): CrawlLogEntry => (e.warcFile ? { ...e, warcFile: scopedFile(e.warcFile) } : e);
  const behind = writeBehind(store);
  const scoped: Partial<MetadataStore> = {
    init: async () => {},
    close: async () => {},
    appendLog: (e: CrawlLogEntry) => behind.appendLog(scopedEntry(e)),
    logFetch: (e: CrawlLogEntry, patch: Partial<DocumentRow>) => behind.logFetch(scopedEntry(e), patch),
    warcEnds: async (files: readonly string[]) => {
      const ends = await store.warcEnds(files.map(scopedFile));
      return new Map(files.map((f) => [f, ends.get(scopedFile(f)) ?? 0]));
    },
  };
  return new Proxy(behind, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in scoped) return scoped[prop as keyof MetadataStore];
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
