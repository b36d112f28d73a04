import { describe, it, expect, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import {
  denseIds, minMisses, parseSizes, readTrace, runCacheLab, simulateCaches, syntheticTrace, traceOf, missRatioSvg,
} from '../../src/lab/cache/index.ts';
import { StaticCache } from '../../src/frontier/seen/cache.ts';
import { register } from '../../src/cli/commands/lab-cache.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cache-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Fewest misses of any policy (it may decline to cache a newcomer) by exhaustive search. */
function bruteForceOptimum(trace: number[], k: number): number {
  const memo = new Map<string, number>();
  const go = (t: number, cached: number[]): number => {
    if (t === trace.length) return 0;
    const key = `${t}|${[...cached].sort().join(',')}`;
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const x = trace[t];
    let best: number;
    if (cached.includes(x)) best = go(t + 1, cached);
    else {
      best = 1 + go(t + 1, cached); // do not cache it
      if (cached.length < k) best = Math.min(best, 1 + go(t + 1, [...cached, x]));
      else for (let i = 0; i < cached.length; i++) best = Math.min(best, 1 + go(t + 1, cached.map((c, j) => (j === i ? x : c))));
    }
    memo.set(key, best);
    return best;
  };
  return go(0, []);
}

describe('MIN (Belady)', () => {
  it('equals the brute-force optimum on tiny traces', () => {
    let x = 42;
    for (let trial = 0; trial < 60; trial++) {
      const len = 6 + (trial % 7), alphabet = 3 + (trial % 3), k = 1 + (trial % 3);
      const trace: number[] = [];
      for (let i = 0; i < len; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; trace.push((x >>> 0) % alphabet); }
      const { ids, distinct } = denseIds(traceOf(trace.map((t) => `http://t.example/${t}`)));
      expect(minMisses(ids, distinct, k)).toBe(bruteForceOptimum(trace, k));
    }
  });

  it('a cyclic trace a, b, c with room for two: MIN keeps two and lets the third miss', () => {
    const urls = 'abcabcabc'.split('').map((c) => `http://t.example/${c}`);
    const { ids, distinct } = denseIds(traceOf(urls));
    expect(minMisses(ids, distinct, 2)).toBe(5); // keeps a and b, never caches c: 3 compulsory misses, then only c misses
  });
});

describe('simulateCaches', () => {
  const trace = traceOf(syntheticTrace(30000, { hosts: 300, pagesPerHost: 3000, seed: 5 }));
  const result = simulateCaches(trace);

  it('counts the first request of every URL as a miss: infinite = distinct, and no curve falls below it; MIN is the floor', () => {
    expect(result.requests).toBe(30000);
    const byPolicy = Object.fromEntries(result.curves.map((c) => [c.policy, c.points]));
    expect(Object.keys(byPolicy)).toEqual(['random', 'static', 'lru', 'clock', 'min', 'infinite']);
    result.sizes.forEach((size, i) => {
      expect(byPolicy.infinite[i].misses).toBe(result.distinct);
      for (const c of result.curves) {
        expect(c.points[i].misses).toBeGreaterThanOrEqual(result.distinct);
        if (c.policy !== 'infinite') expect(c.points[i].misses).toBeGreaterThanOrEqual(byPolicy.min[i].misses);
      }
      if (size >= result.distinct) for (const c of result.curves) expect(c.points[i].misses).toBe(result.distinct);
    });
    // Bigger caches never hurt LRU or MIN (stack algorithms).
    for (let i = 1; i < result.sizes.length; i++) {
      expect(byPolicy.lru[i].misses).toBeLessThanOrEqual(byPolicy.lru[i - 1].misses);
      expect(byPolicy.min[i].misses).toBeLessThanOrEqual(byPolicy.min[i - 1].misses);
    }
  });

  it('static equals replaying the StaticCache preloaded with the most frequent URLs', () => {
    const { ids, distinct } = denseIds(trace);
    const freq = new Array(distinct).fill(0);
    for (const id of ids) freq[id]++;
    const order = [...freq.keys()].sort((a, b) => freq[b] - freq[a] || a - b);
    const firstAt = new Array(distinct).fill(-1);
    ids.forEach((id, t) => { if (firstAt[id] < 0) firstAt[id] = t; });
    const staticCurve = result.curves.find((c) => c.policy === 'static')!;
    for (const [i, k] of result.sizes.entries()) {
      if (k > 4096) continue;
      const keys = new Uint32Array(2 * Math.min(k, distinct));
      order.slice(0, k).forEach((id, j) => { keys[2 * j] = trace.fps[2 * firstAt[id]]; keys[2 * j + 1] = trace.fps[2 * firstAt[id] + 1]; });
      const cache = new StaticCache(k, keys);
      let misses = 0;
      for (let t = 0; t < trace.length; t++) if (!cache.access(trace.fps[2 * t], trace.fps[2 * t + 1])) misses++;
      expect(staticCurve.points[i].misses).toBe(misses);
    }
  });

  it('plots every policy as an SVG polyline', () => {
    const svg = missRatioSvg(result);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.match(/<polyline/g)).toHaveLength(6);
  });
});

