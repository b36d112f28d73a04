/** The thread side of SyncPg (sync-pg.ts): one client, one batch of statements at a time, in order of sending. */
import pg from 'pg';
import { createHash } from 'node:crypto';
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

/**
 * Named (server-side prepared) statements of this connection, by their text: the first PREPARED_TEXTS
 * distinct texts asked for. The server keeps each one's plan (a generic plan after five runs), which
 * saves the planning that a selective read of the partitioned quads table spends most of its time in
 * (about 3 ms against 0.3 ms of execution). Never dropped, so bounded: texts past the bound are planned
 * each time, as unnamed statements are.
 */
const PREPARED_TEXTS = 100;
const prepared = new Map<string, string>();

function queryOf(s: SyncStatement): string | pg.QueryConfig {
  if (!s.prepared) return s.sql;
  let name = prepared.get(s.sql);
  if (name === undefined && prepared.size < PREPARED_TEXTS) prepared.set(s.sql, (name = `dm_${createHash('sha256').update(s.sql).digest('base64url').slice(0, 20)}`));
  return name === undefined ? s.sql : { name, text: s.sql };
}

async function runBatch(port: MessagePort, { statements, rollbackOnError }: { statements: SyncStatement[]; rollbackOnError: boolean }): Promise<void> {
  try {
    connected ??= client.connect();
    await connected;
    const results: unknown[][] = [];
    for (const s of statements) results.push((await client.query(queryOf(s), s.params)).rows);
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
