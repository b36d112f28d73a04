/**
 * The WARC writer's thread: builds, compresses and appends the records of each exchange, and
 * answers with where they landed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcWriter, type ExchangeInput } from './warc-writer.ts';
import { serveThread } from '../util/ts-thread.ts';

export type WarcMessage = { type: 'write'; id: number; ex: ExchangeInput };

const writer = new WarcWriter(workerData.dataDir as string, workerData.options);

serveThread<WarcMessage>(async (m) => {
  const r = m.ex.response;
  // Structured clone turns Buffers into plain Uint8Arrays: view them as Buffers again.
  r.rawBody = Buffer.from(r.rawBody.buffer, r.rawBody.byteOffset, r.rawBody.byteLength);
  try {
    parentPort!.postMessage({ type: 'written', id: m.id, result: await writer.writeExchange(m.ex) });
  } catch (e) {
    parentPort!.postMessage({ type: 'written', id: m.id, error: (e as Error).message });
  }
}, () => writer.close());
