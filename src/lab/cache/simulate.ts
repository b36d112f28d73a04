/**
 * The caching lab (seed 002): miss ratio against cache size for random
 * replacement, static, LRU, CLOCK, clairvoyant MIN and an infinite cache.
 *
 * Counting, as in seed 002: every request is a hit or a miss, and the first
 * request for a URL is a miss for every policy (a compulsory miss), so the miss
 * ratio of the infinite cache is distinct/requests and no curve falls below it.
 * Random, LRU and CLOCK run the crawler's own cache classes (src/frontier/seen/cache.ts).
 * Static here is the seed's clairvoyant static cache: it holds the k URLs most
 * frequent in this very trace (it knows the frequencies in advance).
 */
import { createCache } from '../../frontier/seen/cache.ts';
import { minMisses, nextUses } from './min.ts';
import type { FingerprintTrace } from './trace.ts';

export type LabPolicy = 'random' | 'static' | 'lru' | 'clock' | 'min' | 'infinite';
export const LAB_POLICIES: readonly LabPolicy[] = ['random', 'static', 'lru', 'clock', 'min', 'infinite'];

export interface CachePoint {
  size: number;
  misses: number;
  missRatio: number;
}

export interface CacheCurve {
  policy: LabPolicy;
  points: CachePoint[];
}

export interface CacheLabResult {
  requests: number;
  distinct: number;
  sizes: number[];
  curves: CacheCurve[];
  /** How misses are counted and which policies are clairvoyant. */
  counting: string;
}

export const COUNTING_NOTE =
  'miss ratio = misses / requests; the first request of each URL counts as a miss for every policy (compulsory, as in seed 002), so "infinite" (distinct / requests) is the floor of every curve; MIN and static are clairvoyant (MIN knows the future requests, static knows the URL frequencies of this trace)';

/** Dense ids 0 … distinct−1 for the trace's fingerprints, by first appearance. */
export function denseIds(trace: FingerprintTrace): { ids: Int32Array; distinct: number } {
  const { fps, length: n } = trace;
  const ids = new Int32Array(n);
  let cap = 1 << 12;
  let table = new Int32Array(cap); // id + 1
  let keys = new Uint32Array(cap); // hi, lo per id (2 entries per id, capacity cap/2 ids)
  let distinct = 0;
  for (let t = 0; t < n; t++) {
    const hi = fps[2 * t], lo = fps[2 * t + 1];
    let mask = cap - 1;
    let i = lo & mask;
    let id = -1;
    for (;;) {
      const e = table[i] - 1;
      if (e < 0) break;
      if (keys[2 * e + 1] === lo && keys[2 * e] === hi) { id = e; break; }
      i = (i + 1) & mask;
    }
    if (id < 0) {
      id = distinct++;
      if (2 * distinct > cap) {
        // Grow at load 1/2 and re-insert every id.
        cap *= 2;
        mask = cap - 1;
        const grownKeys = new Uint32Array(cap);
        grownKeys.set(keys);
        keys = grownKeys;
        table = new Int32Array(cap);
        for (let e = 0; e < id; e++) {
          let j = keys[2 * e + 1] & mask;
          while (table[j] !== 0) j = (j + 1) & mask;
          table[j] = e + 1;
        }
        i = lo & mask;
        while (table[i] !== 0) i = (i + 1) & mask;
      }
      keys[2 * id] = hi;
      keys[2 * id + 1] = lo;
      table[i] = id + 1;
    }
    ids[t] = id;
  }
  return { ids, distinct };
}

/** Powers of two from 1 up to the number of distinct URLs (and that number when it is not one). */
export function defaultSizes(distinct: number): number[] {
  const sizes: number[] = [];
  for (let s = 1; s <= distinct; s *= 2) sizes.push(s);
  if (distinct > 0 && sizes[sizes.length - 1] !== distinct) sizes.push(distinct);
  return sizes;
}

/**
 * Misses of static caches of each size. A URL in the cache misses only on its
 * first request, any other URL on every request, so the best k URLs to hold are
 * the k most frequent and misses(k) = requests − Σ over them of (frequency − 1).
 */
function staticMisses(ids: Int32Array, distinct: number, sizes: number[]): number[] {
  const freq = new Float64Array(distinct);
  for (let t = 0; t < ids.length; t++) freq[ids[t]]++;
  const sorted = freq.sort().reverse(); // most frequent first
  const saved = new Float64Array(distinct + 1);
  for (let i = 0; i < distinct; i++) saved[i + 1] = saved[i] + sorted[i] - 1;
  return sizes.map((k) => ids.length - saved[Math.min(k, distinct)]);
}

/** Runs one of the crawler's cache classes over the whole trace. */
export function replayMisses(trace: FingerprintTrace, policy: 'random' | 'lru' | 'clock', size: number): number {
  const cache = createCache(policy, size);
  const { fps, length: n } = trace;
  let misses = 0;
  for (let t = 0; t < n; t++) if (!cache.access(fps[2 * t], fps[2 * t + 1])) misses++;
  return misses;
}

export interface SimulateOptions {
  sizes?: number[];
  policies?: readonly LabPolicy[];
  /** Called after each (policy, size) simulation, for progress output. */
  onProgress?: (done: number, total: number) => void;
}

export function simulateCaches(trace: FingerprintTrace, opts: SimulateOptions = {}): CacheLabResult {
  const { ids, distinct } = denseIds(trace);
  const n = trace.length;
  const sizes = opts.sizes ?? defaultSizes(distinct);
  const policies = opts.policies ?? LAB_POLICIES;
  const total = sizes.length * policies.length;
  let done = 0;
  const tick = () => opts.onProgress?.(++done, total);
  const point = (size: number, misses: number): CachePoint => ({ size, misses, missRatio: n === 0 ? 0 : misses / n });
  const curves: CacheCurve[] = [];
  let next: Int32Array | null = null;
  for (const policy of policies) {
    let misses: number[];
    switch (policy) {
      case 'infinite': misses = sizes.map(() => distinct); sizes.forEach(tick); break;
      case 'static': misses = staticMisses(ids, distinct, sizes); sizes.forEach(tick); break;
      case 'min':
        next ??= nextUses(ids, distinct);
        misses = sizes.map((k) => { const m = minMisses(ids, distinct, k, next!); tick(); return m; });
        break;
      default:
        // With room for every URL no policy ever evicts: only compulsory misses.
        misses = sizes.map((k) => { const m = k >= distinct ? distinct : replayMisses(trace, policy, k); tick(); return m; });
    }
    curves.push({ policy, points: sizes.map((k, i) => point(k, misses[i])) });
  }
  return { requests: n, distinct, sizes, curves, counting: COUNTING_NOTE };
}
