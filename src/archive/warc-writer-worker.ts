/**
 * The WARC writer's thread: builds, compresses and appends the records of each exchange, and
 * answers with where they landed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcWriter, type WireExchange } from './warc-writer.ts';
import { serveThread } from '../util/ts-thread.ts';

import type { ArchivedExchange } from './warc-writer.ts';

export type WarcMessage = { type: 'write'; batch: { id: number; wire: WireExchange }[] };
export type WarcReply = { type: 'written'; results: { id: number; result?: ArchivedExchange; error?: string }[] };

const writer = new WarcWriter(workerData.dataDir as string, workerData.options);

serveThread<WarcMessage>(async (m) => {
  const results = await Promise.all(m.batch.map(({ id, wire }) => writer.writeWire(wire).then(
    (result) => ({ id, result }),
    (e: Error) => ({ id, error: e.message }),
  )));
  parentPort!.postMessage({ type: 'written', results } satisfies WarcReply);
}, () => writer.close());
