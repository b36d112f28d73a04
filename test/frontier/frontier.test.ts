import { describe, expect, it } from 'vitest';
import { HostQueues } from '../../src/frontier/host-queues.ts';
import { OrderedFrontier } from '../../src/frontier/ordered-frontier.ts';
import { createOrderingPolicy } from '../../src/frontier/order/index.ts';
import { hostOf, originOf } from '../../src/frontier/normalize.ts';
import { describeDeferred, type HostTimingOptions } from '../../src/frontier/politeness.ts';
import type { Frontier, FrontierEntry } from '../../src/frontier/types.ts';
import { SqliteFrontierSpill } from '../../src/frontier/spill.ts';
import { tempDir } from '../helpers.ts';

// Both frontiers share the politeness rules: each test runs against each.
const kinds: Array<[string, (o: HostTimingOptions) => Frontier]> = [
  ['HostQueues', (o) => new HostQueues(o)],
  ['OrderedFrontier', (o) => new OrderedFrontier(createOrderingPolicy('bfs'), o)],
  // Every rule again with all but one queued URL on disk (src/frontier/spill.ts).
  ['HostQueues spilling past 1 entry', (o) => new HostQueues(o, { maxEntries: 1, spill: new SqliteFrontierSpill(tempDir()) })],
];

let key = 0;
const entry = (url: string): FrontierEntry => ({ url, host: hostOf(url), origin: originOf(url), depth: 0, key: key++ });

/** Everything poppable at `now`, releasing each at once (ok unless told). */
function drainAt(f: Frontier, now: number): string[] {
  const out: string[] = [];
  for (let e = f.pop(now); e; e = f.pop(now)) {
    out.push(e.url);
    f.release(e.origin, now, { ok: true });
  }
  return out;
}

const A = 'https://h.example'; // two origins of one host name
const B = 'http://h.example';
const C = 'http://other.example';

