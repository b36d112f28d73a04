import { MinHeap } from '../util/heap.ts';
import { HostTiming, type DeferredOrigin, type HostTimingOptions, type ReleaseOutcome } from './politeness.ts';
import { Heap, type FrontierSpill, type ParkedOrigin } from './spill.ts';
import type { Frontier, FrontierEntry, SideClock } from './types.ts';

export type { FrontierEntry } from './types.ts';

/**
 * The breadth-first frontier (Mercator's back queues): one queue per origin, and an origin is
 * offered only when politeness lets it be fetched now. Two heaps of origins, by ready time and by the
 * key of their best entry, make each pop O(log origins) at any crawl size.
 *
 * Bounded (`FrontierMemory`), it holds at most `maxEntries` queued URLs in memory, and as many origins besides
 * those with a request in flight. Past that, an origin's later entries go to the spill, and whole origins are
 * parked there (Heritrix's inactive queues) with their politeness state and their place in the heaps: the spill
 * indexes them by that place, so a pop brings back the origins whose time has come and the best ready one without
 * reading the others. An origin leaves memory in the order of the worst best entry (queues that are empty first:
 * an empty origin whose clock says nothing a new one would not is just forgotten). The heaps skip the entries of
 * origins that left (lazy deletion), so what comes out is what the unbounded frontier gives (test/frontier/spill.test.ts).
 */
interface OriginQueue {
  origin: string;
  /** The origin's host as its first entry gave it: every entry queued here shares this one string. */
  host: string;
  queue: MinHeap<FrontierEntry>;
  /** The heap the origin sits in now, and its key there (what a parked origin keeps of its place). */
  heap: Heap;
  heapKey: number;
  /** Entries of this origin in the spill. Never more than zero while `queue` is empty: a pop that empties it refills it. */
  spilled: number;
  /**
   * Every key in `queue` is at most `bound`, every key in the spill at least: popping memory first is popping
   * in key order. Set when the origin starts to spill, raised by each refill.
   */
  bound: number;
  /** The largest key pushed to `queue` since it was last empty (an upper bound after pops). */
  memMax: number;
  /** Counted in `hostCount`: queued to or released, not only named by a request beside the frontier. */
  counted: boolean;
  /** Parked or forgotten: the heaps' items for it are stale. */
  gone: boolean;
}

/** A bound on the entries (and origins) held in memory, past which the rest wait in `spill`. */
export interface FrontierMemory {
  maxEntries: number;
  spill: FrontierSpill;
}

/** Entries an origin takes back from the spill at once: its share of the bound, within reason. */
const REFILL_MIN = 16;
const REFILL_MAX = 1_024;
/** Parked origins whose time has come, read from the spill at once. */
const DUE_BATCH = 1_000;

export class HostQueues implements Frontier, SideClock {
  private readonly timing: HostTiming;
  private origins = new Map<string, OriginQueue>();
  private waiting = new MinHeap<OriginQueue>();
  private ready = new MinHeap<OriginQueue>();
  /** Origins in memory by the worst best entry first (keyed by its negation; empty ones at -Infinity): who leaves next. */
  private leaving = new MinHeap<OriginQueue>();
  private leavingKept = false;
  private count = 0;
  private inMemory = 0;
  private spillingOrigins = 0;
  private knownOrigins = 0;
  /** Whether an origin ever left memory: from then on, a new origin is asked of the spill. */
  private parkedAny = false;
  /** The latest time given to pop or release: a clock that says nothing new from then on may be dropped. */
  private lastNow = -Infinity;
  /** Spilled entries the spill did not give back (see refill). */
  lost = 0;
  /** The most entries held in memory at once. */
  peakMemoryEntries = 0;
  /** Entries that went to the spill, in all (an entry that goes there twice counts twice). */
  spilledEntries = 0;

  constructor(opts: HostTimingOptions, private readonly memory?: FrontierMemory) {
    this.timing = new HostTiming(opts, memory?.spill);
  }

  /** Queued entries held in memory (the rest, `size` minus these, are in the spill). */
  get memoryEntries(): number {
    return this.inMemory;
  }

  /** Origins held in memory. */
  get memoryOrigins(): number {
    return this.origins.size;
  }

  get size(): number {
    return this.count;
  }

