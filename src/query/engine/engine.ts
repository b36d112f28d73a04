import { text } from 'node:stream/consumers';
import type { AnswerChange, AnswerVersions, EvolutionOptions, QueryOptions } from '../../versions/types.ts';
import type { StoreIdentity } from '../../versions/backend.ts';
import type { LexedQuery } from '../sparql-text.ts';
import { checkQueryText, DEFAULT_ENGINE, QueryLimitError, type EngineOptions, type LimitKind } from './limits.ts';
import { QueryUnit, type EngineResult, type UnitJob } from './unit.ts';
import type { ArchiveLocation, QueryTask } from './wire.ts';

/** Limits a query keeps meeting when run again on the same archive state: worth refusing at once. */
const REPEATABLE: LimitKind[] = ['time', 'memory', 'result', 'engine'];
/** Refusals remembered at most. */
const MAX_REFUSED = 1000;

/** Where a versioned store lives, for a query process to open (its open batch of writes committed first: that process reads the file). */
export function locationOf(archive: StoreIdentity): ArchiveLocation {
  archive.flush();
  return { file: archive.file, generation: archive.generation };
}

/**
 * SPARQL queries in a small pool of throw-away processes (unit.ts; or one worker thread: host.ts), so
 * that no query can harm the process that asks: each runs under the time, memory and result limits; `workers` run at once and
 * `queue` wait, a query beyond those is refused (busy, with a Retry-After). Identical queries asked
 * while one runs wait for it instead of taking more processes; one that ran over a limit is refused
 * at once for `refuseAgainMs`. So ten copies of a runaway query cost one process for one time limit,
 * and ordinary queries keep being answered meanwhile.
 */
export class QueryEngine {
  readonly options: EngineOptions;
  private units: QueryUnit[] = [];
  private readonly queue: UnitJob[] = [];
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly refused = new Map<string, { error: QueryLimitError; until: number; at: number }>();
  private closed = false;

  constructor(options: Partial<EngineOptions> = {}) {
    this.options = { ...DEFAULT_ENGINE, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
    const { isolation, ...numbers } = this.options;
    for (const [name, value] of Object.entries(numbers)) {
      if (!(Number.isFinite(value) && value >= 0)) throw new RangeError(`query engine option ${name} must be a number ≥ 0, got ${value}`);
    }
    if (this.options.workers < 1) throw new RangeError('the query engine needs at least one worker');
    if (isolation !== 'process' && isolation !== 'thread') throw new RangeError(`query engine isolation must be 'process' or 'thread', got ${isolation}`);
    // A thread's memory is measured as what it adds to the process: two at once would each count the other's.
    if (isolation === 'thread' && this.options.workers !== 1) throw new RangeError('query threads run one at a time (workers: 1); use process isolation for more');
  }

  /**
   * Runs `sparql` over the archive at `location` (runQuery's semantics and options) in a query process.
   * Resolves with the result's head and its body as a stream once the result is ready; rejects with a
   * UserError for a wrong query, a QueryLimitError for one over a limit (or the engine busy), or an
   * AbortError when `signal` aborts first (a running query's process is then ended). `sparql` may come
   * lexed (lexQuery) by a caller that analysed it: the limits are then checked on its tokens.
   */
  run(location: ArchiveLocation, sparql: string | LexedQuery, opts: QueryOptions = {}, signal?: AbortSignal): Promise<EngineResult> {
    const text = typeof sparql === 'string' ? sparql : sparql.text;
    return this.submit(location, { file: location.file, sparql: text, opts }, signal, sparql);
  }

  /** Ver(Q) (`versions`) or Change(Q) (`changes`), as queryVersions / queryChanges, in a query process under the same limits. */
  versions(location: ArchiveLocation, sparql: string, window: EvolutionOptions = {}, signal?: AbortSignal): Promise<AnswerVersions[]> {
    return this.overTime(location, 'versions', sparql, window, signal) as Promise<AnswerVersions[]>;
  }

  changes(location: ArchiveLocation, sparql: string, window: EvolutionOptions = {}, signal?: AbortSignal): Promise<AnswerChange[]> {
    return this.overTime(location, 'changes', sparql, window, signal) as Promise<AnswerChange[]>;
  }

  private async overTime(location: ArchiveLocation, kind: 'versions' | 'changes', sparql: string, window: EvolutionOptions, signal?: AbortSignal): Promise<unknown> {
    const result = await this.submit(location, { file: location.file, sparql, opts: {}, evolution: { kind, window } }, signal);
    return JSON.parse(await text(result.body));
  }

  private async submit(location: ArchiveLocation, task: QueryTask, signal?: AbortSignal, lexed: string | LexedQuery = task.sparql): Promise<EngineResult> {
    checkQueryText(lexed, this.options);
    const key = JSON.stringify([location.generation ?? null, task]);
    for (;;) {
      signal?.throwIfAborted();
      const refusal = this.refusal(key);
      if (refusal) throw refusal;
      const running = this.inFlight.get(key);
      if (!running) break;
      await abortable(running, signal);
    }
    const result = this.enqueue(task, signal);
    const settled = result.then(() => undefined, (e: unknown) => {
      if (e instanceof QueryLimitError && REPEATABLE.includes(e.kind) && this.options.refuseAgainMs > 0) {
        this.refused.set(key, { error: e, at: Date.now(), until: Date.now() + this.options.refuseAgainMs });
        // Bounded: many different runaway queries must not grow the server (the oldest refusal goes first).
        if (this.refused.size > MAX_REFUSED) this.refused.delete(this.refused.keys().next().value!);
      }
    }).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, settled);
    return result;
  }

