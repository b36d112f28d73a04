import { Readable } from 'node:stream';
import { UserError } from '../../util/errors.ts';
import { formatDuration } from '../../util/units.ts';
import { heapMbFor, startHost, type Isolation, type UnitHost } from './host.ts';
import { overMemory, overResult, overTime, QueryLimitError, type QueryLimits } from './limits.ts';
import type { FromUnit, QueryTask, ResultHead, ToUnit } from './wire.ts';

/** How often a running query's process is measured: a runaway product grows ~40 MB/s, so ~4 MB over at most. */
const SAMPLE_MS = 100;
/** Of the query process's stderr, the end is kept: a WebAssembly panic or V8's OOM report says what went wrong. */
const STDERR_TAIL = 4096;
/** What a process that ran out of memory leaves on stderr (V8, Rust's allocator, wasm-bindgen's panic hook). */
const OUT_OF_MEMORY = /heap out of memory|capacity overflow|memory allocation of \d+ bytes failed|out of memory|Allocation failed/i;

export interface EngineResult extends ResultHead {
  /** The serialised result, in chunks as the reader takes them; destroy it to stop early. */
  body: Readable;
}

export interface UnitJob {
  task: QueryTask;
  signal?: AbortSignal;
  resolve(r: EngineResult): void;
  reject(e: Error): void;
}

/** `recycling`: a job just ended and the process is being measured before it takes another. */
type State = 'starting' | 'idle' | 'running' | 'streaming' | 'recycling' | 'dead';

/**
 * One query process (or thread: host.ts) and the one job it runs at a time. The process is thrown away whenever a query
 * cannot be stopped any other way (over time, over memory, the client gone mid-evaluation: Oxigraph's
 * evaluation is synchronous WebAssembly, it has no cancellation point) or may have left it broken
 * (a panic). `onFree` tells the pool the unit can take the next job; `onDead` that it is gone.
 */
export class QueryUnit {
  private readonly host: UnitHost;
  private state: State = 'starting';
  private job?: UnitJob & { id: number };
  private nextId = 0;
  private timer?: NodeJS.Timeout;
  private sampler?: NodeJS.Timeout;
  private body?: Readable;
  /** Bytes of the body received, and its length from the head. */
  private received = 0;
  private expected = 0;
  /** Chunks asked for (or on their way) and not yet received. */
  private asked = 0;
  private stderr = '';
  private readonly abort = () => this.onAbort();

  constructor(
    private readonly limits: QueryLimits,
    private readonly onFree: (u: QueryUnit) => void,
    private readonly onDead: (u: QueryUnit) => void,
    isolation: Isolation = 'process',
  ) {
    const heapMb = heapMbFor(limits.memoryBytes);
    this.host = startHost(isolation, heapMb, {
      message: (m) => this.onMessage(m),
      stderr: (d) => (this.stderr = (this.stderr + d).slice(-STDERR_TAIL)),
      exit: (error) => this.died(error),
    });
    this.idle(); // unreferenced until a job comes
  }

  get busy(): boolean {
    return this.state === 'running' || this.state === 'streaming' || this.state === 'recycling' || (this.state === 'starting' && this.job !== undefined);
  }

  /** Evaluating a query (not starting, not sending a result). */
  get evaluating(): boolean {
    return this.state === 'running';
  }

  /** The query process's id (undefined for a thread). */
  get pid(): number | undefined {
    return this.host.pid;
  }

  /** Can take a job now (or as soon as it has started). */
  get free(): boolean {
    return (this.state === 'idle' || this.state === 'starting') && this.job === undefined;
  }

  /** Free, or about to be (measured after its job): a query may wait for it even when the queue takes none. */
  get available(): boolean {
    return this.free || (this.state === 'recycling' && this.job === undefined);
  }

  /** Whether it ever got ready: a process that cannot even start is not replaced in a loop. */
  get started(): boolean {
    return this.wasReady;
  }
  private wasReady = false;
  /** stop() was called: the exit is awaited, so the process must stay referenced until it comes. */
  private stopping = false;

  run(job: UnitJob): void {
    this.job = { ...job, id: this.nextId++ };
    this.host.ref();
    job.signal?.addEventListener('abort', this.abort, { once: true });
    if (this.state === 'idle') this.start();
  }

  /** Ends the process (whatever it is doing) and resolves once it is gone. */
  stop(): Promise<void> {
    if (this.state === 'dead' || this.host.ended) return Promise.resolve();
    this.stopping = true;
    return new Promise((resolve) => {
      this.exited.push(resolve);
      this.host.ref(); // an idle process is unreferenced: its exit must still be waited for
      this.kill();
    });
  }

  kill(): void {
    if (this.state !== 'dead') this.host.kill();
  }
  /** stop()'s waiters for the exit. */
  private readonly exited: Array<() => void> = [];

  private start(): void {
    const job = this.job!;
    this.state = 'running';
    this.send({ type: 'run', id: job.id, resultBytes: this.limits.resultBytes, ...job.task });
    this.timer = setTimeout(() => this.fail(overTime(this.limits), true), this.limits.timeMs);
    this.sampler = setInterval(() => void this.sample(job.id), SAMPLE_MS);
  }

  private async sample(id: number): Promise<void> {
    const bytes = await this.host.residentBytes();
    if (this.state === 'running' && this.job?.id === id && bytes !== undefined && bytes > this.limits.memoryBytes) this.fail(overMemory(this.limits, bytes), true);
  }