  get hostCount(): number {
    return this.knownOrigins;
  }

  private newQueue(origin: string, host: string): OriginQueue {
    const q: OriginQueue = { origin, host, queue: new MinHeap(), heap: Heap.None, heapKey: 0, spilled: 0, bound: -Infinity, memMax: -Infinity, counted: false, gone: false };
    this.origins.set(origin, q);
    this.leave(q);
    return q;
  }

  /**
   * Notes the origin's place in the order of leaving memory. Kept only once memory was first full: a crawl that
   * never fills it pays nothing for it.
   */
  private leave(q: OriginQueue): void {
    if (!this.leavingKept) return;
    this.leaving.push(q, q.queue.size > 0 ? -q.queue.peekKey()! : -Infinity);
    if (this.leaving.size > 2 * this.origins.size + 64) {
      // One item per origin in memory is enough: a stale key is put right when it comes up.
      const once = new Set<OriginQueue>();
      this.leaving.retain((x) => !x.gone && !once.has(x) && Boolean(once.add(x)));
    }
  }

  /** The origin's queue in memory: brought back from the spill, or new. */
  private resident(origin: string, host = ''): OriginQueue {
    const q = this.origins.get(origin);
    if (q) {
      if (!q.host) q.host = host;
      return q;
    }
    const parked = this.parkedAny ? this.memory!.spill.parked(origin) : undefined;
    if (parked) return this.unpark(parked, true);
    return this.newQueue(origin, host);
  }

  private countOrigin(q: OriginQueue): void {
    if (q.counted) return;
    q.counted = true;
    // Once origins leave memory, the spill's names tell an origin seen before (and forgotten) from a new one.
    if (!this.parkedAny || this.memory!.spill.know(q.origin)) this.knownOrigins++;
  }

  /** Into a heap, noting where (the place a parked origin keeps). */
  private enter(q: OriginQueue, heap: Heap, key: number): void {
    q.heap = heap;
    q.heapKey = key;
    const h = heap === Heap.Waiting ? this.waiting : this.ready;
    h.push(q, key);
    if (this.memory && h.size > 2 * this.origins.size + 64) h.retain((x) => this.isCurrent(x, heap));
  }

  /** Whether a heap's item is the origin in memory still sitting there (not one that left, or moved). */
  private isCurrent(q: OriginQueue, heap: Heap): boolean {
    return q.heap === heap && !q.gone;
  }

  private schedule(q: OriginQueue): void {
    if (q.heap !== Heap.None || q.queue.size === 0 || !this.timing.hasRoom(q.origin)) return;
    this.enter(q, Heap.Waiting, this.timing.readyAt(q.origin));
  }

  push(entry: FrontierEntry): void {
    if (this.parkedAny && !this.origins.has(entry.origin) && this.toParked(entry)) return;
    const q = this.resident(entry.origin, entry.host);
    this.countOrigin(q);
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
    this.trim(1, q);
    if (this.inMemory >= (this.memory?.maxEntries ?? Number.POSITIVE_INFINITY)) {
      // The origin holds all the memory, and this entry is not its last: the origin goes to disk whole, this entry too.
      this.count--;
      this.park(q);
      this.toParked(entry);
      return;
    }
    this.keep(q, entry);
    this.schedule(q);
  }

  /** An entry of a parked origin joins it on disk, the origin scheduled as `schedule` would. False: not parked. */
  private toParked(entry: FrontierEntry): boolean {
    const spill = this.memory!.spill;
    const p = spill.parked(entry.origin);
    if (!p) return false;
    spill.put(p.origin, entry);
    p.count++;
    if (p.heap === Heap.None && p.clock.inFlight < this.timing.opts.perHost) {
      p.heap = Heap.Waiting;
      p.heapKey = this.timing.readyAtOf(p.origin, p.clock);
    }
    spill.park(p);
    this.count++;
    this.spilledEntries++;
    return true;
  }

