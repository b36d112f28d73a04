/**
 * What is not a contract (those are in contract/): the host partition function, and the PostgreSQL
 * store's own start-up: migrations when several processes start at once, the schema parameter,
 * clear errors.
 */
import { describe, it, expect } from 'vitest';
import { PostgresStore, parsePostgresUrl } from '../../src/store/postgres.ts';
import { openStore } from '../../src/store/index.ts';
import { partitionOfHost } from '../../src/store/host-partition.ts';
import { partitionOf } from '../../src/frontier/seen/fingerprint.ts';
import { pgBaseUrl, isolatedSchemaUrl, dropSchema } from './pg.ts';

const pgBase = await pgBaseUrl();

describe('host partition', () => {
  it('agrees with partitionOf for URLs on the host and spreads hosts over partitions', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) {
      const host = `host${i}.example.org`;
      expect(partitionOfHost(host, 3)).toBe(partitionOf(`http://${host}/a/b?c`, 3));
      counts[partitionOfHost(host, 3)]++;
    }
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });
});

describe.skipIf(!pgBase)('PostgresStore: start-up and URL handling', () => {
  it('two processes migrating a fresh schema at once both succeed and each migration runs once', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const stores = Array.from({ length: 4 }, () => new PostgresStore(url));
    try {
      await Promise.all(stores.map((s) => s.init()));
      const { rows } = await stores[0].pool.query('SELECT version FROM schema_version ORDER BY version');
      expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    } finally {
      for (const s of stores) await s.close();
      await dropSchema(url);
    }
  });

  it('openStore selects it for a postgres:// URL', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const s = await openStore('/nonexistent-unused', url);
    try {
      expect(s).toBeInstanceOf(PostgresStore);
      await s.init();
      expect(await s.countDocuments()).toBe(0);
    } finally {
      await s.close();
      await dropSchema(url);
    }
  });

  it('keeps each schema to itself', async () => {
    const [a, b] = [isolatedSchemaUrl(pgBase!), isolatedSchemaUrl(pgBase!)];
    const [sa, sb] = [new PostgresStore(a), new PostgresStore(b)];
    try {
      await sa.init();
      await sb.init();
      await sa.addDocuments([{ url: 'http://a.example/', host: 'a.example', depth: 0 }]);
      expect(await sa.countDocuments()).toBe(1);
      expect(await sb.countDocuments()).toBe(0);
    } finally {
      await sa.close();
      await sb.close();
      await dropSchema(a);
      await dropSchema(b);
    }
  });

  it('reports a database from a newer datamonitor instead of touching it', async () => {
    const url = isolatedSchemaUrl(pgBase!);
    const s = new PostgresStore(url);
    try {
      await s.init();
      await s.pool.query('INSERT INTO schema_version VALUES (99)');
      await expect(new PostgresStore(url).init()).rejects.toThrow(/newer datamonitor/);
    } finally {
      await s.close();
      await dropSchema(url);
    }
  });
});

describe('PostgresStore: bad URLs and unreachable servers', () => {
  it('rejects a bad schema name and explains an unreachable server', async () => {
    expect(() => parsePostgresUrl('postgres://127.0.0.1/test?schema=a;drop')).toThrow(/schema 'a;drop'/);
    expect(parsePostgresUrl('postgres://u:secret@127.0.0.1/test?schema=x_1&sslmode=disable')).toEqual({
      connectionString: 'postgres://u:secret@127.0.0.1/test?sslmode=disable', schema: 'x_1',
    });
    const s = new PostgresStore('postgres://u:secret@127.0.0.1:1/test');
    const err = await s.init().catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'UserError' });
    expect(String(err)).toMatch(/cannot connect to PostgreSQL at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/test/);
    expect(String(err)).not.toMatch(/secret/);
    await s.close();
  });
});
