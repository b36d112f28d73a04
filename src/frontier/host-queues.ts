import { MinHeap } from '../util/heap.ts';
import { HostTiming, type DeferredOrigin, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import type { FrontierSpill } from './spill.ts';
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
  /** Entries of this origin in the spill. Never more than zero while `queue` is empty: a pop that empties it refills it. */
  spilled: number;
  /**
   * Every key in `queue` is at most `bound`, every key in the spill at least: popping memory first is popping
   * in key order. Set when the origin starts to spill, raised by each refill.
   */
  bound: number;
  /** The largest key pushed to `queue` since it was last empty (an upper bound after pops). */
  memMax: number;
}

/**
 * A bound on the entries held in memory, past which an origin's later entries go to `spill`. Each origin
 * keeps at least its best entry in memory, so the heaps never wait on the disk to know whom to serve.
 */
export interface FrontierMemory {
  maxEntries: number;
  spill: FrontierSpill;
}

/** Entries an origin takes back from the spill at once: its share of the bound, within reason. */
const REFILL_MIN = 16;
const REFILL_MAX = 1_024;

export class HostQueues implements Frontier {
  private readonly timing: HostTiming;
  private origins = new Map<string, OriginQueue>();
  private waiting = new MinHeap<OriginQueue>();
  private ready = new MinHeap<OriginQueue>();
  private count = 0;
  private inMemory = 0;
  private spillingOrigins = 0;
  /** Spilled entries the spill did not give back (see refill). */
  lost = 0;
  /** The most entries held in memory at once. */
  peakMemoryEntries = 0;
  /** Entries that went to the spill, in all. */
  spilledEntries = 0;

  constructor(opts: HostTimingOptions, private readonly memory?: FrontierMemory) {
    this.timing = new HostTiming(opts);
  }

  /** Queued entries held in memory (the rest, `size` minus these, are in the spill). */
  get memoryEntries(): number {
    return this.inMemory;
  }

  get size(): number {
    return this.count;
  }

  get hostCount(): number {
    return this.origins.size;
  }

  private queueOf(origin: string, host = ''): OriginQueue {
    let q = this.origins.get(origin);
    if (!q) this.origins.set(origin, (q = { origin, host, queue: new MinHeap(), scheduled: false, spilled: 0, bound: -Infinity, memMax: -Infinity }));
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
    this.count++;
    if (this.spills(q, entry.key)) {
      if (q.spilled++ === 0) {
        q.bound = q.memMax;
        this.spillingOrigins++;
      }
      this.memory!.spill.put(q.origin, entry);
      this.spilledEntries++;
      return; // the origin has entries in memory, so it is scheduled already if it may be
    }
    this.keep(q, entry);
    this.schedule(q);
  }

  /** Whether an entry of `key` goes to the spill: the memory is full, or the origin's later keys are there already. */
  private spills(q: OriginQueue, key: number): boolean {
    if (!this.memory) return false;
    if (q.spilled > 0) return key >= q.bound;
    return this.inMemory >= this.memory.maxEntries && q.queue.size > 0 && key >= q.memMax;
  }

  private keep(q: OriginQueue, entry: FrontierEntry): void {
    q.queue.push(entry, entry.key);
    if (entry.key > q.memMax) q.memMax = entry.key;
    if (++this.inMemory > this.peakMemoryEntries) this.peakMemoryEntries = this.inMemory;
  }

  /** The origin's best entry, out of memory; an origin that empties its memory takes its next entries from the spill. */
  private take(q: OriginQueue): FrontierEntry | undefined {
    const entry = q.queue.pop();
    if (!entry) return undefined;
    this.inMemory--;
    if (q.queue.size === 0) {
      q.memMax = -Infinity;
      if (q.spilled > 0) this.refill(q);
    }
    return entry;
  }

  private refill(q: OriginQueue): void {
    const share = Math.floor(this.memory!.maxEntries / Math.max(1, this.spillingOrigins));
    const back = this.memory!.spill.take(q.origin, Math.min(q.spilled, Math.max(REFILL_MIN, Math.min(REFILL_MAX, share))));
    for (const e of back) {
      if (e.host === q.host) e.host = q.host;
      this.keep(q, e);
    }
    q.spilled -= back.length;
    if (back.length > 0) q.bound = back.at(-1)!.key;
    if (back.length === 0 && q.spilled > 0) {
      // A spill that gives back less than it took (its file damaged under the crawl): those URLs stay queued
      // in the store, where a resume finds them, so the crawl goes on without them rather than waiting on them.
      this.lost += q.spilled;
      this.count -= q.spilled;
      q.spilled = 0;
    }
    if (q.spilled === 0) this.spillingOrigins--;
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
      let entry = this.take(q);
      while (entry && reject?.(entry)) {
        this.count--;
        entry = this.take(q);
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
    this.inMemory -= out.length;
    this.count -= out.length + q.spilled;
    q.memMax = -Infinity;
    if (q.spilled > 0) {
      out.push(...this.memory!.spill.take(q.origin, Number.POSITIVE_INFINITY));
      q.spilled = 0;
      this.spillingOrigins--;
    }
    return out;
  }

  deferred(now: number): DeferredOrigin[] {
    const queued = [...this.origins.values()].filter((q) => q.queue.size > 0).map((q) => q.origin);
    return this.timing.deferred(now, queued);
  }
}
