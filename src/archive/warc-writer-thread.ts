import { Worker } from 'node:worker_threads';
import type { ArchivedExchange, ExchangeInput } from './warc-writer.ts';
import type { WarcMessage } from './warc-writer-worker.ts';

const TS_WORKER = new URL('../util/ts-worker.mjs', import.meta.url);
const ENTRY = new URL('./warc-writer-worker.ts', import.meta.url).href;

/**
 * The WARC writer on a thread of its own: record building, gzip and appends (a third of the
 * crawler's CPU when done inline; bench/RESULTS.md) run beside the crawl. Same promise as
 * WarcWriter.writeExchange: it resolves once the records are written, with their offsets.
 */
export class WarcWriterThread {
  private readonly worker: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: ArchivedExchange) => void; reject: (e: Error) => void }>();
  private closed?: Promise<void>;

  constructor(readonly dataDir: string, options: { maxFileBytes?: number; maxOpenFiles?: number } = {}) {
    this.worker = new Worker(TS_WORKER, { workerData: { entry: ENTRY, dataDir, options } });
    this.worker.on('message', (m: { type: string; id: number; result?: ArchivedExchange; error?: string }) => {
      if (m.type !== 'written') return;
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error) p?.reject(new Error(`WARC writer: ${m.error}`));
      else p?.resolve(m.result as ArchivedExchange);
    });
    this.worker.on('error', (e) => {
      for (const p of this.pending.values()) p.reject(new Error(`WARC writer thread failed: ${e.message}`));
      this.pending.clear();
    });
  }

  writeExchange(ex: ExchangeInput): Promise<ArchivedExchange> {
    const id = this.nextId++;
    // Only what the records need crosses over: not the decoded body.
    const { body: _body, ...response } = ex.response;
    return new Promise<ArchivedExchange>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'write', id, ex: { ...ex, response } } as unknown as WarcMessage);
    });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.worker.on('message', (m: { type: string }) => {
        if (m.type === 'closed') void this.worker.terminate().then(() => resolve());
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' } satisfies WarcMessage);
    });
    return this.closed;
  }
}
