/**
 * The makers of the two backends: SQLite (a real file in a temp dir) and PostgreSQL (the shared `test`
 * database, each test in its own schema, dropped after; skipped loudly without a server unless
 * DATAMONITOR_REQUIRE_PG=1), each as the plain store and as the worker store (with host leases).
 * A third backend adds its maker here and a `<backend>.test.ts` beside sqlite.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite.ts';
import { SqliteWorkerStore } from '../../../src/store/sqlite-worker.ts';
import { PostgresStore } from '../../../src/store/postgres.ts';
import { BATCH_DEFAULTS } from '../../../src/store/pg-batch.ts';
import type { MetadataStore } from '../../../src/store/types.ts';
import type { WorkerStore } from '../../../src/store/worker-types.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from '../pg.ts';
import type { StoreMaker } from './harness.ts';

const pgBase = await pgBaseUrl();

type Make<S> = (target: string, opts: { readonly?: boolean }) => S;

const opener = <S extends MetadataStore>(make: Make<S>, target: string, readonly: boolean) => async () => {
  const s = make(target, { readonly });
  await s.init();
  return s;
};

function sqlite<S extends MetadataStore>(name: string, make: Make<S>): StoreMaker<S> {
  return {
    name,
    skip: false,
    async setup() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-store-'));
      const file = path.join(dir, 'meta.sqlite');
      return { target: file, open: opener(make, file, false), openReadOnly: opener(make, file, true), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  };
}

function postgres<S extends MetadataStore>(name: string, make: Make<S>): StoreMaker<S> {
  return {
    name,
    skip: !pgBase,
    async setup() {
      const url = isolatedSchemaUrl(pgBase!);
      return { target: url, open: opener(make, url, false), openReadOnly: opener(make, url, true), cleanup: () => dropSchema(url) };
    },
  };
}

export const sqliteStore = sqlite<MetadataStore>('SQLite', (f, o) => new SqliteStore(f, o));
export const sqliteWorkerStore = sqlite<WorkerStore>('SQLite (workers)', (f, o) => new SqliteWorkerStore(f, o));
export const postgresStore = postgres<MetadataStore>('PostgreSQL', (u, o) => new PostgresStore(u, o));
/** The store `worker` opens: per-page writes grouped into transactions (src/store/pg-batch.ts), behind the same seams. */
export const postgresBatchedStore = postgres<MetadataStore>('PostgreSQL (batched writes)', (u, o) => new PostgresStore(u, { ...o, batch: BATCH_DEFAULTS }));
export const postgresBatchedWorkerStore = postgres<WorkerStore>('PostgreSQL (batched writes)', (u, o) => new PostgresStore(u, { ...o, batch: BATCH_DEFAULTS }));
/** The same class: PostgresStore always has the lease table. */
export const postgresWorkerStore = postgres<WorkerStore>('PostgreSQL', (u, o) => new PostgresStore(u, o));
