/**
 * What a contract runs against: a `StoreMaker` makes a fresh, empty database per test and opens stores
 * on it. A backend author writes one maker (see backends.ts) and runs every contract with it
 * (sqlite.test.ts, postgres.test.ts); when they pass, the backend does what its callers rely on.
 */
import { afterEach, beforeEach } from 'vitest';
import type { StoreLifecycle } from '../../../src/store/types.ts';

export interface StoreEnv<S> {
  /** What names the database, as `openStore` takes it: a SQLite file (`<data>/meta.sqlite`) or a URL (`--db`). */
  target: string;
  /** A new store instance on the database, initialised (`init()` done): a second process, as far as the contract can tell. */
  open(): Promise<S>;
  /** The same, opened read-only (what `serve`, `query`, `stats` open). */
  openReadOnly(): Promise<S>;
  /** Removes the database. */
  cleanup(): Promise<void>;
}

export interface StoreMaker<S extends StoreLifecycle = StoreLifecycle> {
  /** In the test names: `DocumentStore on SQLite`. */
  name: string;
  /** True when the backend cannot run here (its server is not reachable; the maker has said so loudly). */
  skip: boolean;
  /** A fresh, empty database. */
  setup(): Promise<StoreEnv<S>>;
}

export interface StoreFixture<S> {
  env: StoreEnv<S>;
  /** The store opened on this test's fresh database. */
  s: S;
  open(): Promise<S>;
  openReadOnly(): Promise<S>;
}

/**
 * Inside a `describe`: a fresh database before each test, `s` opened on it, and every store opened
 * through `open`/`openReadOnly` closed (and the database removed) after it.
 */
export function useStores<S extends StoreLifecycle>(make: StoreMaker<S>): StoreFixture<S> {
  let opened: S[] = [];
  const track = async (st: Promise<S>) => {
    opened.push(await st);
    return opened.at(-1)!;
  };
  const fx: StoreFixture<S> = {
    env: undefined as unknown as StoreEnv<S>,
    s: undefined as unknown as S,
    open: () => track(fx.env.open()),
    openReadOnly: () => track(fx.env.openReadOnly()),
  };
  beforeEach(async () => {
    fx.env = await make.setup();
    opened = [];
    fx.s = await fx.open();
  });
  afterEach(async () => {
    for (const st of opened) await st.close();
    await fx.env.cleanup();
  });
  return fx;
}
