import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, parentPort, type WorkerOptions } from 'node:worker_threads';

// The checkout's one way to run a TypeScript entry (bin/run-ts.mjs): in a thread it imports workerData.entry.
const TS_WORKER = new URL('../../bin/run-ts.mjs', import.meta.url);
const SRC = new URL('../', import.meta.url); // src/ in a checkout, dist/ in the package
const CHECKOUT = fileURLToPath(new URL('../', SRC));

/**
 * What a thread or child process boots for a module of the sources. Through tsx's loader a thread or
 * process costs 0.5-1 CPU-s more than plain node (bench/SUITE.md), and the test suite starts hundreds:
 * a `vitest run` bundles the sources' entry points once at its start (test/setup/bundle-sources.ts)
 * and names the directory in DATAMONITOR_SRC_BUNDLES; a bundle there, of this checkout, is booted
 * instead. Otherwise (the CLI, vitest's watch mode, dist/) the entry itself.
 */
export function bootable(entry: URL): URL {
  const bundles = process.env.DATAMONITOR_SRC_BUNDLES;
  if (!bundles || !/\.[cm]?ts$/.test(entry.pathname) || !entry.href.startsWith(SRC.href)) return entry;
  if (!path.resolve(bundles).startsWith(CHECKOUT)) return entry; // another checkout's bundles
  const bundle = path.join(bundles, decodeURIComponent(entry.pathname.slice(SRC.pathname.length)).replace(/\.[cm]?ts$/, '.mjs'));
  return existsSync(bundle) ? pathToFileURL(bundle) : entry;
}

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
    const boot = bootable(entry);
    const typescript = /\.[cm]?ts$/.test(boot.pathname);
    this.worker = new Worker(typescript ? TS_WORKER : boot, { ...options, workerData: { ...workerData, entry: boot.href } });
  }

  close(): Promise<void> {
    // A thread that has ended (a crash) would never answer, nor exit again.
    if (this.worker.threadId === -1) this.closed ??= Promise.resolve();
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
