/** Real parts the stage tests share: a SQLite store and a seen set in a temp dir, a host-queue frontier. */
import path from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite.ts';
import { SeenSet } from '../../../src/frontier/seen/index.ts';
import { HostQueues } from '../../../src/frontier/host-queues.ts';
import { Fates } from '../../../src/crawler/stages/fates.ts';
import { ScopeStage } from '../../../src/crawler/stages/scope.ts';
import { compilePatterns } from '../../../src/frontier/filters.ts';
import { tempDir } from '../../helpers.ts';

export async function stageKit(filters: { maxDepth?: number; domains?: string[]; exclude?: string[] } = {}) {
  const dir = tempDir();
  const store = new SqliteStore(path.join(dir, 'meta.sqlite'));
  await store.init();
  const seen = SeenSet.openSync({ dir: path.join(dir, 'seen') });
  const frontier = new HostQueues({ delayMs: 0, perHost: 1 });
  const fates = new Fates(store, undefined);
  const scope = new ScopeStage(frontier, seen, {
    filters: { maxDepth: filters.maxDepth ?? 3, include: [], exclude: compilePatterns(filters.exclude, '--exclude'), domains: filters.domains ?? [] },
    onFiltered: (_u, reason) => fates.count(reason),
  });
  const log = async () => (await store.log()).map((e) => ({ url: e.url, reason: e.reason, status: e.status, error: e.error }));
  return { dir, store, seen, frontier, fates, scope, log, close: async () => (await seen.close(), await store.close()) };
}

import { createHttpFetcher } from '../../../src/fetch/index.ts';
import type { Fetcher } from '../../../src/fetch/types.ts';

/** The crawl's page fetcher: redirects come back as responses. */
export function pageFetcher(opts: { allowPrivate?: boolean } = {}): Fetcher {
  return createHttpFetcher({
    userAgent: 'datamonitor-test', connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, totalTimeoutMs: 10_000, maxBodyBytes: 1 << 20,
    maxInflatedBytes: 4 << 20, maxRedirects: 0, allowPrivate: opts.allowPrivate ?? true, connectionsPerOrigin: 1,
  });
}
