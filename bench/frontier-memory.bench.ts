/**
 * What a queued URL costs in memory: the crawl's frontier lives on the JavaScript heap (the store keeps
 * every queued URL too, for a resume, but the crawl pops from memory), so its peak size bounds what one
 * crawl process can take on. A breadth-first crawl of the generated Linked Data Web holds about 45 % of
 * the URLs it will fetch queued at its peak (1,047,867 of 2.39 M known in the 1,000,000-document scale
 * run, bench/SCALE-RUN.md), so this figure times that many URLs is the heap a crawl needs for its frontier.
 *
 * Entries are pushed as the scope stage pushes them (normalised URL, host, origin, depth, key) and the heap
 * is measured after a full GC, against the peer an in-memory frontier cannot beat: an array of the same
 * URL strings and nothing else.
 *
 *   node bin/run-ts.mjs bench/frontier-memory.bench.ts [--quick]
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { HostQueues } from '../src/frontier/host-queues.ts';
import { OrderedFrontier } from '../src/frontier/ordered-frontier.ts';
import { createOrderingPolicy } from '../src/frontier/order/policies.ts';
import { hostOf, normalizeUrl, originOf } from '../src/frontier/normalize.ts';
import type { Frontier } from '../src/frontier/types.ts';
import { SqliteFrontierSpill } from '../src/frontier/spill.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QUICK } from './args.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const N = QUICK ? 50_000 : 500_000;
const TIMING = { delayMs: 0, perHost: 4, backoffBaseMs: 1_000, maxBackoffMs: 60_000, maxWaitMs: 3_600_000 };

/** The i-th URL as a link of the generated Web reads (100 hosts; a fresh string, as parsing a page makes one). */
const urlOf = (i: number) => normalizeUrl(`http://data${i % 100}.lod.test/doc/${(i * 7919) % 10_000_000}`)!;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** Heap bytes per entry that `fill` keeps reachable. */
function perEntry(fill: () => unknown): number {
  const before = heapAfterGc();
  const kept = fill();
  const after = heapAfterGc();
  if (!kept) throw new Error('nothing kept');
  return (after - before) / N;
}

function frontierOf(make: () => Frontier) {
  return () => {
    const f = make();
    for (let i = 0; i < N; i++) {
      const url = urlOf(i);
      f.push({ url, host: hostOf(url), origin: originOf(url), depth: 3, key: i });
    }
    if (f.size !== N) throw new Error(`frontier holds ${f.size} of ${N}`);
    return f;
  };
}

const SPILL_BOUND = 10_000;
const scratch: string[] = [];
process.on('exit', () => scratch.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function spilling(): HostQueues {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-frontier-bench-'));
  scratch.push(dir);
  return new HostQueues(TIMING, { maxEntries: SPILL_BOUND, spill: new SqliteFrontierSpill(dir) });
}

/** CPU time of pushing every URL, then popping and releasing every one: what the spill costs a crawl per URL. */
function pushPop(make: () => Frontier): number {
  const f = make();
  const t0 = process.cpuUsage();
  frontierOf(() => f)();
  let n = 0;
  for (let e = f.pop(0); e; e = f.pop(0)) {
    f.release(e.origin, 0, { ok: true });
    n++;
  }
  if (n !== N) throw new Error(`popped ${n} of ${N}`);
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / N;
}

const bare = perEntry(() => Array.from({ length: N }, (_, i) => urlOf(i)));
const rows = [
  { name: 'breadth-first (HostQueues, the default)', bytes: perEntry(frontierOf(() => new HostQueues(TIMING))) },
  { name: `breadth-first with \`--frontier-memory ${SPILL_BOUND}\` (the rest in its spill file on disk)`, bytes: perEntry(frontierOf(spilling)) },
  { name: 'backlinks ordering (OrderedFrontier)', bytes: perEntry(frontierOf(() => new OrderedFrontier(createOrderingPolicy('backlink'), TIMING))) },
];

console.log(`## Frontier memory per queued URL\n`);
console.log(`Command: \`node bin/run-ts.mjs bench/frontier-memory.bench.ts${QUICK ? ' --quick' : ''}\`, ${new Date().toISOString()}: ${N.toLocaleString('en')} URLs of 100 hosts pushed as the scope stage pushes them; JavaScript heap after a full GC.\n`);
console.log('| frontier | heap bytes per queued URL | × an array of the URL strings |');
console.log('| --- | ---: | ---: |');
console.log(`| array of the URL strings alone (peer: the floor of any in-memory frontier) | ${bare.toFixed(0)} | 1.00× |`);
for (const r of rows) console.log(`| ${r.name} | ${r.bytes.toFixed(0)} | ${(r.bytes / bare).toFixed(2)}× |`);
const times = [0, 1, 2].map(() => [pushPop(() => new HostQueues(TIMING)), pushPop(spilling)] as const);
const best = (i: 0 | 1) => Math.min(...times.map((t) => t[i]));
console.log(`\nCPU per URL pushed, then popped and released (best of 3 rounds, in turn): in memory ${best(0).toFixed(2)} µs, spilling past ${SPILL_BOUND.toLocaleString('en')} ${best(1).toFixed(2)} µs (${(best(1) / best(0)).toFixed(2)}×; a crawl spends about 1,400 µs of CPU a page, bench/RESULTS.md#crawl).`);
const bfs = rows[0]!.bytes;
console.log(`\nAt the breadth-first figure, a frontier of 1 M queued URLs takes ${(bfs * 1e6 / 2 ** 20).toFixed(0)} MiB of heap and one of 100 M ${(bfs * 1e8 / 2 ** 30).toFixed(1)} GiB (docs/scale.md).`);
