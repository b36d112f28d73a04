/**
 * The metadata store backends the store suites run against: SQLite (a real file in a temp dir) and
 * PostgreSQL (the shared `test` database, each test in its own schema that is dropped after), for the
 * plain store and for the worker store, and `useStores`, the per-test set-up they all share.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.ts';
import { SqliteWorkerStore } from '../../src/store/sqlite-worker.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import type { MetadataStore } from '../../src/store/types.ts';
import type { WorkerStore } from '../../src/store/worker-types.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from './pg.ts';

const pgBase = await pgBaseUrl();

export interface BackendEnv<S> {
  /** The database (file or URL) that every `open()` connects to. */
  target: string;
  open(): Promise<S>;
  openReadOnly(): Promise<S>;
  cleanup(): Promise<void>;
}

export interface Backend<S extends MetadataStore = MetadataStore> {
  name: string;
  skip: boolean;
  setup(): Promise<BackendEnv<S>>;
}

type Make<S> = (target: string, opts: { readonly?: boolean }) => S;

function both<S extends MetadataStore>(sqlite: Make<S>, postgres: Make<S>): Backend<S>[] {
  const opener = (make: Make<S>, target: string, readonly: boolean) => async () => {
    const s = make(target, { readonly });
    await s.init();
    return s;
  };
  return [
    {
      name: 'SQLite',
      skip: false,
      async setup() {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-store-'));
        const file = path.join(dir, 'meta.sqlite');
        return { target: file, open: opener(sqlite, file, false), openReadOnly: opener(sqlite, file, true), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'PostgreSQL',
      skip: !pgBase,
      async setup() {
        const url = isolatedSchemaUrl(pgBase!);
        return { target: url, open: opener(postgres, url, false), openReadOnly: opener(postgres, url, true), cleanup: () => dropSchema(url) };
      },
    },
  ];
}

export const backends: Backend[] = both<MetadataStore>((f, o) => new SqliteStore(f, o), (u, o) => new PostgresStore(u, o));
export const workerBackends: Backend<WorkerStore>[] = both<WorkerStore>((f, o) => new SqliteWorkerStore(f, o), (u, o) => new PostgresStore(u, o));

/**
 * Inside a `describe`: a fresh database before each test, `s` opened on it, and every store opened
 * through `open`/`openReadOnly` closed (and the database dropped) after it.
 */
export function useStores<S extends MetadataStore>(backend: Backend<S>): { env: BackendEnv<S>; s: S; open(): Promise<S>; openReadOnly(): Promise<S> } {
  let opened: S[] = [];
  const track = async (st: Promise<S>) => {
    opened.push(await st);
    return opened.at(-1)!;
  };
  const fx = {
    env: undefined as unknown as BackendEnv<S>,
    s: undefined as unknown as S,
    open: () => track(fx.env.open()),
    openReadOnly: () => track(fx.env.openReadOnly()),
  };
  beforeEach(async () => {
    fx.env = await backend.setup();
    opened = [];
    fx.s = await fx.open();
  });
  afterEach(async () => {
    for (const st of opened) await st.close();
    await fx.env.cleanup();
  });
  return fx;
}
