import { MinHeap } from '../util/heap.ts';

/**
 * The politeness queue (Mercator's back queues): one queue per host, and a host is offered only when
 * it may be fetched now. A request to a host starts no earlier than the previous start plus the
 * host's delay, and, with one request in flight per host, not before the previous one ended.
 */

export interface FrontierEntry {
  url: string;
  host: string;
  depth: number;
  /** Lower is fetched first (BFS: discovery order; other orderings map their importance here). */
  key: number;
  /** Reached through a vocabulary link: fetched whatever the depth. */
  vocabulary?: boolean;
  /** Times this URL was put back after a Retry-After or a deferred robots.txt. */
  retries?: number;
}

interface HostState {
  host: string;
  queue: MinHeap<FrontierEntry>;
  inFlight: number;
  readyAt: number;
  lastStart: number;
  delayMs: number;
  /** Consecutive failures (back-off grows with them). */
  failures: number;
  /** Whether the host sits in one of the two heaps now. */
  scheduled: boolean;
}

export interface HostQueueOptions {
  delayMs: number;
  perHost: number;
  /** Longest back-off after repeated errors. */
  maxBackoffMs?: number;
}

export class HostQueues {
  private hosts = new Map<string, HostState>();
  /** Hosts with work that must wait, by the time they become ready. */
  private waiting = new MinHeap<HostState>();
  /** Hosts with work that may go now, by the key of their best entry. */
  private ready = new MinHeap<HostState>();
  private count = 0;

  constructor(private readonly opts: HostQueueOptions) {}

  get size(): number {
    return this.count;
  }

  get hostCount(): number {
    return this.hosts.size;
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      s = { host, queue: new MinHeap(), inFlight: 0, readyAt: 0, lastStart: -Infinity, delayMs: this.opts.delayMs, failures: 0, scheduled: false };
      this.hosts.set(host, s);
    }
    return s;
  }

  private schedule(s: HostState): void {
    if (s.scheduled || s.queue.size === 0 || s.inFlight >= this.opts.perHost) return;
    s.scheduled = true;
    this.waiting.push(s, s.readyAt);
  }

  push(entry: FrontierEntry): void {
    const s = this.state(entry.host);
    s.queue.push(entry, entry.key);
    this.count++;
    this.schedule(s);
  }

  /** Sets a host's delay (from robots.txt Crawl-delay; never below the configured delay). */
  setDelay(host: string, delayMs: number): void {
    const s = this.state(host);
    s.delayMs = Math.max(this.opts.delayMs, delayMs);
  }

  /** The best entry of any host that may be fetched at `now`, marking that host busy. */
  pop(now: number): FrontierEntry | undefined {
    while (this.waiting.size > 0 && (this.waiting.peekKey() as number) <= now) {
      const w = this.waiting.pop() as HostState;
      // A back-off may have moved the host's time since it was queued.
      if (w.readyAt > now) this.waiting.push(w, w.readyAt);
      else this.ready.push(w, w.queue.peekKey() as number);
    }
    let s = this.ready.pop();
    while (s && s.readyAt > now) {
      this.waiting.push(s, s.readyAt);
      s = this.ready.pop();
    }
    if (!s) return undefined;
    s.scheduled = false;
    const entry = s.queue.pop() as FrontierEntry;
    this.count--;
    s.inFlight++;
    s.lastStart = now;
    s.readyAt = now + s.delayMs;
    this.schedule(s);
    return entry;
  }

  /** When the next host becomes ready, if any is waiting. */
  nextReadyAt(): number | undefined {
    if (this.ready.size > 0) return 0;
    return this.waiting.peekKey();
  }

  /** A fetch to `host` ended. `ok` false grows the host's back-off; `notBefore` defers it (Retry-After). */
  release(host: string, now: number, outcome: { ok: boolean; notBefore?: number; startedAt?: number }): void {
    const s = this.state(host);
    // The request may have started after the pop (robots.txt came first): space from the real start.
    if (outcome.startedAt !== undefined) s.lastStart = Math.max(s.lastStart, outcome.startedAt);
    s.inFlight = Math.max(0, s.inFlight - 1);
    s.failures = outcome.ok ? 0 : s.failures + 1;
    const backoff = s.failures === 0 ? 0 : Math.min(this.opts.maxBackoffMs ?? 300_000, s.delayMs * 2 ** s.failures);
    let readyAt = Math.max(s.lastStart + s.delayMs, now + backoff);
    if (this.opts.perHost === 1) readyAt = Math.max(readyAt, now);
    if (outcome.notBefore !== undefined) readyAt = Math.max(readyAt, outcome.notBefore);
    // A host already in a heap keeps its place; pop() re-checks readyAt.
    s.readyAt = Math.max(s.readyAt, readyAt);
    this.schedule(s);
  }

  /** Consecutive failures of a host (the crawler drops a host's queue after too many). */
  failures(host: string): number {
    return this.hosts.get(host)?.failures ?? 0;
  }

  /** Removes and returns every queued entry of a host. */
  drain(host: string): FrontierEntry[] {
    const s = this.hosts.get(host);
    if (!s) return [];
    const out: FrontierEntry[] = [];
    for (let e = s.queue.pop(); e; e = s.queue.pop()) out.push(e);
    this.count -= out.length;
    return out;
  }

  /** Every queued entry, for persisting state. */
  *entries(): IterableIterator<FrontierEntry> {
    for (const s of this.hosts.values()) yield* s.queue.values();
  }
}
