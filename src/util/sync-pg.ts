import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { TsThread } from './ts-thread.ts';
import { siblingModule } from './sibling.ts';

/** One statement for SyncPg: `params` as node-postgres takes them (arrays become PostgreSQL arrays). */
export interface SyncStatement {
  sql: string;
  params?: unknown[];
  /** Prepared on the server once per connection and kept there with its plan (sync-pg-thread.ts): for a statement run often. */
  prepared?: boolean;
}

/** A statement PostgreSQL refused: its message, SQLSTATE and the statement's first words. */
export class SyncPgError extends Error {
  constructor(message: string, readonly code: string | undefined) {
    super(message);
    this.name = 'SyncPgError';
  }
}

/** What one call may wait for the server (a bulk index build included) before it is reported as hung. */
const CALL_TIMEOUT_MS = 30 * 60_000;

/**
 * PostgreSQL as a synchronous call, for code written against better-sqlite3's synchronous API (the
 * versioned store's seam: catch-up, planner and query readers all call it synchronously). One
 * node-postgres client lives on a worker thread; a call posts its statements on a MessagePort and
 * blocks on Atomics.wait until the thread has run them all and answered (the technique of synckit).
 * Several statements per call cost one thread hop, so callers batch what they can. int8 columns come
 * back as numbers: every id and time of the store is below 2^53.
 */
export class SyncPg {
  private readonly thread: TsThread;
  private readonly port: MessagePort;
  /** Replies the thread has posted so far (it adds one and notifies per batch of statements). */
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  private calls = 0;
  private sent = 0;
  private received = 0;
  /** The first statement of the last batch sent, for the message of a call that waits too long. */
  private lastSent = '';

  constructor(connectionString: string, opts: { schema?: string; readonly?: boolean } = {}) {
    const { port1, port2 } = new MessageChannel();
    this.thread = new TsThread(siblingModule(import.meta.url, './sync-pg-thread.ts'), {
      connectionString, schema: opts.schema, readonly: opts.readonly ?? false, signal: this.signal.buffer,
    });
    this.thread.worker.postMessage({ type: 'port', port: port2 }, [port2]);
    // The thread must not keep a finished command alive; close() ends it properly.
    this.thread.worker.unref();
    this.port = port1;
  }

  /** Runs the statements in order on the one connection; returns each one's rows. Throws the first error. */
  run<R = Record<string, unknown>>(statements: SyncStatement[]): R[][] {
    this.send(statements);
    return this.replies<R>().at(-1)!.results!;
  }

  /**
   * Sends statements to run after those sent before, without waiting for them: the caller goes on (reads
   * the next batch of a catch-up) while the server works. Their outcome is read by the next call (run or
   * settle), which throws their error if they failed. The thread runs batches one after the other, in order.
   * `rollbackOnError`: a failed statement is followed by ROLLBACK at once, so that whatever comes next does
   * not meet an aborted transaction (no one is waiting to roll it back).
   */
  send(statements: SyncStatement[], opts: { rollbackOnError?: boolean } = {}): void {
    if (this.closed) throw new Error('the PostgreSQL connection of the versioned store is closed');
    this.calls++;
    this.port.postMessage({ statements, rollbackOnError: opts.rollbackOnError ?? false });
    this.lastSent = statements[0]?.sql.slice(0, 60) ?? '';
    this.sent++;
  }

  /** Waits for every batch sent; throws the first error among them. */
  settle(): void {
    this.replies();
  }

  /** Every reply not read yet, in order of sending; throws the first error among them once all are read. */
  private replies<R>(): Array<{ results?: R[][]; error?: string; code?: string }> {
    const out: Array<{ results?: R[][]; error?: string; code?: string }> = [];
    while (this.received < this.sent) {
      const posted = Atomics.load(this.signal, 0);
      if (posted <= this.received) {
        if (Atomics.wait(this.signal, 0, posted, CALL_TIMEOUT_MS) === 'timed-out') {
          throw new Error(`PostgreSQL did not answer within ${CALL_TIMEOUT_MS / 60_000} min: ${this.lastSent}`);
        }
        continue;
      }
      const reply = receiveMessageOnPort(this.port)?.message as { results?: R[][]; error?: string; code?: string } | undefined;
      if (!reply) throw new Error('the PostgreSQL thread of the versioned store answered nothing');
      this.received++;
      out.push(reply);
    }
    const failed = out.find((r) => r.error !== undefined);
    if (failed) throw new SyncPgError(failed.error!, failed.code);
    return out;
  }

  /** Calls made so far: each one a thread hop and a round trip to the server (benches and tests count them). */
  get roundTrips(): number {
    return this.calls;
  }

  query<R = Record<string, unknown>>(sql: string, params?: unknown[]): R[] {
    return this.run<R>([{ sql, params }])[0]!;
  }

  /** Waits for what was sent (and throws its error, after closing) before closing the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    let late: unknown;
    try {
      this.settle();
    } catch (e) {
      late = e;
    }
    this.closed = true;
    this.port.close();
    await this.thread.close();
    if (late) throw late;
  }
}
