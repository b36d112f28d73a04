import { describe, it, expect } from 'vitest';
import { ClockCache, LruCache, RandomCache, StaticCache, createCache, type FingerprintCache } from '../../src/frontier/seen/cache.ts';

/** Keys are small integers k → (hi = k >>> 3, lo = k * 2654435761): several share a hi, lo collides in small tables. */
const hi = (k: number) => k >>> 3;
const lo = (k: number) => Math.imul(k, 2654435761) >>> 0 || 1;
const access = (c: FingerprintCache, k: number) => c.access(hi(k), lo(k));
const run = (c: FingerprintCache, keys: number[]) => keys.map((k) => (access(c, k) ? 'H' : 'M')).join('');

describe('cache policies on hand-checkable traces', () => {
  it('cyclic trace one larger than the cache: LRU and CLOCK miss every time', () => {
    const cyclic = Array.from({ length: 40 }, (_, i) => i % 5);
    expect(run(new LruCache(4), cyclic)).toBe('M'.repeat(40));
    expect(run(new ClockCache(4), cyclic)).toBe('M'.repeat(40));
    // Random replacement keeps some luck on the same trace.
    expect(run(new RandomCache(4, 7), cyclic)).toContain('H');
  });

  it('LRU evicts the least recently used, CLOCK gives a marked entry a second chance', () => {
    // cache 2: 1 2 1 3 → both evict 2 (LRU: 1 was used later; CLOCK: 1's mark saves it), so 1 hits and 2 misses.
    expect(run(new LruCache(2), [1, 2, 1, 3, 1, 2])).toBe('MMHMHM');
    expect(run(new ClockCache(2), [1, 2, 1, 3, 1, 2])).toBe('MMHMHM');
    // Where they differ: 1 2 2 3 evicts 1 under both; for 4, LRU evicts 2 (least recent) while CLOCK clears 2's
    // mark and evicts the unmarked newcomer 3, so 3 then hits under LRU only.
    expect(run(new LruCache(2), [1, 2, 2, 3, 4, 2])).toBe('MMHMMM');
    expect(run(new ClockCache(2), [1, 2, 2, 3, 4, 3])).toBe('MMHMMM');
    expect(run(new LruCache(2), [1, 2, 2, 3, 4, 3])).toBe('MMHMMH');
  });

  it('static caches only its preloaded keys, and only once they have been added', () => {
    const keys = new Uint32Array([hi(1), lo(1), hi(2), lo(2), hi(3), lo(3)]);
    const c = new StaticCache(2, keys);
    expect(c.preloaded).toBe(2);
    expect(c.has(hi(1), lo(1))).toBe(false); // never added in this run: not claimed as seen
    expect(run(c, [1, 1, 3, 3, 2, 2, 1])).toBe('MHMMMHH');
    expect(c.size).toBe(2);
  });

  it('a zero-size cache never hits', () => {
    for (const p of ['clock', 'lru', 'random', 'static'] as const) expect(run(createCache(p, 0), [1, 1, 1])).toBe('MMM');
  });
});

describe('caches against a reference model on random streams', () => {
  function stream(n: number, universe: number, seed: number): number[] {
    let x = seed;
    const out: number[] = [];
    for (let i = 0; i < n; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; out.push((x >>> 0) % universe); }
    return out;
  }

  it('LRU matches a Map-based LRU hit for hit', () => {
    for (const cap of [1, 3, 17, 64]) {
      const keys = stream(20000, 200, cap + 1);
      const ref = new Map<number, true>();
      const expected = keys.map((k) => {
        if (ref.has(k)) { ref.delete(k); ref.set(k, true); return 'H'; }
        if (ref.size === cap) ref.delete(ref.keys().next().value!);
        ref.set(k, true);
        return 'M';
      }).join('');
      expect(run(new LruCache(cap), keys)).toBe(expected);
    }
  });

  it('CLOCK matches an array-based second-chance model, and every policy keeps size ≤ capacity with has() after add()', () => {
    const cap = 13;
    const keys = stream(20000, 100, 99);
    const slots: number[] = [], marks: number[] = [];
    let hand = 0;
    const expected = keys.map((k) => {
      const s = slots.indexOf(k);
      if (s >= 0) { marks[s] = 1; return 'H'; }
      if (slots.length < cap) { slots.push(k); marks.push(0); return 'M'; }
      while (marks[hand]) { marks[hand] = 0; hand = (hand + 1) % cap; }
      slots[hand] = k; marks[hand] = 0; hand = (hand + 1) % cap;
      return 'M';
    }).join('');
    expect(run(new ClockCache(cap), keys)).toBe(expected);
    for (const p of ['clock', 'lru', 'random'] as const) {
      const c = createCache(p, cap);
      for (const k of keys) {
        c.add(hi(k), lo(k));
        expect(c.has(hi(k), lo(k))).toBe(true);
      }
      expect(c.size).toBe(cap);
    }
  });
});
