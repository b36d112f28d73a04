import { TsThread } from '../util/ts-thread.ts';
import { toWire, type ArchivedExchange, type ArchiveWriter, type ExchangeInput } from './warc-writer.ts';
import type { WarcMessage } from './warc-writer-worker.ts';

/**
 * The WARC writer on a thread of its own: record building, gzip and appends (a third of the
 * crawler's CPU when done inline; bench/RESULTS.md) run beside the crawl. Same promise as
 * WarcWriter.writeExchange: it resolves once the records are written, with their offsets.
 */
export class WarcWriterThread extends TsThread implements ArchiveWriter {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: ArchivedExchange) => void; reject: (e: Error) => void }>();

  constructor(readonly dataDir: string, options: { maxFileBytes?: number; maxOpenFiles?: number } = {}) {
    super(new URL('./warc-writer-worker.ts', import.meta.url), { dataDir, options });
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
    // The flat form, with the body moved (transferred), not cloned.
    const wire = toWire(ex, true);
    return new Promise<ArchivedExchange>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'write', id, wire } satisfies WarcMessage, [wire.body.buffer as ArrayBuffer]);
    });
  }
}
