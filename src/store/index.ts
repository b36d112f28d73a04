import path from 'node:path';
import fs from 'node:fs';
import type { MetadataStore } from './types.ts';
import { SqliteStore } from './sqlite.ts';
import { UserError } from '../util/errors.ts';

export type { MetadataStore } from './types.ts';

/**
 * Opens the metadata store: `<dataDir>/meta.sqlite` by default, or the database a `postgres://`
 * URL names (loaded only when asked for, so the embedded default needs no PostgreSQL).
 */
export async function openStore(dataDir: string, db?: string): Promise<MetadataStore> {
  if (db && /^postgres(ql)?:\/\//.test(db)) {
    const mod = await import('./postgres.ts').catch(() => {
      throw new UserError('the PostgreSQL store is not available in this build');
    });
    return new mod.PostgresStore(db);
  }
  if (db) throw new UserError(`--db '${db}' is not a postgres:// URL; leave it out to use the embedded SQLite store in --data`);
  fs.mkdirSync(dataDir, { recursive: true });
  return new SqliteStore(path.join(dataDir, 'meta.sqlite'));
}

/** Whether `dataDir` (or the database `db` names) holds an archive to read. */
export function archiveExists(dataDir: string, db?: string): boolean {
  return Boolean(db) || fs.existsSync(path.join(dataDir, 'meta.sqlite'));
}

/**
 * Runs `fn` with the archive's store open and initialised, and closes it after. `mustExist`: an
 * absent archive is the user's mistake, said plainly, rather than a new empty store.
 */
export async function withStore<T>(dataDir: string, db: string | undefined, fn: (store: MetadataStore) => Promise<T>, opts: { mustExist?: boolean } = {}): Promise<T> {
  if (opts.mustExist && !archiveExists(dataDir, db)) {
    throw new UserError(`no archive in '${dataDir}': crawl into it first (datamonitor crawl --data ${dataDir} URL), or give --data`);
  }
  const store = await openStore(dataDir, db);
  await store.init();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}
