/**
 * The seen-URL set at scale: membership tests per second (cache warm) and
 * resident bytes per URL, for our SeenSet (CLOCK cache + disk set) and for a
 * JavaScript Set of URL strings as far as it can go. Each contender runs in its
 * own child process so that its RSS is its own.
 *
 * Run: node bin/run-ts.mjs bench/seen.bench.ts [--n 10000000] [--big] [--set-cap-mb 6000]
 *   --big adds the 100-million-URL run of the SeenSet (slow: several minutes, ~0.8 GB of disk).
 *
 * URLs: URL i sits on host h(i) drawn with popularity ~1/rank over 100,000 hosts,
 * in a directory tree; the test stream draws known URLs with popularity ~1/rank
 * (popular pages are linked often) and 10 % never-seen URLs.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SeenSet } from '../src/frontier/seen/index.ts';
import { rng, skewed, syntheticUrl } from '../src/lab/cache/synthetic-trace.ts';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const HOSTS = 100_000;
const CACHE_SIZE = Number(arg('--cache-size') ?? 2 ** 20);
const TESTS = 2_000_000;
const BATCH = 10_000;

/** The i-th distinct URL: host by a hash of i (skewed), page i + 1 (so all distinct). */
function urlOf(i: number): string {
  const u = (Math.imul(i ^ 0x5bd1e995, 2654435761) >>> 0) / 4294967296;
  const host = Math.min(HOSTS - 1, Math.floor(Math.exp(u * Math.log(HOSTS + 1))) - 1);
  return syntheticUrl(host, i + 1);
}

/** The test stream: known URLs by popularity, 10 % new ones. */
function testStream(n: number, count: number, seed: number): string[] {
  const random = rng(seed);
  const out = new Array<string>(count);
  for (let t = 0; t < count; t++) out[t] = random() < 0.1 ? urlOf(n + Math.floor(random() * n)) : urlOf(skewed(random, n));
  return out;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

function rss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss;
}

interface ChildResult {
  kind: string;
  requested: number;
  stored: number;
  stoppedBecause?: string;
  insertSeconds: number;
  bytesPerUrl: number;
  accountedBytesPerUrl?: number;
  cacheBytes?: number;
  testsPerSecond: number;
  /** Tests per second of CPU time (user + system): steadier than wall time on a loaded machine. */
  testsPerCpuSecond: number;
  batchTestsPerSecond?: number;
  diskBytes?: number;
}

