import { TsThread } from '../util/ts-thread.ts';
import { siblingModule } from '../util/sibling.ts';
import { toWire, type ArchivedExchange, type ArchiveWriter, type ExchangeInput, type WireExchange } from './warc-writer.ts';
import type { WarcMessage, WarcReply } from './warc-writer-worker.ts';

/**
 * The writer thread's young generation. What it allocates lives for one batch (records built, compressed,
 * appended), and V8's default, semi-spaces of up to 16 MB (32 MB resident) sized for a main thread's
 * throughput, held 9 MB at most in a crawl of 20,000 pages. 12 MB gives semi-spaces of 4 MB: more frequent,
 * as short, scavenges. It cannot make the thread run out of memory: survivors go to the old generation,
 * whose limit stays V8's default.
 */
const WRITER_YOUNG_GENERATION_MB = 12;

/**
 * The WARC writer on a thread of its own: record building, gzip and appends, CPU work for every
 * page, run beside the crawl instead of between its fetches. Same promise as
 * WarcWriter.writeExchange: it resolves once the records are written, with their offsets.
 */
export class WarcWriterThread extends TsThread implements ArchiveWriter {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: ArchivedExchange) => void; reject: (e: Error) => void }>();
  /** Exchanges of this event-loop turn, sent as one message: each message has its own fixed cost on both threads. */
  private batch: { id: number; wire: WireExchange }[] = [];
  private transfer: ArrayBuffer[] = [];

  constructor(readonly dataDir: string, options: { maxFileBytes?: number; maxOpenFiles?: number } = {}) {
    super(siblingModule(import.meta.url, './warc-writer-worker.ts'), { dataDir, options }, { resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB } });
    this.worker.on('message', (m: WarcReply) => {
      if (m.type !== 'written') return;
      for (const r of m.results) {
        const p = this.pending.get(r.id);
        this.pending.delete(r.id);
        if (r.error) p?.reject(Object.assign(new Error(`WARC writer: ${r.error}`), { code: r.code, path: r.path }));
        else p?.resolve(r.result as ArchivedExchange);
      }
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
      if (this.batch.length === 0) setImmediate(this.send);
      this.batch.push({ id, wire });
      this.transfer.push(wire.body.buffer as ArrayBuffer);
    });
  }

  private readonly send = (): void => {
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    this.worker.postMessage({ type: 'write', batch } satisfies WarcMessage, transfer);
  };

  override close(): Promise<void> {
    // Exchanges still waiting for this turn's message go first: the thread handles messages in order.
    if (this.batch.length) this.send();
    return super.close();
  }
}
