import { TsThread } from '../util/ts-thread.ts';
import type { VersionMessage } from './version-store-worker.ts';

/** Versions queued for the writer thread before the crawler waits for it. */
const MAX_QUEUED = 2_000;

/**
 * Keeps `<data>/versions.sqlite` up to date from a thread of its own: the crawler hands over each
 * changed version's canonical N-Quads and goes on, so indexing versions for `query` runs on the
 * second core instead of costing the crawl (it was a fifth of the crawler's CPU; bench/RESULTS.md).
 * Versions of one graph are applied in the order given, and close() waits for all of them.
 */
export class VersionStoreThread extends TsThread {
  private queued = 0;
  private drained: Array<() => void> = [];
  readonly errors: string[] = [];

  constructor(dataDir: string) {
    super(new URL('./version-store-worker.ts', import.meta.url), { dataDir });
    this.worker.on('message', (m: { type: string; error?: string }) => {
      if (m.type !== 'done') return;
      this.queued--;
      if (m.error) this.errors.push(m.error);
      if (this.queued < MAX_QUEUED / 2) for (const wake of this.drained.splice(0)) wake();
    });
    this.worker.on('error', (e) => this.errors.push(`version store thread: ${e.message}`));
  }

  private async send(m: VersionMessage): Promise<void> {
    if (this.queued >= MAX_QUEUED) await new Promise<void>((r) => this.drained.push(r));
    this.queued++;
    this.worker.postMessage(m);
  }

  putVersion(graph: string, time: number, nquads: string): Promise<void> {
    return this.send({ type: 'put', graph, time, nquads });
  }

  deleteGraph(graph: string, time: number): Promise<void> {
    return this.send({ type: 'delete', graph, time });
  }
}
