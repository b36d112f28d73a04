/**
 * The makers of the versioned store's two backends (src/versions/backend.ts), for the contract suites run on
 * both: SQLite (a real file in a temp dir) and PostgreSQL (the shared `test` database, each archive in its
 * own schema, dropped after; skipped loudly without a server unless DATAMONITOR_REQUIRE_PG=1).
 */
import fs from 'node:fs';
import { beforeAll, afterAll } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { openVersionStore, PgVersionArchive, type VersionBackend } from '../../src/query/index.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../store/pg.ts';

const pgBase = await pgBaseUrl();

export interface TempBackend {
  archive: VersionBackend;
  /** Opens the same store again (the first one left open: close it first if that matters). */
  reopen(opts?: { readonly?: boolean }): VersionBackend;
  cleanup(): Promise<void>;
}

export interface BackendMaker {
  name: 'sqlite' | 'postgres';
  skip: boolean;
  make(): TempBackend;
}

export const sqliteBackend: BackendMaker = {
  name: 'sqlite',
  skip: false,
  make() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-query-'));
    const opened: VersionBackend[] = [openVersionStore(dir)];
    return {
      archive: opened[0]!,
      reopen: (opts) => { const a = openVersionStore(dir, opts); opened.push(a); return a; },
      cleanup: async () => { for (const a of opened) await a.close(); fs.rmSync(dir, { recursive: true, force: true }); },
    };
  },
};

export const postgresBackend: BackendMaker = {
  name: 'postgres',
  skip: !pgBase,
  make() {
    const url = isolatedSchemaUrl(pgBase!, 'dm_pgv');
    const opened: VersionBackend[] = [new PgVersionArchive(url)];
    return {
      archive: opened[0]!,
      reopen: (opts) => { const a = new PgVersionArchive(url, opts); opened.push(a); return a; },
      cleanup: async () => { for (const a of opened) await a.close(); await dropSchema(url); },
    };
  },
};

export const VERSION_BACKENDS: BackendMaker[] = [sqliteBackend, postgresBackend];

/**
 * A store of this backend made and filled by `build` once for the enclosing describe block, and removed
 * after it; `held.archive` is the store inside its tests (unset when the backend is skipped).
 */
export function builtBackend(backend: BackendMaker, build: (archive: VersionBackend) => Promise<void>, timeoutMs = 600_000): Pick<TempBackend, 'archive' | 'reopen'> {
  let made: TempBackend | undefined;
  const held = { reopen: (opts) => made!.reopen(opts) } as Pick<TempBackend, 'archive' | 'reopen'>;
  beforeAll(async () => {
    if (backend.skip) return;
    made = backend.make();
    held.archive = made.archive;
    await build(held.archive);
  }, timeoutMs);
  afterAll(async () => { await made?.cleanup(); });
  return held;
}
