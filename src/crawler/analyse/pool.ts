import os from 'node:os';
import type { ExtractInput } from '../../extract/types.ts';
import { TsThread } from '../../util/ts-thread.ts';
import { siblingModule } from '../../util/sibling.ts';
import { decodeQuads, type Analysis, type AnalyseOptions } from './analyse.ts';

/**
 * Analysis threads with a budget per document. A document that runs over its time is stopped by
 * ending its thread (a parser in a tight loop cannot be interrupted any other way) and a fresh
 * thread takes its place; one over its memory ends its own thread (V8's heap limit for the thread).
 * Either way the caller gets `over-budget` instead of a result, and other documents go on.
 */
export interface AnalysisBudget {
  /** Per document, counting only the thread's own work (not waits for remote contexts). */
  timeMs: number;
  /** Heap of one analysis thread. */
  memoryMb: number;
  threads: number;
}

export const DEFAULT_BUDGET: AnalysisBudget = {
  timeMs: 60_000,
  memoryMb: 1024,
  threads: Math.max(1, Math.min(4, os.availableParallelism() - 1)),
};

export interface WireInput extends Omit<ExtractInput, 'body'> { body: Uint8Array }
export interface WireAnalysis extends Omit<Analysis, 'quads'> { quads: string[] }

export type ToThread =
  | { type: 'analyse'; id: number; input: WireInput; maxQuads: number; remoteContexts: boolean; requisites?: boolean }
  | { type: 'loaded'; req: number; value?: unknown; error?: string };
export type FromThread =
  | { type: 'ready' }
  | { type: 'load'; id: number; req: number; url: string }
  | { type: 'done'; id: number; result: WireAnalysis }
  | { type: 'failed'; id: number; error: string };

/** An analysis, or why there is none: over its budget, or the extractor itself threw (a bug). */
export type PoolResult = { analysis: Analysis } | { overBudget: string } | { failed: string };

interface Job {
  id: number;
  input: ExtractInput;
  o: AnalyseOptions;
  resolve: (r: PoolResult) => void;
}

class Slot {
  readonly thread: TsThread;
  job?: Job;
  private timer?: NodeJS.Timeout;
  private remainingMs = 0;
  private loading = 0;

  /** Resolves once the thread has loaded its modules: its start-up is not the first document's cost. */
  private readonly ready: Promise<void>;
  private markReady!: () => void;

  constructor(private readonly pool: AnalysePool, private readonly budget: AnalysisBudget) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.thread = new TsThread(siblingModule(import.meta.url, './worker.ts'), {}, {
      resourceLimits: { maxOldGenerationSizeMb: budget.memoryMb, maxYoungGenerationSizeMb: Math.min(64, budget.memoryMb / 4) },
    });
    this.thread.worker.unref(); // an idle thread does not keep the process alive
    this.thread.worker.on('message', (m: FromThread) => this.onMessage(m));
    this.thread.worker.on('error', (e: Error & { code?: string }) => {
      this.finish({ overBudget: e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `over the memory budget of ${this.budget.memoryMb} MB` : `analysis thread failed: ${e.message}` }, true);
    });
    this.thread.worker.on('exit', () => this.finish({ overBudget: 'analysis thread ended' }, true));
  }

  start(job: Job): void {
    this.job = job;
    this.thread.worker.ref();
    void this.ready.then(() => {
      if (this.job === job) this.send(job);
    });
  }

  private send(job: Job): void {
    this.remainingMs = this.budget.timeMs;
    this.arm();
    const body = new Uint8Array(job.input.body); // a copy of its own, moved to the thread
    const input: WireInput = { url: job.input.url, mediaType: job.input.mediaType, charset: job.input.charset, headers: job.input.headers, body };
    this.thread.worker.postMessage({ type: 'analyse', id: job.id, input, maxQuads: job.o.maxQuads, remoteContexts: !!job.o.loadDocument, requisites: job.o.requisites } satisfies ToThread, [body.buffer as ArrayBuffer]);
  }

  private startedAt = 0;
  private arm(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(() => this.finish({ overBudget: `over the time budget of ${this.budget.timeMs} ms` }, true), this.remainingMs);
  }

  private pause(): void {
    clearTimeout(this.timer);
    this.remainingMs -= Date.now() - this.startedAt;
  }

  private onMessage(m: FromThread): void {
    if (m.type === 'ready') return this.markReady();
    const job = this.job;
    if (!job || m.id !== job.id) return;
    if (m.type === 'load') {
      // Waiting for the crawl's loader (politeness may delay it) is not the document's cost.
      if (this.loading++ === 0) this.pause();
      job.o.loadDocument!(m.url).then(
        (value) => ({ type: 'loaded', req: m.req, value }) as const,
        (e: unknown) => ({ type: 'loaded', req: m.req, error: e instanceof Error ? e.message : String(e) }) as const,
      ).then((reply) => {
        if (this.job !== job) return;
        if (--this.loading === 0) this.arm();
        try {
          this.thread.worker.postMessage(reply satisfies ToThread);
        } catch (e) {
          // A loaded document a thread cannot be sent (not cloneable) is that context's failure, not the crawl's.
          this.thread.worker.postMessage({ type: 'loaded', req: m.req, error: `context ${m.url} cannot be passed to the analysis thread: ${(e as Error).message}` } satisfies ToThread);
        }
      });
      return;
    }
    if (m.type === 'failed') return this.finish({ failed: m.error }, false);
    clearTimeout(this.timer); // the thread's work is done: remaking the quads here is not over its budget
    const { quads, ...rest } = m.result;
    void decodeQuads(quads).then((decoded) => this.finish({ analysis: { ...rest, quads: decoded } }, false));
  }

  private finish(r: PoolResult, replace: boolean): void {
    clearTimeout(this.timer);
    const job = this.job;
    if (replace) this.pool.replace(this);
    if (!job) return;
    this.job = undefined;
    this.loading = 0;
    if (!replace) this.thread.worker.unref();
    job.resolve(r);
    this.pool.next();
  }
}

export class AnalysePool {
  private slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(readonly budget: AnalysisBudget = DEFAULT_BUDGET) {}

  run(input: ExtractInput, o: AnalyseOptions): Promise<PoolResult> {
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, input, o, resolve });
      this.next();
    });
  }

  /** @internal */
  next(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.budget.threads) this.slots.push(slot = new Slot(this, this.budget));
      if (!slot) return;
      slot.start(this.queue.shift()!);
    }
  }

  /** @internal A thread that ran over, failed or ended is dropped; the next job starts a fresh one. */
  replace(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.slots.splice(i, 1);
    void slot.thread.worker.terminate();
  }

  async close(): Promise<void> {
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.thread.worker.terminate()));
  }
}
