import type { MetadataStore } from '../../src/store/types.ts';
import type { PostgresStore } from '../../src/store/postgres.ts';
import type { SqliteStore } from '../../src/store/sqlite.ts';

/** Runs SQL written with `?` on the store's own connection (either backend): for tests that set up or inspect raw rows. */
export async function exec(store: MetadataStore, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  if ('pool' in store) {
    let i = 0;
    return (await (store as PostgresStore).pool.query(sql.replace(/\?/g, () => `$${++i}`), values)).rows;
  }
  const stmt = (store as SqliteStore).db.prepare(sql);
  return stmt.reader ? (stmt.all(...values) as Record<string, unknown>[]) : (stmt.run(...values), []);
}
