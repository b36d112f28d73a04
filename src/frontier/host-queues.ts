import { MinHeap } from '../util/heap.ts';
import { HostTiming, type DeferredOrigin, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import type { Frontier, FrontierEntry } from './types.ts';

export type { FrontierEntry } from './types.ts';

/**
 * The breadth-first frontier (Mercator's back queues): one queue per origin, and an origin is
 * offered only when politeness lets it be fetched now. Two heaps of origins, by ready time and by the
 * key of their best entry, make each pop O(log origins) at any crawl size.
 */
interface OriginQueue {
  origin: string;
  /** The origin's host as its first entry gave it: every entry queued here shares this one string. */
  host: string;
  queue: MinHeap<FrontierEntry>;
  /** Whether the origin sits in one of the two heaps now. */
  scheduled: boolean;
}

export class HostQueues implements Frontier {
  private readonly timing: HostTiming;
  private origins = new Map<string, OriginQueue>();
  private waiting = new MinHeap<OriginQueue>();
  private ready = new MinHeap<OriginQueue>();
  private count = 0;

  constructor(opts: HostTimingOptions) {
    this.timing = new HostTiming(opts);
  }

  get size(): number {
    return this.count;
  }

  get hostCount(): number {
    return this.origins.size;
  }

  private queueOf(origin: string, host = ''): OriginQueue {
    let q = this.origins.get(origin);
    if (!q) this.origins.set(origin, (q = { origin, host, queue: new MinHeap(), scheduled: false }));
    else if (!q.host) q.host = host;
    return q;
  }

  private schedule(q: OriginQueue): void {
    if (q.scheduled || q.queue.size === 0 || !this.timing.hasRoom(q.origin)) return;
    q.scheduled = true;
    this.waiting.push(q, this.timing.readyAt(q.origin));
  }

  push(entry: FrontierEntry): void {
    const q = this.queueOf(entry.origin, entry.host);
    // Each entry came with strings of its own for its origin and host, made from its URL; the queue's
    // copies serve them all: 215 -> 141 heap bytes per queued URL (bench/RESULTS.md#frontier-memory).
    entry.origin = q.origin;
    if (entry.host === q.host) entry.host = q.host;
    q.queue.push(entry, entry.key);
    this.count++;
    this.schedule(q);
  }

  setDelay(origin: string, delayMs: number): void {
    this.timing.setDelay(origin, delayMs);
  }

  pop(now: number, reject?: (entry: FrontierEntry) => boolean): FrontierEntry | undefined {
    while (this.waiting.size > 0 && (this.waiting.peekKey() as number) <= now) {
      const w = this.waiting.pop() as OriginQueue;
      // A back-off, or a request to another origin of the hostname, may have moved the time since it was queued.
      const readyAt = this.timing.readyAt(w.origin);
      if (w.queue.size === 0) w.scheduled = false;
      else if (readyAt > now) this.waiting.push(w, readyAt);
      else this.ready.push(w, w.queue.peekKey() as number);
    }
    for (let q = this.ready.pop(); q; q = this.ready.pop()) {
      if (q.queue.size > 0 && !this.timing.ready(q.origin, now)) {
        this.waiting.push(q, this.timing.readyAt(q.origin));
        continue;
      }
      let entry = q.queue.pop();
      while (entry && reject?.(entry)) {
        this.count--;
        entry = q.queue.pop();
      }
      // An origin drained (or emptied by rejections) while it waited its turn leaves the heaps until a push.
      q.scheduled = false;
      if (!entry) continue;
      this.count--;
      this.timing.start(q.origin, now);
      this.schedule(q);
      return entry;
    }
    return undefined;
  }

  nextReadyAt(): number | undefined {
    if (this.ready.size > 0) return 0;
    return this.waiting.peekKey();
  }

  release(origin: string, now: number, outcome: ReleaseOutcome): boolean {
    const accepted = this.timing.release(origin, now, outcome);
    this.schedule(this.queueOf(origin));
    return accepted;
  }

  acceptsWait(notBefore: number, now: number): boolean {
    return this.timing.acceptsWait(notBefore, now);
  }

  noteRequest(origin: string, time: number): void {
    this.timing.noteRequest(origin, time);
  }

  failures(origin: string): number {
    return this.timing.failures(origin);
  }

  backoffAfterFailure(origin: string): number {
    return this.timing.backoffAfterFailure(origin);
  }

  drain(origin: string): FrontierEntry[] {
    const q = this.origins.get(origin);
    if (!q) return [];
    const out: FrontierEntry[] = [];
    for (let e = q.queue.pop(); e; e = q.queue.pop()) out.push(e);
    this.count -= out.length;
    return out;
  }

  deferred(now: number): DeferredOrigin[] {
    const queued = [...this.origins.values()].filter((q) => q.queue.size > 0).map((q) => q.origin);
    return this.timing.deferred(now, queued);
  }
}
