import type { CrawlLogEntry, DocumentRow, MetadataStore } from './types.ts';

/**
 * The store as a crawl writes into a batching PostgresStore (src/store/pg-batch.ts): appendLog and
 * logFetch return once the row is in the store's batch, not when it commits, and their ids are not
 * given (a crawl reads none). So the job that logged a page goes straight on to add the links it
 * found, and they join the same batch: a page is committed with its links or not at all, and batches
 * commit in order, so a page fetched from another's links is never written before the links that
 * name it. Waiting for each commit instead would put the links in the next batch: a process killed,
 * or a database lost for good, between the two would leave a page fetched whose links nobody adds.
 * A failed commit is thrown by the next write or flush (the crawl stops on it, as on a failed SQLite
 * batch); flush waits for every row written behind. Everything else passes through untouched.
 */
export function writeBehind<S extends MetadataStore>(store: S): S {
  let failed: Error | undefined;
  const behind = new Set<Promise<unknown>>();
  const throwFailed = () => {
    const f = failed;
    failed = undefined; // told once: a later round (the batch's cause gone) goes on
    if (f) throw f;
  };
  const write = (send: () => Promise<number>): Promise<number> => {
    try {
      throwFailed();
    } catch (e) {
      return Promise.reject(e);
    }
    const p: Promise<unknown> = send().then(
      () => behind.delete(p),
      (e: Error) => {
        failed ??= e;
        behind.delete(p);
      },
    );
    behind.add(p);
    return Promise.resolve(0);
  };
  const own: Partial<MetadataStore> = {
    appendLog: (e: CrawlLogEntry) => write(() => store.appendLog(e)),
    logFetch: (e: CrawlLogEntry, patch: Partial<DocumentRow>) => write(() => store.logFetch(e, patch)),
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
  };
  return new Proxy(store, {
    get(target, prop) {
      if (typeof prop === 'string' && prop in own) return own[prop as keyof MetadataStore];
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
