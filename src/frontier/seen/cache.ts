/**
 * In-memory caches of 64-bit fingerprints (hi/lo uint32 pairs) in front of the
 * disk-backed seen set, with the replacement policies compared in seed 002:
 * CLOCK (default), LRU, random replacement and static.
 *
 * All state lives in typed arrays: a slot array holds the keys, an open-addressing
 * table (linear probing, backward-shift deletion, no tombstones) maps a key to its
 * slot, and the policy keeps its bookkeeping per slot (a mark bit for CLOCK, an
 * intrusive doubly-linked list for LRU). No JS Map, no bigint in the hot path.
 * The caching lab runs these same classes over traces, so what it measures is
 * what the crawler uses.
 */

export type CachePolicy = 'clock' | 'lru' | 'random' | 'static';
export const CACHE_POLICIES: readonly CachePolicy[] = ['clock', 'lru', 'random', 'static'];

export interface FingerprintCache {
  readonly policy: CachePolicy;
  /** Most entries the cache can hold. */
  readonly capacity: number;
  /** Entries held now. */
  readonly size: number;
  /** Is the key cached? A hit counts as a use (marks it for CLOCK, moves it to the front for LRU). */
  has(hi: number, lo: number): boolean;
  /** Caches the key, evicting one entry by the policy when full (static: no-op). */
  add(hi: number, lo: number): void;
  /** One request as in the seed's simulations: a hit, or a miss that adds the key. Returns true on a hit. */
  access(hi: number, lo: number): boolean;
}

/** Key storage and key → slot lookup shared by all policies. */
abstract class SlotTable {
  readonly capacity: number;
  size = 0;
  protected readonly keyHi: Uint32Array;
  protected readonly keyLo: Uint32Array;
  /** slot + 1, 0 = empty bucket. */
  private readonly buckets: Int32Array;
  private readonly mask: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError(`cache capacity must be a non-negative integer, got ${capacity}`);
    this.capacity = capacity;
    this.keyHi = new Uint32Array(capacity);
    this.keyLo = new Uint32Array(capacity);
    let buckets = 2;
    while (buckets < capacity * 2) buckets *= 2; // load factor ≤ 1/2 keeps probes short
    this.buckets = new Int32Array(buckets);
    this.mask = buckets - 1;
  }

  /** Slot of the key or -1. Fingerprints are already uniform, so the low half is the hash. */
  protected find(hi: number, lo: number): number {
    const b = this.buckets, mask = this.mask, kh = this.keyHi, kl = this.keyLo;
    let i = lo & mask;
    for (;;) {
      const s = b[i] - 1;
      if (s < 0) return -1;
      if (kl[s] === lo && kh[s] === hi) return s;
      i = (i + 1) & mask;
    }
  }

  /** Puts a key (known absent) into a free slot. */
  protected place(slot: number, hi: number, lo: number): void {
    this.keyHi[slot] = hi;
    this.keyLo[slot] = lo;
    const b = this.buckets, mask = this.mask;
    let i = lo & mask;
    while (b[i] !== 0) i = (i + 1) & mask;
    b[i] = slot + 1;
  }

  /** Removes the key held in `slot` from the table (the slot itself is reused by the caller). */
  protected unplace(slot: number): void {
    const b = this.buckets, mask = this.mask, kl = this.keyLo;
    let i = kl[slot] & mask;
    while (b[i] !== slot + 1) i = (i + 1) & mask;
    // Backward-shift deletion: pull later entries of the probe run into the hole
    // unless their home bucket lies cyclically after the hole.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = b[j] - 1;
      if (s < 0) break;
      const home = kl[s] & mask;
      const between = i <= j ? home > i && home <= j : home > i || home <= j;
      if (!between) { b[i] = b[j]; i = j; }
    }
    b[i] = 0;
  }
}

/**
 * The policies that admit every missed key and evict one when full. They differ only in what a
 * hit does to an entry (`touched`), which slot goes (`victim`) and what a new entry starts as
 * (`admitted`).
 */
abstract class EvictingCache extends SlotTable {
  protected abstract touched(slot: number): void;
  /** Picks the slot to reuse and forgets its key in the policy's own structure. */
  protected abstract victim(): number;
  protected abstract admitted(slot: number): void;

  has(hi: number, lo: number): boolean {
    const s = this.find(hi, lo);
    if (s < 0) return false;
    this.touched(s);
    return true;
  }

  add(hi: number, lo: number): void {
    if (!this.has(hi, lo)) this.insert(hi, lo);
  }

  access(hi: number, lo: number): boolean {
    if (this.has(hi, lo)) return true;
    this.insert(hi, lo);
    return false;
  }

  private insert(hi: number, lo: number): void {
    if (this.capacity === 0) return;
    let slot: number;
    if (this.size < this.capacity) slot = this.size++;
    else {
      slot = this.victim();
      this.unplace(slot);
    }
    this.admitted(slot);
    this.place(slot, hi, lo);
  }
}

