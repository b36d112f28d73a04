import { Worker, parentPort, type WorkerOptions } from 'node:worker_threads';

const TS_WORKER = new URL('./ts-worker.mjs', import.meta.url);

/**
 * A worker thread running one of our modules, and the one way the project closes one: post
 * {type: 'close'}, wait for the thread's {type: 'closed'}, then end it. `entry` comes from
 * siblingModule(): a `.ts` file (running from src/) boots through tsx's loader, a compiled `.js`
 * file (dist/) runs on plain node, so the package needs no TypeScript tooling at run time.
 */
export class TsThread {
  readonly worker: Worker;
  private closed?: Promise<void>;

  constructor(entry: URL, workerData: Record<string, unknown>, options: Pick<WorkerOptions, 'resourceLimits' | 'stdout' | 'stderr'> = {}) {
    const typescript = /\.[cm]?ts$/.test(entry.pathname);
    this.worker = new Worker(typescript ? TS_WORKER : entry, { ...options, workerData: { ...workerData, entry: entry.href } });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.worker.on('message', (m: { type: string }) => {
        if (m.type === 'closed') void this.worker.terminate().then(() => resolve());
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' });
    });
    return this.closed;
  }
}

/** The thread side: handles each message in turn, and on {type: 'close'} runs `close` and says so. */
export function serveThread<M extends { type: string }>(handle: (m: M) => Promise<void>, close: () => Promise<void>): void {
  const port = parentPort!;
  port.on('message', async (m: M | { type: 'close' }) => {
    if (m.type === 'close') {
      await close();
      port.postMessage({ type: 'closed' });
      return;
    }
    await handle(m as M);
  });
}
