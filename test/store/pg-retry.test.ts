/**
 * A crawl or worker whose PostgreSQL goes away (src/store/pg-retry.ts): its connections terminated by
 * the server (`pg_terminate_backend`, what a restart or fail-over does to them) while statements run,
 * or the database unreachable for longer than the store waits. Real processes, the real PostgreSQL
 * (skips loudly without it), a real HTTP site and a real TCP proxy on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { dropSchema, isolatedSchemaUrl, pgBaseUrl } from './pg.ts';
import { PostgresStore } from '../../src/store/postgres.ts';
import { startSyntheticSite } from '../../src/testkit/synthetic-site.ts';
import type { TestServer } from '../../src/testkit/server.ts';
import { DatabaseUnavailableError, isDatabaseLost, isStorageFailure, storageExitCode } from '../../src/util/errors.ts';
import { LOADED_TIMEOUT_MS, cli, tempDir } from '../helpers.ts';
import { spawnWorker } from '../worker/spawn-worker.ts';

const pgBase = await pgBaseUrl();
const PAGES = 300;

describe('what a lost database is', () => {
  it('SQLSTATEs of a lost connection, a shut-down or read-only server and socket errors are retried; a wrong statement is not', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', '53100', '25006', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT']) {
      expect(isDatabaseLost(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    expect(isDatabaseLost(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseLost(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    for (const code of ['42P01', '23505', '40P01', undefined]) expect(isDatabaseLost(Object.assign(new Error('x'), { code })), code).toBe(false);
  });

  it('a socket error is a storage failure only when the store gave up on it, not when a fetch met it', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(isStorageFailure(reset)).toBe(false);
    const gaveUp = new DatabaseUnavailableError('lost PostgreSQL', { cause: reset });
    expect(isStorageFailure(gaveUp)).toBe(true);
    expect(storageExitCode(gaveUp)).toBe(75);
    expect(isStorageFailure(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(storageExitCode(Object.assign(new Error('could not extend file: No space left on device'), { code: '53100' }))).toBe(74);
  });
});

/** A TCP proxy to PostgreSQL that can be taken down (every connection cut, new ones closed at once) and up again. */
async function startProxy(target: URL): Promise<{ port: number; down(): void; up(): void; close(): Promise<void> }> {
  let down = false;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const cut = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('error', cut);
      s.on('close', cut);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    down() {
      down = true;
      for (const s of open) s.destroy();
    },
    up() {
      down = false;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe.skipIf(!pgBase)('a crawl and a worker whose PostgreSQL goes away', () => {
  let site: TestServer & { seed: string };
  // Read at each request: slowed while the killer looks for a busy connection (see terminateTwice).
  const siteOptions = { pages: PAGES, linksPerPage: 3, bytesPerPage: 1_000, latencyMs: 20 };
  let killer: pg.Client;
  const schemas: string[] = [];
  const pageUrls = () => Array.from({ length: PAGES }, (_, i) => `${site.url}/page/${i}`);
  beforeAll(async () => {
    site = await startSyntheticSite(siteOptions);
    killer = new pg.Client({ connectionString: pgBase! });
    killer.on('error', () => {});
    await killer.connect();
  });
  afterAll(async () => {
    await site?.close();
    await killer?.end().catch(() => undefined);
    for (const s of schemas) await dropSchema(s).catch(() => undefined);
  });

  const newSchema = (prefix: string) => {
    const db = isolatedSchemaUrl(pgBase!, prefix);
    schemas.push(db);
    return db;
  };
  /** The same database and schema, its connections named so that the killer finds them (and no other test's). */
  const named = (db: string, app: string) => {
    const u = new URL(db);
    u.searchParams.set('application_name', app);
    return u.toString();
  };
  const fetchFlags = ['--allow-private', '--delay', '0', '--per-host', '8', '--concurrency', '8', '--depth', '100000', '--no-vocabularies', '--domain', '127.0.0.1', '--no-robots', '--json'];

  /**
   * Terminates every connection of `app` at a moment when at least one of them runs a statement: a
   * terminated idle connection is only dropped by the pool, a busy one fails the statement it runs.
   */
  async function terminateWhileBusy(app: string, running: () => boolean): Promise<boolean> {
    while (running()) {
      const { rowCount } = await killer.query(
        `WITH a AS (SELECT pid, state FROM pg_stat_activity WHERE application_name = $1)
         SELECT pg_terminate_backend(pid) FROM a WHERE EXISTS (SELECT 1 FROM a WHERE state = 'active')`,
        [app],
      );
      if (rowCount) return true;
      await new Promise((r) => setTimeout(r, 2));
    }
    return false;
  }

  const logged = async (watcher: PostgresStore) => Number((await watcher.pool.query('SELECT count(*) AS n FROM crawl_log')).rows[0].n);
  async function waitLogged(watcher: PostgresStore, n: number, running: () => boolean): Promise<void> {
    while (running() && (await logged(watcher)) < n) await new Promise((r) => setTimeout(r, 20));
  }

  /**
   * Terminates the crawl's connections twice, after a quarter and after half of the pages: how many times it did.
   * While the killer waits for a busy connection the site answers slowly, so that the crawl cannot run to its
   * end first however loaded the machine (its writes go on, a few pages at a time).
   */
  async function terminateTwice(watcher: PostgresStore, app: string, running: () => boolean): Promise<number> {
    let kills = 0;
    for (const share of [0.25, 0.5]) {
      await waitLogged(watcher, PAGES * share, running);
      siteOptions.latencyMs = 400;
      try {
        if (await terminateWhileBusy(app, running)) kills++;
      } finally {
        siteOptions.latencyMs = 20;
      }
    }
    return kills;
  }

  /** Every page archived, none failed or left queued, and no row of a storage error taken for a page's fate. */
  async function expectComplete(watcher: PostgresStore): Promise<void> {
    const docs = await watcher.getDocuments(pageUrls());
    expect(docs.filter((d) => d.state !== 'fetched').map((d) => `${d.url} ${d.state}`)).toEqual([]);
    expect(docs.length).toBe(PAGES);
    const log = await watcher.log();
    expect(log.filter((e) => e.status !== 200).map((e) => `${e.url}: ${e.reason} ${e.error}`)).toEqual([]);
    const archived = new Set(log.filter((e) => e.warcFile).map((e) => e.url));
    expect(archived.size).toBe(PAGES);
    expect(await watcher.countDocuments('queued')).toBe(0);
  }

  it('a crawl whose connections the server terminates twice archives every page, and fails none', async () => {
    const db = newSchema('dm_pg_lost_crawl');
    const app = `dm_lost_${randomBytes(4).toString('hex')}`;
    const watcher = new PostgresStore(db, { max: 1 });
    await watcher.init();
    try {
      let running = true;
      const run = cli(['crawl', site.seed, '--db', named(db, app), '--data', tempDir(), ...fetchFlags]).finally(() => (running = false));
      const kills = await terminateTwice(watcher, app, () => running);
      const r = await run;
      expect(kills, 'the crawl ended before both terminations: make the site slower').toBe(2);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ documents: PAGES, errors: 0 });
      // Its live index is in the same database, and the summary says so (not a versions.sqlite that does not exist).
      expect(r.err).toMatch(/version index kept current: \d+ versions indexed \(postgres:\/\//);
      await expectComplete(watcher);
    } finally {
      await watcher.close();
    }
  }, LOADED_TIMEOUT_MS);

  it('a worker whose connections the server terminates twice archives every page, and fails none', async () => {
    const db = newSchema('dm_pg_lost_worker');
    const app = `dm_lost_${randomBytes(4).toString('hex')}`;
    const watcher = new PostgresStore(db, { max: 1 });
    await watcher.init();
    const root = tempDir();
    const seeds = path.join(root, 'seeds.txt');
    fs.writeFileSync(seeds, `${site.seed}\n`);
    try {
      let running = true;
      const worker = spawnWorker('w1', ['--db', named(db, app), '--data', root, '--seeds', seeds, '--lease', '10s', '--idle-exit', '1s', ...fetchFlags]);
      const exited = worker.exited.finally(() => (running = false));
      const kills = await terminateTwice(watcher, app, () => running);
      const r = await exited;
      expect(kills, 'the worker ended before both terminations: make the site slower').toBe(2);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ documents: PAGES, errors: 0 });
      await expectComplete(watcher);
    } finally {
      await watcher.close();
    }
  }, LOADED_TIMEOUT_MS);

  /**
   * `command` (a crawl or a worker, its arguments after `--db URL`) through a proxy that goes down once
   * a quarter of the pages are logged and stays down: exit 75, nothing failed, the rest queued; with the
   * database back, the same command line finishes the work.
   */
  async function outlastsTheRetries(name: 'crawl' | 'worker', command: (db: string, dataDir: string) => string[]): Promise<void> {
    const db = newSchema(`dm_pg_down_${name}`);
    const watcher = new PostgresStore(db, { max: 1 });
    await watcher.init();
    const proxy = await startProxy(new URL(db));
    const viaProxy = new URL(db);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const args = command(viaProxy.toString(), tempDir());
    const env = { DATAMONITOR_DB_RETRY: '2s' };
    try {
      let running = true;
      const first = cli(args, { env }).finally(() => (running = false));
      await waitLogged(watcher, PAGES / 4, () => running);
      expect(running, `the ${name} ended before the database went away: make the site slower`).toBe(true);
      proxy.down();
      const r = await first;
      expect(r.code, r.err).toBe(75);
      expect(r.err).toMatch(new RegExp(`${name} stopped early: PostgreSQL at postgres://([^@/]+@)?127\\.0\\.0\\.1:\\d+/test\\?.*was lost or refused writes for .*, retried all the while \\(last error: .*\\): the URLs not archived stay queued; run the same command again once the database answers`));
      expect(r.err).not.toMatch(/\n\s+at /); // a message, not a stack trace
      expect(JSON.parse(r.out)).toMatchObject({ stoppedBy: 'database-unavailable', errors: 0 });
      // Nothing taken for a page's fate: no page failed, the rest still queued.
      expect(await watcher.countDocuments('failed')).toBe(0);
      expect((await watcher.log()).filter((e) => e.status !== 200).map((e) => `${e.url}: ${e.reason} ${e.error}`)).toEqual([]);
      expect(await watcher.countDocuments('queued')).toBeGreaterThan(0);

      proxy.up();
      const again = await cli(args, { env });
      expect(again.code, again.err).toBe(0);
      expect(JSON.parse(again.out)).toMatchObject({ errors: 0 });
      await expectComplete(watcher);
    } finally {
      await watcher.close();
      await proxy.close();
    }
  }

  it('a crawl whose database stays unreachable stops with exit 75 and its pages queued, and the same command finishes the work', async () => {
    await outlastsTheRetries('crawl', (db, dataDir) => ['crawl', site.seed, '--db', db, '--data', dataDir, ...fetchFlags]);
  }, LOADED_TIMEOUT_MS);

  it('a worker whose database stays unreachable stops with exit 75 and its pages queued, and the same command finishes the work', async () => {
    await outlastsTheRetries('worker', (db, dataDir) => {
      const seeds = path.join(dataDir, 'seeds.txt');
      fs.writeFileSync(seeds, `${site.seed}\n`);
      // A short lease: the host the first run could not give back is free again soon for the second.
      return ['worker', '--id', 'w1', '--db', db, '--data', dataDir, '--seeds', seeds, '--lease', '2s', '--idle-exit', '1s', ...fetchFlags];
    });
  }, LOADED_TIMEOUT_MS);
});