describe('trace files and the command', () => {
  const urls = ['http://a.example/', 'http://b.example/x', '', '  http://a.example/  ', 'http://c.example/', 'http://a.example/'];
  const plain = path.join(tmp, 'trace.txt');
  const gz = path.join(tmp, 'trace.log'); // gzip recognised by content, whatever the name
  fs.writeFileSync(plain, urls.join('\r\n') + '\n');
  fs.writeFileSync(gz, zlib.gzipSync(urls.join('\n')));

  it('reads plain and gzip traces alike, skipping blank lines', async () => {
    const a = await readTrace(plain), b = await readTrace(gz);
    expect(a.length).toBe(5);
    expect([...b.fps]).toEqual([...a.fps]);
    expect(denseIds(a).distinct).toBe(3);
  });

  it('reports a missing or empty trace as a user error', async () => {
    await expect(readTrace(path.join(tmp, 'nope.txt'))).rejects.toThrow(/trace file not found/);
    fs.writeFileSync(path.join(tmp, 'empty.txt'), '\n\n');
    await expect(runCacheLab({ trace: path.join(tmp, 'empty.txt') })).rejects.toThrow(/holds no URLs/);
    fs.writeFileSync(path.join(tmp, 'bad.gz'), Buffer.from([0x1f, 0x8b, 1, 2, 3]));
    await expect(readTrace(path.join(tmp, 'bad.gz'))).rejects.toThrow(/cannot read trace/);
  });

  it('parses --sizes lists and ranges and rejects nonsense', () => {
    expect(parseSizes('1-16')).toEqual([1, 2, 4, 8, 16]);
    expect(parseSizes('2^3-2^5,100')).toEqual([8, 16, 32, 100]);
    expect(() => parseSizes('ten')).toThrow(/not a cache size/);
  });

  it('lab cache --json prints the curves and --plot writes the SVG', async () => {
    const program = new Command('datamonitor').exitOverride();
    register(program);
    const svg = path.join(tmp, 'out', 'curves.svg');
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => { chunks.push(String(s)); return true; }) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'datamonitor', 'lab', 'cache', '--trace', gz, '--sizes', '1,2,4', '--plot', svg, '--json']);
    } finally {
      process.stdout.write = write;
    }
    const out = JSON.parse(chunks.join(''));
    expect(out.requests).toBe(5);
    expect(out.distinct).toBe(3);
    expect(out.sizes).toEqual([1, 2, 4]);
    const lru = out.curves.find((c: { policy: string }) => c.policy === 'lru');
    expect(lru.points.map((p: { misses: number }) => p.misses)).toEqual([5, 3, 3]); // a b a c a: with room for two only c evicts b
    expect(fs.readFileSync(svg, 'utf8')).toContain('<svg');
  });
});

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const pgTrace = path.resolve(repoRoot, '../shared/data/traces/postgresql-doc-15.urltrace.gz');
const havePg = fs.existsSync(pgTrace);
if (!havePg) console.warn(`\n*** test/lab-cache: ${pgTrace} is absent: the real-trace test is SKIPPED ***\n`);

describe.skipIf(!havePg)('the PostgreSQL documentation trace', () => {
  it('has 25,003 requests of 2,846 URLs, and MIN stays the floor of the real policies', async () => {
    const r = await runCacheLab({ trace: pgTrace, sizes: [16, 256, 1024] });
    expect(r.requests).toBe(25003);
    expect(r.distinct).toBe(2846);
    const min = r.curves.find((c) => c.policy === 'min')!;
    for (const c of r.curves) {
      if (c.policy !== 'infinite') c.points.forEach((p, i) => expect(p.misses).toBeGreaterThanOrEqual(min.points[i].misses));
    }
  });
});
