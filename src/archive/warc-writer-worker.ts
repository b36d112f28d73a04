/**
 * The WARC writer's thread: builds, compresses and appends the records of each exchange, and
 * answers with where they landed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcWriter, type WireExchange } from './warc-writer.ts';
import { serveThread } from '../util/ts-thread.ts';

import type { ArchivedExchange } from './warc-writer.ts';

export type WarcMessage = { type: 'write'; batch: { id: number; wire: WireExchange }[] };
/** `code` and `path` of a failed write, so that the crawl tells a full disk from a file it may not write (src/util/errors.ts). */
export type WarcReply = { type: 'written'; results: { id: number; result?: ArchivedExchange; error?: string; code?: string; path?: string }[] };

const writer = new WarcWriter(workerData.dataDir as string, workerData.options);

serveThread<WarcMessage>(async (m) => {
  const results = await Promise.all(m.batch.map(({ id, wire }) => writer.writeWire(wire).then(
    (result) => ({ id, result }),
    (e: NodeJS.ErrnoException) => ({ id, error: e.message, code: typeof e.code === 'string' ? e.code : undefined, path: e.path }),
  )));
  parentPort!.postMessage({ type: 'written', results } satisfies WarcReply);
}, () => writer.close());
