/**
 * The versioned store's writer thread: versions arrive as canonical N-Quads, are parsed here and
 * put into `<data>/versions.sqlite`, off the crawler's thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Parser } from 'n3';
import { openVersionStore } from './version-store.ts';
import { serveThread } from '../util/ts-thread.ts';

export type VersionMessage = { type: 'put'; graph: string; time: number; nquads: string } | { type: 'delete'; graph: string; time: number };

const archive = openVersionStore(workerData.dataDir as string);

serveThread<VersionMessage>(async (m) => {
  try {
    if (m.type === 'put') await archive.putVersion(m.graph, m.time, new Parser({ format: 'N-Quads' }).parse(m.nquads));
    else await archive.deleteGraph(m.graph, m.time);
    parentPort!.postMessage({ type: 'done' });
  } catch (e) {
    parentPort!.postMessage({ type: 'done', error: `${m.graph}: ${(e as Error).message}` });
  }
}, () => archive.close());
