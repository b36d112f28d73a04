/**
 * The catch-up's reading thread (src/versions/version-reader.ts VersionThread): reads, parses and puts in
 * the store's terms each version of a batch of log rows, and answers with the batch.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RecordReader } from '../archive/warc-reader.ts';
import { serveThread } from '../util/ts-thread.ts';
import { readVersion, toWire, type FromVersionThread, type ToVersionThread } from './version-reader.ts';

const reader = new RecordReader((workerData as { dataDir: string }).dataDir);

serveThread<ToVersionThread>(
  async (m) => {
    const versions = m.rows.map((row) => toWire(readVersion(reader, row)));
    parentPort!.postMessage({ type: 'read', id: m.id, versions } satisfies FromVersionThread);
  },
  async () => reader.close(),
);
