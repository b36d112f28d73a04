/**
 * The WARC writer's thread: builds, compresses and appends the records of each exchange, and
 * answers with where they landed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcWriter, type WireExchange } from './warc-writer.ts';
import { serveThread } from '../util/ts-thread.ts';

export type WarcMessage = { type: 'write'; id: number; wire: WireExchange };

const writer = new WarcWriter(workerData.dataDir as string, workerData.options);

serveThread<WarcMessage>(async (m) => {
  try {
    parentPort!.postMessage({ type: 'written', id: m.id, result: await writer.writeWire(m.wire) });
  } catch (e) {
    parentPort!.postMessage({ type: 'written', id: m.id, error: (e as Error).message });
  }
}, () => writer.close());