async function childSeen(n: number): Promise<ChildResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seen-bench-'));
  try {
    const base = rss();
    const seen = await SeenSet.open({ dir, cache: 'clock', cacheSize: CACHE_SIZE });
    const withCache = rss();
    const t0 = performance.now();
    const batch: string[] = [];
    for (let i = 0; i < n; i++) {
      batch.push(urlOf(i));
      if (batch.length === BATCH) { await seen.addManyIfNew(batch); batch.length = 0; }
    }
    if (batch.length) await seen.addManyIfNew(batch);
    seen.disk.flush(); // everything on disk, so the disk bytes are per stored URL
    await seen.idle();
    const insertSeconds = (performance.now() - t0) / 1000;
    const after = rss();
    const stored = seen.size;
    const diskBytes = fs.readdirSync(dir).reduce((a, f) => a + fs.statSync(path.join(dir, f)).size, 0);
    const tests = testStream(n, TESTS, 3);
    for (let i = 0; i < TESTS / 2; i++) seen.addIfNewSync(tests[i]); // warm the cache
    const t1 = performance.now(), c1 = process.cpuUsage();
    for (let i = 0; i < TESTS; i++) seen.addIfNewSync(tests[i]);
    const single = TESTS / ((performance.now() - t1) / 1000);
    const singleCpu = TESTS / (cpuMs(c1) / 1000);
    const t2 = performance.now();
    for (let i = 0; i < TESTS; i += BATCH) await seen.addManyIfNew(tests.slice(i, i + BATCH));
    const batched = TESTS / ((performance.now() - t2) / 1000);
    const accounted = seen.residentBytes(); // before close(): close releases the runs' filters
    await seen.close();
    return {
      kind: `SeenSet (CLOCK cache 2^${Math.log2(CACHE_SIZE)} + disk set)`, requested: n, stored, insertSeconds,
      bytesPerUrl: (after - withCache) / stored, accountedBytesPerUrl: accounted / stored,
      cacheBytes: withCache - base, testsPerSecond: single, testsPerCpuSecond: singleCpu, batchTestsPerSecond: batched, diskBytes,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function childSet(n: number, capBytes: number): ChildResult {
  const base = rss();
  const set = new Set<string>();
  const t0 = performance.now();
  let stoppedBecause: string | undefined;
  try {
    for (let i = 0; i < n; i++) {
      set.add(urlOf(i));
      if ((i & 0xfffff) === 0 && process.memoryUsage().rss - base > capBytes) { stoppedBecause = `memory cap ${Math.round(capBytes / 1e6)} MB`; break; }
    }
  } catch (e) {
    stoppedBecause = (e as Error).message; // V8 caps a Set at 2^24 entries
  }
  const insertSeconds = (performance.now() - t0) / 1000;
  const stored = set.size;
  const after = rss();
  const tests = testStream(stored, TESTS, 3);
  const seenTest = (u: string) => { if (set.has(u)) return false; set.add(u); return true; };
  for (let i = 0; i < TESTS / 2; i++) seenTest(tests[i]);
  const t1 = performance.now(), c1 = process.cpuUsage();
  try { for (let i = 0; i < TESTS; i++) seenTest(tests[i]); } catch { /* full set: the has() part still ran */ }
  const rate = TESTS / ((performance.now() - t1) / 1000);
  const rateCpu = TESTS / (cpuMs(c1) / 1000);
  return { kind: 'JS Set of URL strings', requested: n, stored, stoppedBecause, insertSeconds, bytesPerUrl: (after - base) / stored, testsPerSecond: rate, testsPerCpuSecond: rateCpu };
}

async function child(): Promise<void> {
  const n = Number(arg('--n'));
  const r = arg('--child') === 'seen' ? await childSeen(n) : childSet(n, Number(arg('--cap')));
  process.stdout.write(JSON.stringify(r) + '\n');
}

function runChild(kind: string, n: number, extra: string[] = [], heapMb = 4096): ChildResult {
  const self = fileURLToPath(import.meta.url);
  const runTs = path.resolve(path.dirname(self), '../bin/run-ts.mjs');
  const res = spawnSync(process.execPath, ['--expose-gc', `--max-old-space-size=${heapMb}`, runTs, self, '--child', kind, '--n', String(n), ...extra], {
    encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = res.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as ChildResult;
  } catch {
    return { kind, requested: n, stored: 0, stoppedBecause: `child failed (exit ${res.status}, signal ${res.signal})`, insertSeconds: 0, bytesPerUrl: NaN, testsPerSecond: NaN, testsPerCpuSecond: NaN };
  }
}

async function main(): Promise<void> {
  const n = Number(arg('--n') ?? 10_000_000);
  const capMb = Number(arg('--set-cap-mb') ?? 6000);
  const rows: ChildResult[] = [];
  rows.push(runChild('set', n, ['--cap', String(capMb * 1e6)], capMb + 2048));
  rows.push(runChild('seen', n, ['--cache-size', String(CACHE_SIZE)]));
  const cacheArgs = ['--cache-size', String(CACHE_SIZE)];
  if (process.argv.includes('--big')) rows.push(runChild('seen', 100_000_000, cacheArgs));
  const f = (x: number | undefined, d = 1) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));
  const m = (x: number) => (x / 1e6).toFixed(2);
  const setRow = rows[0];
  const lines = [
    `## Seen-URL set: membership tests and memory (${os.cpus().length} cores, shared machine: indicative)`,
    '',
    `Command: \`node bin/run-ts.mjs bench/seen.bench.ts --n ${n} --cache-size ${CACHE_SIZE}${process.argv.includes('--big') ? ' --big' : ''}\` (load average at the end: ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`,
    '',
    'Each row is a child process. Bytes/URL = RSS growth while inserting ÷ URLs stored (the SeenSet\'s cache, opened before, is not counted: "the cache aside"); "accounted" = bytes the disk set holds in typed arrays. Tests/s = seen tests (has + add when new) on a stream of known URLs drawn by popularity plus 10 % new URLs, after a warm-up of 1 M tests.',
    '',
    '| contender | URLs stored | insert s | bytes/URL (RSS) | accounted bytes/URL | M tests/s wall (single) | M tests/CPU-s (single) | M tests/s wall (batch) | vs JS Set (CPU) | notes |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows.map((r) => `| ${r.kind} | ${r.stored.toLocaleString('en')} | ${f(r.insertSeconds)} | ${f(r.bytesPerUrl)} | ${f(r.accountedBytesPerUrl, 2)} | ${m(r.testsPerSecond)} | ${m(r.testsPerCpuSecond)} | ${r.batchTestsPerSecond ? m(r.batchTestsPerSecond) : '–'} | ${(r.testsPerCpuSecond / setRow.testsPerCpuSecond).toFixed(2)} | ${[r.stoppedBecause ? `stopped: ${r.stoppedBecause}` : '', r.cacheBytes ? `cache ${(r.cacheBytes / 2 ** 20).toFixed(1)} MiB RSS` : '', r.diskBytes ? `disk ${(r.diskBytes / r.stored).toFixed(1)} B/URL` : ''].filter(Boolean).join('; ')} |`),
    '',
    'Targets: ≥ 1 M tests/s with the cache warm; ≤ 16 bytes/URL resident at 100 M URLs, the cache aside.',
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

if (arg('--child')) await child(); else await main();
