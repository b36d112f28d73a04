/** The thread side of SyncPg (sync-pg.ts): one client, one batch of statements at a time, in order of sending. */
import pg from 'pg';
import { workerData, type MessagePort } from 'node:worker_threads';
import { serveThread } from './ts-thread.ts';
import { clientConfig, PreparedNames } from './pg-client.ts';
import type { SyncStatement } from './sync-pg.ts';

const { connectionString, schema, readonly, signal } = workerData as { connectionString: string; schema?: string; readonly: boolean; signal: SharedArrayBuffer };
const flag = new Int32Array(signal);
const client = new pg.Client(clientConfig(connectionString, schema, readonly));
client.on('error', () => {}); // a lost server is reported by the next statement
let connected: Promise<unknown> | undefined;
const prepared = new PreparedNames();

async function runBatch(port: MessagePort, { statements, rollbackOnError }: { statements: SyncStatement[]; rollbackOnError: boolean }): Promise<void> {
  try {
    connected ??= client.connect();
    await connected;
    const results: unknown[][] = [];
    for (const s of statements) results.push((await client.query(prepared.query(s.sql, s.prepared), s.params)).rows);
    answer(port, { results });
  } catch (e) {
    const err = e as { message?: string; code?: string };
    if (rollbackOnError) await client.query('ROLLBACK').catch(() => undefined);
    answer(port, { error: err.message ?? String(e), code: err.code });
  }
}

/** Posts a batch's reply, then counts it: the caller waits on the count (SyncPg.replies). */
function answer(port: MessagePort, m: unknown): void {
  port.postMessage(m);
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}

serveThread<{ type: 'port'; port: MessagePort }>(async ({ port }) => {
  // One batch after the other, in order of sending: a batch sent without waiting (SyncPg.send) may be
  // followed by the next before it has run, and client.query would interleave their statements.
  let previous: Promise<void> = Promise.resolve();
  port.on('message', (batch: { statements: SyncStatement[]; rollbackOnError: boolean }) => {
    previous = previous.then(() => runBatch(port, batch));
  });
}, async () => {
  if (connected) await client.end().catch(() => undefined);
});
