/** The thread side of SyncPg (sync-pg.ts): one client, one batch of statements at a time. */
import pg from 'pg';
import { workerData, type MessagePort } from 'node:worker_threads';
import { serveThread } from './ts-thread.ts';
import type { SyncStatement } from './sync-pg.ts';

const { connectionString, schema, readonly, signal } = workerData as { connectionString: string; schema?: string; readonly: boolean; signal: SharedArrayBuffer };
const flag = new Int32Array(signal);
const parseInt8 = (v: string) => Number(v);
const client = new pg.Client({
  connectionString,
  options: `${schema ? `-c search_path=${schema} ` : ''}-c synchronous_commit=off${readonly ? ' -c default_transaction_read_only=on' : ''}`,
  types: { getTypeParser: ((oid: number, format?: string) => (oid === 20 ? parseInt8 : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser },
});
client.on('error', () => {}); // a lost server is reported by the next statement
let connected: Promise<unknown> | undefined;

function answer(port: MessagePort, m: unknown): void {
  port.postMessage(m);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

serveThread<{ type: 'port'; port: MessagePort }>(async ({ port }) => {
  port.on('message', async (statements: SyncStatement[]) => {
    try {
      connected ??= client.connect();
      await connected;
      const results: unknown[][] = [];
      for (const s of statements) results.push((await client.query(s.sql, s.params)).rows);
      answer(port, { results });
    } catch (e) {
      const err = e as { message?: string; code?: string };
      answer(port, { error: err.message ?? String(e), code: err.code });
    }
  });
}, async () => {
  if (connected) await client.end().catch(() => undefined);
});
