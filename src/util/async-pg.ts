import pg from 'pg';
import type { Socket } from 'node:net';
import { clientConfig, PreparedNames } from './pg-client.ts';
import type { SyncStatement } from './sync-pg.ts';

/**
 * A second, asynchronous connection on the calling thread, for a read the caller can await (a query's
 * read-ahead: prepareQuery is asynchronous). A call through SyncPg waits for four wake-ups (the calling
 * thread posts, the connection thread wakes and writes, the server's backend wakes, the thread wakes
 * and posts, the caller wakes); here two (the backend, then this thread's event loop): 0.62–0.98 ms
 * median against 0.96–1.09 ms through the thread for the same prepared statement (bench/PG-VERSIONS.md).
 * Read-only, and a connection of its own: it sees what the SyncPg connection committed only once that
 * commit is acknowledged, so the caller settles SyncPg first. Idle, it keeps no process alive.
 */
export class AsyncPg {
  private readonly client: pg.Client;
  private readonly prepared = new PreparedNames();
  private readonly connected: Promise<void>;
  private running = 0;
  private ended = false;
  /** Set when the connection failed or was lost: the caller makes a new one, or goes on without. */
  broken = false;

  constructor(connectionString: string, schema: string | undefined) {
    // Named, so that an operator (and a test) can tell it from the thread's connection in pg_stat_activity.
    this.client = new pg.Client({ ...clientConfig(connectionString, schema, true), application_name: `datamonitor read-ahead${schema ? ` ${schema}` : ''}`.slice(0, 63) });
    this.client.on('error', () => {
      this.broken = true;
    });
    this.connected = this.client.connect().then(() => {
      this.socket()?.unref();
    }, (e: unknown) => {
      this.broken = true;
      throw e;
    });
    this.connected.catch(() => undefined); // reported by the query that awaits it
  }

  /** Resolves when connected (or rejects): a caller may choose not to wait for it. */
  get ready(): Promise<void> {
    return this.connected;
  }

  /** Runs one statement; its rows. A SQLSTATE error comes as node-postgres throws it (with `code`). */
  async query<R>(s: SyncStatement): Promise<R[]> {
    await this.connected;
    // Referenced while a statement runs: a process whose only work left is this answer must wait for it.
    if (this.running++ === 0) this.socket()?.ref();
    try {
      return (await this.client.query(this.prepared.query(s.sql, s.prepared), s.params)).rows as R[];
    } catch (e) {
      // An error without a SQLSTATE (a socket's), or of the connection's classes: do not use it again.
      const code = (e as { code?: unknown }).code;
      if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || /^(08|57P)/.test(code)) this.broken = true;
      throw e;
    } finally {
      if (--this.running === 0 && !this.ended) this.socket()?.unref();
    }
  }

  async close(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      await this.connected;
    } catch {
      return;
    }
    this.socket()?.ref(); // the server's goodbye is awaited
    await this.client.end().catch(() => undefined);
  }

  private socket(): Socket | undefined {
    return (this.client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  }
}
