import path from 'node:path';
import fs from 'node:fs';
import type { MetadataStore } from './types.ts';
import { SCHEMA_VERSION, SqliteStore } from './sqlite.ts';
import { UserError } from '../util/errors.ts';
import { EXIT } from '../util/exit-codes.ts';
import { META_FILE } from '../util/data-dir.ts';
import { redactUrl } from './redact.ts';
import { closedAfter } from '../util/close.ts';
import type { BatchLimits } from './pg-batch.ts';

export type { MetadataStore } from './types.ts';
export { ReadOnlyStoreError } from './read-only.ts';

export interface OpenStoreOptions {
  /**
   * For commands that only read (serve without writes, query, diff, export, stats): nothing is written,
   * not even SQLite's WAL switch or the schema, so a read-only data directory can be read; writes throw
   * ReadOnlyStoreError.
   */
  readonly?: boolean;
  /** PostgreSQL: group the per-page writes into one transaction per batch (src/store/pg-batch.ts), as a crawl does. */
  batch?: BatchLimits;
}

/**
 * Opens the metadata store: `<dataDir>/meta.sqlite` by default, or the database a `postgres://`
 * URL names (loaded only when asked for, so the embedded default needs no PostgreSQL).
 */
export async function openStore(dataDir: string, db?: string, opts: OpenStoreOptions = {}): Promise<MetadataStore> {
  if (db && /^postgres(ql)?:\/\//.test(db)) {
    // Loaded only when asked for: the embedded default should not pay for pg at start-up.
    const mod = await import('./postgres.ts').catch((e: unknown) => {
      throw isMissingPg(e) ? new UserError(`--db '${redactUrl(db)}' needs PostgreSQL support, and this build has none (the 'pg' package is not installed): install it (npm install pg), or leave --db out to use the embedded SQLite store`) : e;
    });
    return new mod.PostgresStore(db, { readonly: opts.readonly, batch: opts.batch });
  }
  if (db) throw new UserError(`--db '${db}' is not a postgres:// URL; leave it out to use the embedded SQLite store in --data`);
  const file = path.join(dataDir, META_FILE);
  if (opts.readonly) {
    if (!fs.existsSync(file)) throw new UserError(`no archive in '${dataDir}' (no ${META_FILE}): crawl into it first, or give --data`, EXIT.noInput);
    return new SqliteStore(file, { readonly: true });
  }
  fs.mkdirSync(dataDir, { recursive: true });
  return new SqliteStore(file);
}

/**
 * Whether loading the PostgreSQL store failed because the `pg` package is not installed: that alone is
 * "not available in this build". Anything else (pg installed but broken, a missing dependency of it, a
 * bug in the store) is a broken install or a bug, and surfaces as it is, not hidden behind that message.
 */
function isMissingPg(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  return err?.code === 'ERR_MODULE_NOT_FOUND' && /\bCannot find (package|module) 'pg'( |$)/.test(String(err.message));
}

/**
 * Whether the SQLite store of `dataDir` predates this datamonitor's schema, so that a command reading what
 * a newer schema added (`log`: the reasons) must open it writable once, to migrate it (the same open moves
 * its WARC file names to warc_files). Read from the file's header (SQLite's user_version, bytes 60-63)
 * without opening it: a migration still in the WAL reads as old, which costs only a writable open. PostgreSQL stores say no: their readers take the schema as it is.
 */
export function storeNeedsUpgrade(dataDir: string, db?: string): boolean {
  if (db) return false;
  const header = Buffer.alloc(64);
  let fd: number | undefined;
  try {
    fd = fs.openSync(path.join(dataDir, META_FILE), 'r');
    if (fs.readSync(fd, header, 0, 64, 0) < 64) return false;
  } catch {
    return false; // absent or unreadable: the open that follows says why
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  const version = header.readUInt32BE(60);
  return version > 0 && version < SCHEMA_VERSION;
}

/** Whether `dataDir` (or the database `db` names) holds an archive to read. */
export function archiveExists(dataDir: string, db?: string): boolean {
  return Boolean(db) || fs.existsSync(path.join(dataDir, META_FILE));
}

/**
 * Runs `fn` with the archive's store open and initialised, and closes it after. `mustExist`: an
 * absent archive is the user's mistake, said plainly, rather than a new empty store.
 */
export async function withStore<T>(dataDir: string, db: string | undefined, fn: (store: MetadataStore) => Promise<T>, opts: { mustExist?: boolean } & OpenStoreOptions = {}): Promise<T> {
  if ((opts.mustExist || opts.readonly) && !archiveExists(dataDir, db)) {
    throw new UserError(`no archive in '${dataDir}': crawl into it first (datamonitor crawl --data ${dataDir} URL), or give --data`, EXIT.noInput);
  }
  const store = await openStore(dataDir, db, { readonly: opts.readonly });
  await store.init();
  return closedAfter(() => fn(store), () => store.close());
}
