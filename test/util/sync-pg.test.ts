import { describe, it, expect, afterAll } from 'vitest';
import { SyncPg } from '../../src/util/sync-pg.ts';
import { pgBaseUrl } from '../store/pg.ts';

/**
 * PostgreSQL as a synchronous call: a statement marked `prepared` is kept prepared on the server for the
 * connection (its plan saved, generic after a few runs), answers every run with that run's arguments, and
 * no more than a bounded number of texts are kept that way.
 */
const pgBase = await pgBaseUrl();

describe.skipIf(!pgBase)('SyncPg prepared statements', () => {
  const db = pgBase ? new SyncPg(pgBase) : undefined;
  afterAll(async () => {
    await db?.close();
  });

  const kept = (): number => db!.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'dm\\_%'")[0]!.n;

  it('prepares a statement once and answers each run with its own arguments, past the switch to a generic plan', () => {
    const sql = 'SELECT x * $1::int AS y FROM generate_series(1, 3) x WHERE x <= $2::int ORDER BY x';
    for (let k = 1; k <= 8; k++) {
      expect(db!.run<{ y: number }>([{ sql, params: [k, k % 3 + 1], prepared: true }])[0]!.map((r) => r.y)).toEqual([k, 2 * k, 3 * k].slice(0, k % 3 + 1));
    }
    expect(db!.query<{ generic: number }>('SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE statement = $1', [sql])[0]?.generic).toBeGreaterThan(0);
    // Unmarked, the same text is planned each time: no second prepared statement.
    expect(db!.query<{ y: number }>(sql, [2, 1])).toEqual([{ y: 2 }]);
    expect(kept()).toBe(1);
  });

  it('keeps at most 100 texts prepared; the next ones still answer, planned each time', () => {
    for (let k = 0; k < 120; k++) {
      expect(db!.run<{ y: number }>([{ sql: `SELECT $1::int + ${k} AS y`, params: [1], prepared: true }])[0]).toEqual([{ y: 1 + k }]);
    }
    expect(kept()).toBe(100);
    expect(db!.run<{ y: number }>([{ sql: 'SELECT $1::int + 119 AS y', params: [2], prepared: true }])[0]).toEqual([{ y: 121 }]);
  });
});
