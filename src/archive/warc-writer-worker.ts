/**
 * The WARC writer's thread: builds, compresses and appends the records of each exchange, and
 * answers with where they landed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcWriter, type ExchangeInput } from './warc-writer.ts';

export type WarcMessage = { type: 'write'; id: number; ex: ExchangeInput } | { type: 'close' };

const writer = new WarcWriter(workerData.dataDir as string, workerData.options);
const port = parentPort!;

port.on('message', async (m: WarcMessage) => {
  if (m.type === 'close') {
    await writer.close();
    port.postMessage({ type: 'closed' });
    return;
  }
  const r = m.ex.response;
  // Structured clone turns Buffers into plain Uint8Arrays: view them as Buffers again.
  r.rawBody = Buffer.from(r.rawBody.buffer, r.rawBody.byteOffset, r.rawBody.byteLength);
  try {
    port.postMessage({ type: 'written', id: m.id, result: await writer.writeExchange(m.ex) });
  } catch (e) {
    port.postMessage({ type: 'written', id: m.id, error: (e as Error).message });
  }
});
