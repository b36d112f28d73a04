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
 * With `politeness`, over many origins (http and https of one hostname sharing its spacing) with a delay: failed
 * requests (back-off), a Retry-After, a robots.txt Crawl-delay, and requests made beside the frontier.
 */
function play(f: HostQueues, seed: number, steps: number, o: { origins?: number; politeness?: boolean; check?: (inFlight: readonly FrontierEntry[]) => void } = {}): string[] {
  const rnd = random(seed);
  const origins = Array.from({ length: o.origins ?? 7 }, (_, i) => `${o.politeness && i % 3 === 1 ? 'https' : 'http'}://h${o.politeness ? i >> 1 : i}.example`);
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
      const fate = o.politeness ? rnd() : 1;
      if (fate < 0.1) f.setDelay(e.origin, 5 + Math.floor(rnd() * 20));
      if (fate < 0.2) f.noteRequest(origins[Math.floor(rnd() * origins.length)]!, now);
      out.push(`${e.origin} failed ${f.failures(e.origin)} times, would back off ${f.backoffAfterFailure(e.origin)}`);
      f.release(e.origin, now, fate < 0.3 ? { ok: false } : fate < 0.35 ? { ok: true, notBefore: now + 40, reason: 'Retry-After' } : { ok: true });
      if (rnd() < 0.15) f.push({ ...e, retries: (e.retries ?? 0) + 1 }); // back in its old place
    } else {
      const origin = origins[Math.floor(rnd() * origins.length)]!;
      out.push(`drained ${origin}: ${f.drain(origin).map((e) => e.url).sort().join(' ')}`);
    }
    o.check?.(inFlight);
    now += 1;
  }
  for (const e of inFlight) f.release(e.origin, now, { ok: true });
  out.push(`deferred: ${f.deferred(now).map((d) => `${d.origin} ${d.until} ${d.reason}`).join(', ')}`);
  // The rest, as the crawl waits for them: each pop at the next time an origin is ready.
  for (let t = now + 1, next = f.nextReadyAt(); next !== undefined; next = f.nextReadyAt()) {
    t = Math.max(t, next);
    const e = f.pop(t);
    if (!e) continue;
    out.push(`${e.url}|${e.depth}|${e.via?.join(',') ?? ''}|${e.host} at ${t}`);
    f.release(e.origin, t, { ok: true });
  }
  expect(f.size).toBe(0);
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

  it.each([1, 5, 30])('parks whole origins with their politeness past a bound of %i, in the unbounded order', (bound) => {
    const timing = { ...TIMING, delayMs: 3, backoffBaseMs: 10, maxBackoffMs: 200 };
    for (let seed = 1; seed <= 3; seed++) {
      const reference = new HostQueues(timing);
      const unbounded = play(reference, seed, 6_000, { origins: 120, politeness: true });
      const spilling = new HostQueues(timing, { maxEntries: bound, spill: new SqliteFrontierSpill(tempDir()) });
      let over = 0;
      const check = (inFlight: readonly FrontierEntry[]) => {
        // Origins with a request in flight stay in memory: the bound holds for the others.
        over = Math.max(over, spilling.memoryOrigins - new Set(inFlight.map((e) => e.origin)).size - bound);
      };
      expect(play(spilling, seed, 6_000, { origins: 120, politeness: true, check }), `seed ${seed}`).toEqual(unbounded);
      expect(spilling.peakMemoryEntries).toBeLessThanOrEqual(bound);
      expect(over).toBeLessThanOrEqual(0);
      expect(spilling.hostCount).toBe(reference.hostCount);
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