/** CLOCK (second chance): a hand sweeps the slots, clearing mark bits, and evicts the first unmarked entry. */
export class ClockCache extends EvictingCache implements FingerprintCache {
  readonly policy = 'clock' as const;
  private readonly mark: Uint8Array;
  private hand = 0;

  constructor(capacity: number) {
    super(capacity);
    this.mark = new Uint8Array(capacity);
  }

  protected touched(slot: number): void {
    this.mark[slot] = 1;
  }

  protected victim(): number {
    const mark = this.mark, cap = this.capacity;
    let h = this.hand;
    while (mark[h] !== 0) { mark[h] = 0; h = h + 1 === cap ? 0 : h + 1; }
    this.hand = h + 1 === cap ? 0 : h + 1;
    return h;
  }

  // A new entry starts unmarked: it earns its second chance by a hit, so one-off
  // URLs (most of a crawl's links) are the first to go.
  protected admitted(slot: number): void {
    this.mark[slot] = 0;
  }
}

/** LRU: an intrusive doubly-linked list over slots, most recent at the head. */
export class LruCache extends EvictingCache implements FingerprintCache {
  readonly policy = 'lru' as const;
  private readonly prev: Int32Array;
  private readonly next: Int32Array;
  private head = -1;
  private tail = -1;

  constructor(capacity: number) {
    super(capacity);
    this.prev = new Int32Array(capacity);
    this.next = new Int32Array(capacity);
  }

  protected touched(s: number): void {
    if (s === this.head) return;
    const prev = this.prev, next = this.next;
    const p = prev[s], n = next[s];
    next[p] = n; // s is not the head, so p ≥ 0
    if (n >= 0) prev[n] = p; else this.tail = p;
    prev[s] = -1;
    next[s] = this.head;
    prev[this.head] = s;
    this.head = s;
  }

  protected victim(): number {
    const slot = this.tail;
    this.tail = this.prev[slot];
    if (this.tail >= 0) this.next[this.tail] = -1; else this.head = -1;
    return slot;
  }

  protected admitted(slot: number): void {
    this.prev[slot] = -1;
    this.next[slot] = this.head;
    if (this.head >= 0) this.prev[this.head] = slot; else this.tail = slot;
    this.head = slot;
  }
}

/** Random replacement: evicts a uniformly chosen entry (xorshift32, seeded for reproducible runs). */
export class RandomCache extends EvictingCache implements FingerprintCache {
  readonly policy = 'random' as const;
  private state: number;

  constructor(capacity: number, seed = 0x9e3779b9) {
    super(capacity);
    this.state = seed | 0 || 1;
  }

  protected touched(): void {}

  protected victim(): number {
    let x = this.state;
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    this.state = x;
    return Math.floor(((x >>> 0) / 4294967296) * this.capacity);
  }

  protected admitted(): void {}
}

/**
 * Static cache: a fixed set of keys chosen beforehand (the seed: the most frequent
 * URLs of an earlier crawl) that never changes; other keys never enter it. A
 * preloaded key only answers "seen" once it has been added in this run, so the
 * cache never claims a URL the set does not hold (its first request is a miss,
 * as for every policy).
 */
export class StaticCache extends SlotTable implements FingerprintCache {
  readonly policy = 'static' as const;
  /** Preloaded keys (the fixed content); `size` counts those added so far. */
  readonly preloaded: number;
  private readonly present: Uint8Array;

  /** `keys` holds hi, lo pairs, most valuable first; at most `capacity` distinct keys are kept. */
  constructor(capacity: number, keys: Uint32Array = new Uint32Array(0)) {
    super(capacity);
    this.present = new Uint8Array(capacity);
    let n = 0;
    for (let i = 0; i + 1 < keys.length && n < capacity; i += 2) {
      if (this.find(keys[i], keys[i + 1]) < 0) this.place(n++, keys[i], keys[i + 1]);
    }
    this.preloaded = n;
  }

  has(hi: number, lo: number): boolean {
    const s = this.find(hi, lo);
    return s >= 0 && this.present[s] === 1;
  }

  add(hi: number, lo: number): void {
    const s = this.find(hi, lo);
    if (s >= 0 && this.present[s] === 0) { this.present[s] = 1; this.size++; }
  }

  access(hi: number, lo: number): boolean {
    if (this.has(hi, lo)) return true;
    this.add(hi, lo);
    return false;
  }
}

/** A cache of the given policy; `staticKeys` (hi, lo pairs, most valuable first) preloads a static cache. */
export function createCache(policy: CachePolicy, capacity: number, staticKeys?: Uint32Array): FingerprintCache {
  switch (policy) {
    case 'clock': return new ClockCache(capacity);
    case 'lru': return new LruCache(capacity);
    case 'random': return new RandomCache(capacity);
    case 'static': return new StaticCache(capacity, staticKeys);
    default: throw new RangeError(`unknown cache policy '${String(policy)}' (expected one of ${CACHE_POLICIES.join(', ')})`);
  }
}