  private onMessage(m: FromUnit): void {
    if (m.type === 'ready') {
      if (this.state !== 'starting') return;
      this.wasReady = true;
      if (this.job) this.start();
      else {
        this.state = 'idle';
        this.idle();
      }
      return;
    }
    const job = this.job;
    if (!job || m.id !== job.id) return;
    if (m.type === 'error') {
      if (m.kind === 'user') return this.fail(new UserError(m.message, m.exitCode), false);
      if (m.kind === 'result') return this.fail(overResult(this.limits, m.bytes ?? 0), false);
      if (m.kind === 'engine') return this.fail(new QueryLimitError('engine', m.message), true);
      return this.fail(this.crash(`the query engine failed: ${m.message}`), true);
    }
    if (m.type === 'head') return this.streamTo(job, m);
    if (m.type === 'chunk') {
      this.arm(); // the reader took a chunk: it is still there
      this.received += m.data.byteLength;
      this.asked = Math.max(0, this.asked - 1);
      this.body?.push(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength));
      // Ended with its last byte, not one message later: the HTTP response ends with it (a client that
      // has every byte may close the server next, and the connection must be idle by then).
      if (this.received >= this.expected) this.endBody();
    }
  }

  private endBody(): void {
    this.body?.push(null);
    this.finish();
  }

  /** The result is ready: the job resolves with its head and a body that pulls chunks from the process. */
  private streamTo(job: UnitJob & { id: number }, head: ResultHead): void {
    this.stopWatching();
    this.state = 'streaming';
    const body = new Readable({
      read: () => {
        // One chunk asked at a time (the first comes unasked): the process never runs ahead of the reader.
        if (this.asked > 0 || this.received >= this.expected) return;
        this.asked++;
        this.send({ type: 'more', id: job.id });
      },
      destroy: (err, cb) => {
        // Destroyed before its end (the client went away): the process drops the rest and is free again.
        if (this.job === job && this.state === 'streaming') {
          this.send({ type: 'cancel', id: job.id });
          this.finish();
        }
        cb(err);
      },
    });
    this.body = body;
    this.received = 0;
    this.expected = head.bytes;
    this.asked = head.bytes > 0 ? 1 : 0; // the first chunk is on its way
    this.arm();
    const { form, format, mediaType, at, quads, bytes } = head;
    job.resolve({ form, format, mediaType, at, quads, bytes, body });
    if (bytes === 0) this.endBody();
  }

  /** While streaming: a reader that takes nothing for the time limit holds a process for nobody. */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.state !== 'streaming') return;
    this.timer = setTimeout(() => this.body?.destroy(new QueryLimitError('time', `the client read nothing for ${formatDuration(this.limits.timeMs)}`)), this.limits.timeMs);
  }

  private onAbort(): void {
    if (this.state === 'streaming') this.body?.destroy();
    else if (this.state === 'starting' && this.job) {
      // Not started yet: the process stays, for the next job.
      const job = this.job;
      this.job = undefined;
      job.reject(new DOMException('the query was cancelled', 'AbortError'));
    }
    else if (this.job) this.fail(new DOMException('the query was cancelled', 'AbortError'), true);
  }

  /** The job ends with `error`; `kill`: the process cannot be trusted or stopped otherwise. */
  private fail(error: Error, kill: boolean): void {
    const job = this.job;
    if (!job) return;
    if (kill) {
      this.job = undefined;
      this.stopWatching();
      job.signal?.removeEventListener('abort', this.abort);
      this.kill();
      job.reject(error);
      return;
    }
    job.reject(error);
    this.finish();
  }

  private crash(message: string): QueryLimitError {
    const tail = this.stderr.trim().split('\n').filter((l) => l.trim()).slice(-3).join(' / ');
    if (OUT_OF_MEMORY.test(this.stderr) || OUT_OF_MEMORY.test(message)) return overMemory(this.limits);
    return new QueryLimitError('crashed', `${message}${tail ? ` (${tail})` : ''}`);
  }

  private finish(): void {
    const job = this.job;
    this.job = undefined;
    this.body = undefined;
    this.stopWatching();
    job?.signal?.removeEventListener('abort', this.abort);
    void this.recycle();
  }

  /**
   * WebAssembly memory never shrinks: a process that grew on a big (but allowed) query would keep that
   * memory while idle. Over half its bound it is replaced instead of reused.
   */
  private async recycle(): Promise<void> {
    this.state = 'recycling';
    const bytes = await this.host.residentBytes();
    if (this.state !== 'recycling') return;
    if (bytes !== undefined && bytes > this.limits.memoryBytes / 2) return this.kill();
    this.state = 'idle';
    this.idle();
  }

  private idle(): void {
    if (this.stopping) return;
    // An idle process keeps neither the server's nor the CLI's process alive.
    this.host.unref();
    if (this.state === 'idle') this.onFree(this);
  }

  private died(error?: Error): void {
    for (const resolve of this.exited.splice(0)) resolve();
    if (this.state === 'dead') return;
    const wasStreaming = this.state === 'streaming';
    this.state = 'dead';
    this.stopWatching();
    const job = this.job;
    this.job = undefined;
    if (job) {
      job.signal?.removeEventListener('abort', this.abort);
      if (wasStreaming) this.body?.destroy(new Error('the query process ended while sending the result'));
      else job.reject(this.crash(error ? `the query thread failed: ${error.message}` : 'the query process ended'));
    }
    this.onDead(this);
  }

  private stopWatching(): void {
    clearTimeout(this.timer);
    clearInterval(this.sampler);
    this.timer = this.sampler = undefined;
  }

  private send(m: ToUnit): void {
    if (this.state === 'dead') return;
    this.host.send(m, () => this.kill());
  }
}