  /** Starts the query processes now (they take about a second to load), so the first query does not wait for one. */
  warm(): void {
    while (!this.closed && this.units.length < this.options.workers) this.units.push(this.spawn());
  }

  /** Processes, busy ones, those evaluating a query, and queries waiting (for the dashboard and tests). */
  get load(): { processes: number; busy: number; evaluating: number; queued: number } {
    return { processes: this.units.length, busy: this.units.filter((u) => u.busy).length, evaluating: this.units.filter((u) => u.evaluating).length, queued: this.queue.length };
  }

  /** The query processes' ids. */
  get pids(): number[] {
    return this.units.map((u) => u.pid).filter((p): p is number => p !== undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new QueryLimitError('busy', 'the server is shutting down'));
    const units = this.units;
    this.units = [];
    await Promise.all(units.map((u) => u.stop()));
  }

  private refusal(key: string): QueryLimitError | undefined {
    const now = Date.now();
    for (const [k, r] of this.refused) if (r.until <= now) this.refused.delete(k);
    const r = this.refused.get(key);
    if (!r) return undefined;
    const ago = Math.max(1, Math.round((now - r.at) / 1000));
    return new QueryLimitError(r.error.kind, `${r.error.detail} ${ago} s ago; the same query on the same archive is refused without running until ${new Date(r.until).toISOString()}`);
  }

  private enqueue(task: QueryTask, signal?: AbortSignal): Promise<EngineResult> {
    if (this.closed) return Promise.reject(new QueryLimitError('busy', 'the query engine is closed'));
    const free = this.units.some((u) => u.available) || this.units.length < this.options.workers;
    if (!free && this.queue.length >= this.options.queue) {
      const retryAfter = Math.min(60, Math.max(1, Math.ceil(this.options.timeMs / 1000)));
      return Promise.reject(new QueryLimitError('busy', `the query engine is busy (${this.options.workers} queries running, ${this.queue.length} waiting)`, { retryAfter }));
    }
    return new Promise<EngineResult>((resolve, reject) => {
      const job: UnitJob = { task, signal, resolve, reject };
      this.queue.push(job);
      signal?.addEventListener('abort', () => {
        const i = this.queue.indexOf(job);
        if (i < 0) return; // started: the unit handles its abort
        this.queue.splice(i, 1);
        reject(signal.reason instanceof Error ? signal.reason : new DOMException('the query was cancelled', 'AbortError'));
      }, { once: true });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length && !this.closed) {
      let unit = this.units.find((u) => u.free);
      if (!unit && this.units.length < this.options.workers) this.units.push((unit = this.spawn()));
      if (!unit) return;
      unit.run(this.queue.shift()!);
    }
  }

  private spawn(): QueryUnit {
    return new QueryUnit(this.options, () => this.dispatch(), (dead) => {
      this.units = this.units.filter((u) => u !== dead);
      // The next query gets a fresh process at once (kept warm); one that never started is not retried in a loop.
      if (!this.closed && dead.started && this.units.length < this.options.workers) this.units.push(this.spawn());
      this.dispatch();
    }, this.options.isolation);
  }
}

/** `p`, or the abort of `signal` if it comes first. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new DOMException('the query was cancelled', 'AbortError'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