  /** Whether an entry of `key` goes to the spill: the origin's later keys are there already, or the memory is full. */
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
      else this.leave(q);
    }
    return entry;
  }

  private refill(q: OriginQueue): void {
    const max = this.memory!.maxEntries;
    const share = Math.floor(max / Math.max(1, this.spillingOrigins));
    let want = Math.min(q.spilled, Math.max(REFILL_MIN, Math.min(REFILL_MAX, share)));
    this.trim(want, q);
    want = Math.max(1, Math.min(want, max - this.inMemory));
    const back = this.memory!.spill.take(q.origin, want);
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
    if (back.length > 0) this.leave(q);
  }

  /**
   * Parks origins until `room` more entries fit in the bound and the origins in memory fit it too (but `keep`, and
   * those with a request in flight unless nothing else makes room for entries).
   */
  private trim(room = 0, keep?: OriginQueue): void {
    const max = this.memory?.maxEntries ?? Number.POSITIVE_INFINITY;
    if (this.inMemory + room <= max && this.origins.size <= max) return;
    const over = (busy: number) => this.inMemory + room > max || this.origins.size - busy > max;
    if (!this.leavingKept) {
      this.leavingKept = true;
      for (const q of this.origins.values()) this.leave(q);
    }
    const busy: OriginQueue[] = [];
    let kept = false;
    while (over(busy.length) && this.leaving.size > 0) {
      const stamp = this.leaving.peekKey()!;
      const q = this.leaving.pop()!;
      if (q.gone) continue;
      const key = q.queue.size > 0 ? -q.queue.peekKey()! : -Infinity;
      if (q === keep) kept = true;
      else if (key !== stamp) this.leaving.push(q, key);
      else if (this.timing.clock(q.origin).inFlight > 0) busy.push(q);
      else this.park(q);
    }
    for (const q of busy) {
      if (this.inMemory + room > max && q.queue.size > 0) this.park(q);
      else this.leave(q);
    }
    if (kept) this.leave(keep!);
  }

  /** Takes an origin out of memory: its entries and clock to the spill, or nowhere when it has neither to keep. */
  private park(q: OriginQueue): void {
    const spill = this.memory!.spill;
    const forget = q.queue.size === 0 && q.spilled === 0 && this.timing.isDefault(q.origin, this.lastNow);
    if (q.spilled > 0) this.spillingOrigins--; // counts origins in memory
    for (let e = q.queue.pop(); e; e = q.queue.pop()) {
      spill.put(q.origin, e);
      this.inMemory--;
      q.spilled++;
      this.spilledEntries++;
    }
    this.origins.delete(q.origin);
    q.gone = true;
    const clock = this.timing.evict(q.origin)!;
    if (!this.parkedAny) {
      this.parkedAny = true;
      for (const o of this.origins.values()) if (o.counted) spill.know(o.origin);
    }
    if (q.counted) spill.know(q.origin);
    if (!forget) spill.park({ origin: q.origin, host: q.host, heap: q.heap, heapKey: q.heapKey, count: q.spilled, clock });
  }

  /** Brings a parked origin back into memory, in the heap it stood in when `enterHeap` (else the caller places it). */
  private unpark(p: ParkedOrigin, enterHeap: boolean): OriginQueue {
    this.memory!.spill.unpark(p.origin);
    this.timing.restore(p.origin, p.clock);
    const q = this.newQueue(p.origin, p.host);
    q.counted = true;
    q.spilled = p.count;
    if (enterHeap && p.heap !== Heap.None) this.enter(q, p.heap, p.heapKey);
    if (q.spilled > 0) {
      this.spillingOrigins++;
      this.refill(q);
    }
    this.trim(0, q);
    return q;
  }

  /** The parked origins whose ready time has come go where `pop` moves an origin of the waiting heap. */
  private admitDue(now: number): void {
    const spill = this.memory!.spill;
    for (let due = spill.due(now, DUE_BATCH); due.length > 0; due = due.length < DUE_BATCH ? [] : spill.due(now, DUE_BATCH)) {
      for (const p of due) {
        const readyAt = this.timing.readyAtOf(p.origin, p.clock);
        if (p.count === 0) p.heap = Heap.None;
        else if (readyAt > now) p.heapKey = readyAt;
        else Object.assign(p, { heap: Heap.Ready, heapKey: spill.head(p.origin) ?? 0 });
        spill.park(p);
      }
    }
  }

  /**
   * Brings an origin that a politeness call names into memory when it is parked: bounded, every clock in memory belongs
   * to an origin there, for `trim` to find. Unbounded, the call makes the clock alone, as it always did.
   */
  private touch(origin: string): void {
    if (this.memory) this.resident(origin);
  }

  setDelay(origin: string, delayMs: number): void {
    this.touch(origin);
    this.timing.setDelay(origin, delayMs);
  }

  pop(now: number, reject?: (entry: FrontierEntry) => boolean): FrontierEntry | undefined {
    this.lastNow = now;
    if (this.parkedAny) this.admitDue(now);
    while (this.waiting.size > 0 && (this.waiting.peekKey() as number) <= now) {
      const w = this.waiting.pop() as OriginQueue;
      if (!this.isCurrent(w, Heap.Waiting)) continue;
      w.heap = Heap.None;
      // A back-off, or a request to another origin of the hostname, may have moved the time since it was queued.
      const readyAt = this.timing.readyAt(w.origin);
      if (w.queue.size === 0) continue;
      if (readyAt > now) this.enter(w, Heap.Waiting, readyAt);
      else this.enter(w, Heap.Ready, w.queue.peekKey() as number);
    }
    for (let q = this.nextReady(); q; q = this.nextReady()) {
      q.heap = Heap.None;
      if (q.queue.size > 0 && !this.timing.ready(q.origin, now)) {
        this.enter(q, Heap.Waiting, this.timing.readyAt(q.origin));
        continue;
      }
      let entry = this.take(q);
      while (entry && reject?.(entry)) {
        this.count--;
        entry = this.take(q);
      }
      // An origin drained (or emptied by rejections) while it waited its turn leaves the heaps until a push.
      if (!entry) continue;
      this.count--;
      this.timing.start(q.origin, now);
      this.schedule(q);
      return entry;
    }
    return undefined;
  }

  /** The ready origin of the lowest key, in memory or parked (then brought back), out of its heap. */
  private nextReady(): OriginQueue | undefined {
    while (this.ready.size > 0 && !this.isCurrent(this.ready.peek()!, Heap.Ready)) this.ready.pop();
    const parked = this.parkedAny ? this.memory!.spill.best(this.ready.size === 0 ? Number.POSITIVE_INFINITY : (this.ready.peekKey() as number)) : undefined;
    if (parked) return this.unpark(parked, false);
    return this.ready.pop();
  }

  nextReadyAt(): number | undefined {
    if (this.ready.size > 0) return 0;
    const spill = this.parkedAny ? this.memory!.spill : undefined;
    if (spill?.best()) return 0;
    const parked = spill?.due(Number.POSITIVE_INFINITY, 1)[0]?.heapKey;
    const memory = this.waiting.peekKey();
    return parked === undefined ? memory : memory === undefined ? parked : Math.min(parked, memory);
  }

  release(origin: string, now: number, outcome: ReleaseOutcome): boolean {
    this.lastNow = now;
    const q = this.resident(origin);
    this.countOrigin(q);
    const accepted = this.timing.release(origin, now, outcome);
    this.schedule(q);
    this.leave(q);
    this.trim();
    return accepted;
  }

  acceptsWait(notBefore: number, now: number): boolean {
    return this.timing.acceptsWait(notBefore, now);
  }

  claim(origin: string, now: number, minDelayMs?: number): number {
    this.touch(origin);
    const at = this.timing.claim(origin, now, minDelayMs);
    this.trim();
    return at;
  }

  noteRequest(origin: string, time: number): void {
    this.touch(origin);
    this.timing.noteRequest(origin, time);
    this.trim();
  }

  failures(origin: string): number {
    if (this.origins.has(origin) || !this.parkedAny) return this.timing.failures(origin);
    return this.memory!.spill.parked(origin)?.clock.failures ?? 0;
  }

  backoffAfterFailure(origin: string): number {
    this.touch(origin);
    return this.timing.backoffAfterFailure(origin);
  }

  drain(origin: string): FrontierEntry[] {
    if (!this.origins.has(origin) && !(this.parkedAny && this.memory!.spill.parked(origin))) return [];
    const q = this.resident(origin);
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
    const inMemory = this.timing.deferred(now, queued);
    if (!this.parkedAny) return inMemory;
    const parked = this.memory!.spill.deferred(now).map((p) => ({ origin: p.origin, until: p.clock.notBefore, reason: p.clock.waitReason ?? 'waiting' }));
    return [...inMemory, ...parked].sort((a, b) => a.until - b.until);
  }
}
