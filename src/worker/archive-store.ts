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

/** A file-system and URL safe name: letters, digits, `.`, `_`, `-` (no `..`), at most 100 long. */
export function checkArchiveId(id: string): string {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(id) || id === '.' || id === '..') {
    throw new UserError(`worker id '${id}' must be 1-100 letters, digits, '.', '_' or '-' (it names the worker's archive directory)`);
  }
  return id;
}

/**
 * The store as one crawl round of a worker sees it: WARC paths gain the archive prefix on the way
 * in (appendLog, logFetch, warcEnd for crash recovery), and init/close are the worker's business, not the
 * round's. Everything else passes through untouched.
 *
 * Log rows are written behind: appendLog and logFetch return once the row is in the store's batch
 * (src/store/pg-batch.ts), not when it commits, and their ids are not given (a crawl reads none). So
 * the job that logged a page goes straight on to add the links it found, and they join the same
 * batch: a page is committed with its links or not at all. Waiting for the commit first would put
 * the links in the next batch, and a worker killed between the two would leave a page fetched whose
 * links nobody will ever add. A failed commit is thrown by the next write or flush (the crawl stops
 * on it, as on a failed SQLite batch); flush waits for every row written behind.
 */
export function archiveScopedStore<S extends MetadataStore>(store: S, archiveId: string): MetadataStore {
  const prefix = `${archiveId}/`;
  const scopedEntry = (e: CrawlLogEntry): CrawlLogEntry => (e.warcFile ? { ...e, warcFile: prefix + e.warcFile.split('\\').join('/') } : e);
  let failed: Error | undefined;
  const behind = new Set<Promise<unknown>>();
  const throwFailed = () => {
    const f = failed;
    failed = undefined; // told once: a later round (the batch's cause gone) goes on
    if (f) throw f;
  };
  const writeBehind = (write: () => Promise<number>): Promise<number> => {
    try {
      throwFailed();
    } catch (e) {
      return Promise.reject(e);
    }
    const p: Promise<unknown> = write().then(
      () => behind.delete(p),
      (e: Error) => {
        failed ??= e;
        behind.delete(p);
      },
    );
    behind.add(p);
    return Promise.resolve(0);
  };
  const scoped: Partial<MetadataStore> = {
    init: async () => {},
    close: async () => {},
    appendLog: (e: CrawlLogEntry) => writeBehind(() => store.appendLog(scopedEntry(e))),
    logFetch: (e: CrawlLogEntry, patch: Partial<DocumentRow>) => writeBehind(() => store.logFetch(scopedEntry(e), patch)),
    addDocuments: (docs, opts) => {
      try {
        throwFailed();
      } catch (e) {
        return Promise.reject(e);
      }
      return store.addDocuments(docs, opts);
    },
    flush: async () => {
      while (behind.size) await Promise.all([...behind]);
      await store.flush();
      throwFailed();
    },
    warcEnd: (file: string) => store.warcEnd(prefix + file.split('\\').join('/')),
  };
  return new Proxy(store, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in scoped) return scoped[prop as keyof MetadataStore];
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
