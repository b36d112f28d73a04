import { describe, expect, it } from 'vitest';
import { HostQueues } from '../../src/frontier/host-queues.ts';
import { SqliteFrontierSpill } from '../../src/frontier/spill.ts';
import type { FrontierEntry } from '../../src/frontier/types.ts';
import { tempDir } from '../helpers.ts';

/**
 * A bounded breadth-first frontier must be the unbounded one with less memory: the same entries come out in
 * the same order, whatever spilled, and what it holds in memory stays near its bound.
 */

const TIMING = { delayMs: 0, perHost: 2, backoffBaseMs: 1_000, maxBackoffMs: 60_000, maxWaitMs: 3_600_000 };

/** A deterministic pseudo-random sequence (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A crawl's traffic on a frontier: pushes in discovery order, pops and releases, and what a crawl also does:
 * a URL put back with its old key (a retry), an origin dropped whole (failing host), a redirect chain carried along.
 */
function play(f: HostQueues, seed: number, steps: number): string[] {
  const rnd = random(seed);
  const origins = Array.from({ length: 7 }, (_, i) => `http://h${i}.example`);
  const out: string[] = [];
  const inFlight: FrontierEntry[] = [];
  let key = 0;
  let now = 0;
  for (let step = 0; step < steps; step++) {
    const r = rnd();
    if (r < 0.55) {
      const origin = origins[Math.floor(rnd() * rnd() * origins.length)]!;
      const url = `${origin}/doc/${key}`;
      f.push({ url, host: origin.slice(7), origin, depth: key % 5, key: key++, ...(key % 11 === 0 ? { via: [`${origin}/r/${key}`] } : {}) });
    } else if (r < 0.9) {
      const e = f.pop(now, (e) => e.key % 97 === 0);
      if (e) {
        out.push(`${e.url}|${e.depth}|${e.via?.join(',') ?? ''}|${e.host}`);
        inFlight.push(e);
      }
    } else if (r < 0.985 && inFlight.length > 0) {
      const e = inFlight.splice(Math.floor(rnd() * inFlight.length), 1)[0]!;
      f.release(e.origin, now, { ok: true });
      if (rnd() < 0.15) f.push({ ...e, retries: (e.retries ?? 0) + 1 }); // back in its old place
    } else {
      const origin = origins[Math.floor(rnd() * origins.length)]!;
      out.push(`drained ${origin}: ${f.drain(origin).map((e) => e.url).sort().join(' ')}`);
    }
    now += 1;
  }
  for (const e of inFlight) f.release(e.origin, now, { ok: true });
  for (let e = f.pop(now + 1); e; e = f.pop(now + 1)) {
    out.push(`${e.url}|${e.depth}|${e.via?.join(',') ?? ''}|${e.host}`);
    f.release(e.origin, now + 1, { ok: true });
  }
  return out;
}

describe('a breadth-first frontier that spills to disk', () => {
  it.each([1, 7, 40, 300])('gives the unbounded order at a bound of %i entries, seeds 1-5', (bound) => {
    for (let seed = 1; seed <= 5; seed++) {
      const unbounded = play(new HostQueues(TIMING), seed, 6_000);
      const spilling = new HostQueues(TIMING, { maxEntries: bound, spill: new SqliteFrontierSpill(tempDir()) });
      expect(play(spilling, seed, 6_000), `seed ${seed}`).toEqual(unbounded);
      expect(spilling.size).toBe(0);
      expect(spilling.memoryEntries).toBe(0);
      expect(spilling.spilledEntries, 'the bound was reached').toBeGreaterThan(0);
      expect(spilling.lost).toBe(0);
    }
  });

  it('holds its bound plus at most one refill per origin in memory while 50,000 URLs are queued', () => {
    const origins = 10;
    const bound = 1_000;
    const f = new HostQueues(TIMING, { maxEntries: bound, spill: new SqliteFrontierSpill(tempDir()) });
    for (let i = 0; i < 50_000; i++) f.push({ url: `http://h${i % origins}.example/${i}`, host: `h${i % origins}.example`, origin: `http://h${i % origins}.example`, depth: 1, key: i });
    expect(f.size).toBe(50_000);
    expect(f.memoryEntries).toBeLessThanOrEqual(bound);
    let popped = 0;
    let peak = 0;
    for (let e = f.pop(0); e; e = f.pop(0)) {
      popped++;
      f.release(e.origin, 0, { ok: true });
      peak = Math.max(peak, f.memoryEntries);
    }
    expect(popped).toBe(50_000);
    // A refill is the origin's share of the bound (bound / origins spilling), between 16 and 1,024.
    expect(peak).toBeLessThanOrEqual(bound + origins * 1_024);
    expect(f.peakMemoryEntries).toBeLessThanOrEqual(bound + origins * 1_024);
  });

  it('keeps every field of an entry through the disk', () => {
    const spill = new SqliteFrontierSpill(tempDir());
    const e: FrontierEntry = { url: 'http://a.example/x', host: 'a.example', origin: 'http://a.example', depth: 4, key: 12.5, vocabulary: true, retries: 2, requisite: 1, via: ['http://a.example/r'], refetch: true, variant: { set: 3, accept: 'text/turtle', negotiated: true } };
    spill.put(e.origin, e);
    spill.put(e.origin, { ...e, url: 'http://a.example/y', key: 12.5 });
    spill.put(e.origin, { ...e, url: 'http://a.example/z', key: 3 });
    expect(spill.take(e.origin, 2).map((x) => x.url)).toEqual(['http://a.example/z', 'http://a.example/x']);
    expect(spill.take(e.origin, 10)).toEqual([{ ...e, url: 'http://a.example/y' }]);
    expect(spill.take(e.origin, 10)).toEqual([]);
    expect(spill.take('http://never.example', 10)).toEqual([]);
  });
});