describe.each(kinds)('%s', (_name, make) => {
  it('keeps trouble to its origin: a backed-off https://h does not hold http://h', () => {
    const f = make({ delayMs: 0, perHost: 1 });
    f.push(entry(`${A}/1`));
    f.push(entry(`${A}/2`));
    f.push(entry(`${B}/1`));
    const first = f.pop(0)!;
    expect(first.origin).toBe(A);
    f.release(A, 0, { ok: false });
    expect(f.failures(A)).toBe(1);
    expect(f.failures(B)).toBe(0);
    expect(drainAt(f, 10)).toEqual([`${B}/1`]);
    // Dropping the failing origin's queue leaves the other's alone.
    f.push(entry(`${B}/2`));
    expect(f.drain(A).map((e) => e.url)).toEqual([`${A}/2`]);
    expect(f.size).toBe(1);
    expect(drainAt(f, 20)).toEqual([`${B}/2`]);
  });

  it('spaces request starts per host name: http and https of one host share the delay, other hosts do not', () => {
    const f = make({ delayMs: 1000, perHost: 1 });
    f.push(entry(`${A}/1`));
    f.push(entry(`${B}/1`));
    f.push(entry(`${C}/1`));
    const got = drainAt(f, 0);
    expect(got).toHaveLength(2);
    expect(got).toContain(`${C}/1`);
    expect(f.pop(999)).toBeUndefined();
    expect(drainAt(f, 1000)).toHaveLength(1);
  });

  it('refuses a wait that is not a finite time or is past maxWaitMs, and no other origin stalls', () => {
    const f = make({ delayMs: 0, perHost: 1, maxWaitMs: 3_600_000 });
    for (const u of [`${A}/1`, `${A}/2`, `${C}/1`, `${C}/2`]) f.push(entry(u));
    expect(f.pop(0)!.origin).toBe(A);
    expect(f.pop(0)!.origin).toBe(C);
    expect(f.release(A, 0, { ok: true, notBefore: Number.NaN })).toBe(false);
    expect(f.release(C, 0, { ok: true, notBefore: Number.POSITIVE_INFINITY })).toBe(false);
    expect(Number.isFinite(f.nextReadyAt())).toBe(true);
    expect(drainAt(f, 1).sort()).toEqual([`${A}/2`, `${C}/2`].sort());
    // Ten years and two hours are refused; half an hour is taken and waited for.
    f.push(entry(`${A}/3`));
    const a3 = f.pop(2)!;
    expect(f.acceptsWait(2 + 315_360_000_000, 2)).toBe(false);
    expect(f.release(A, 2, { ok: true, notBefore: 2 + 7_200_000 })).toBe(false);
    f.push(a3);
    expect(f.pop(3)?.url).toBe(`${A}/3`);
    expect(f.release(A, 3, { ok: true, notBefore: 3 + 1_800_000, reason: 'Retry-After on 429' })).toBe(true);
    f.push(entry(`${A}/4`));
    expect(f.pop(1_800_002)).toBeUndefined();
    expect(f.pop(1_800_003)?.url).toBe(`${A}/4`);
  });

  it('backs off from a base of 1 s even with --delay 0, doubling up to 5 minutes', () => {
    const f = make({ delayMs: 0, perHost: 1 });
    let now = 0;
    const waits: number[] = [];
    for (let i = 0; i < 13; i++) f.push(entry(`${C}/${i}`));
    for (let i = 0; i < 12; i++) {
      const e = f.pop(now)!;
      expect(e, `try ${i}`).toBeDefined();
      f.release(C, now, { ok: false });
      const next = f.nextReadyAt()!;
      waits.push(next - now);
      now = next;
    }
    expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
    expect(waits.at(-1)).toBe(300_000);
    expect(Math.max(...waits)).toBe(300_000);
  });

  it('lists the origins that wait on a deferral or back-off, until when and why', () => {
    const f = make({ delayMs: 0, perHost: 1 });
    for (const u of [`${A}/1`, `${A}/2`, `${B}/1`, `${B}/2`, `${C}/1`]) f.push(entry(u));
    f.pop(0);
    f.release(A, 0, { ok: true, notBefore: 60_000, reason: 'robots.txt 503' });
    f.pop(0);
    f.release(B, 0, { ok: false });
    expect(f.deferred(0)).toEqual([
      { origin: B, until: 1000, reason: 'back-off after 1 failure' },
      { origin: A, until: 60_000, reason: 'robots.txt 503' },
    ]);
    expect(f.deferred(1000)).toEqual([{ origin: A, until: 60_000, reason: 'robots.txt 503' }]);
    // An origin with nothing queued is not waited on.
    f.drain(A);
    expect(f.deferred(0).map((d) => d.origin)).toEqual([B]);
  });

  it('drops what the caller rejects without using the origin\'s turn', () => {
    const f = make({ delayMs: 1000, perHost: 1 });
    for (const u of [`${C}/no1`, `${C}/no2`, `${C}/yes`]) f.push(entry(u));
    const rejected: string[] = [];
    const e = f.pop(0, (x) => (x.url.includes('/no') ? (rejected.push(x.url), true) : false));
    expect(e?.url).toBe(`${C}/yes`);
    expect(rejected.sort()).toEqual([`${C}/no1`, `${C}/no2`]);
    expect(f.size).toBe(0);
    // Only rejected entries: nothing popped, and the origin's clock did not start.
    f.release(C, 0, { ok: true });
    f.push(entry(`${C}/no3`));
    f.push(entry(`${C}/later`));
    expect(f.pop(1000, (x) => x.url.endsWith('/no3'))?.url).toBe(`${C}/later`);
    f.release(C, 1000, { ok: true });
    f.push(entry(`${C}/no4`));
    expect(f.pop(2000, () => true)).toBeUndefined();
    f.push(entry(`${C}/next`));
    expect(f.pop(2000)?.url).toBe(`${C}/next`);
  });
});

describe('describeDeferred', () => {
  it('names the waiting origins, why and until when, for the progress line', () => {
    const until = new Date(2026, 11, 1, 17, 40, 0).getTime();
    expect(describeDeferred([{ origin: 'https://a.example', until, reason: 'robots.txt of https://a.example answered 503' }])).toBe(
      'waiting on 1 deferred origin: https://a.example (robots.txt of https://a.example answered 503) until 17:40:00',
    );
    const many = Array.from({ length: 5 }, (_, i) => ({ origin: `http://h${i}.example`, until, reason: 'back-off after 1 failure' }));
    expect(describeDeferred(many)).toMatch(/^waiting on 5 deferred origins: http:\/\/h0\.example .*, and 2 more$/);
  });
});
