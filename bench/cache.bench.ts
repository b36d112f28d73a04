/**
 * The caching lab at scale: a generated 1-million-URL trace (host and path skew,
 * in-page duplicates) with all six policies at 20 cache sizes (2^0 … 2^19) must
 * take under 30 s. Peer in the same run: LRU built on a JS Map of URL strings
 * (the obvious implementation), at the same 20 sizes, against our typed-array LRU.
 *
 * Run: node bin/run-ts.mjs bench/cache.bench.ts [--requests 1000000]
 */
import { simulateCaches, replayMisses, syntheticTrace, traceOf, formatCacheTable } from '../src/lab/cache/index.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const n = arg('--requests', 1_000_000);
const sizes = Array.from({ length: 20 }, (_, i) => 2 ** i);

const t0 = performance.now();
const urls = [...syntheticTrace(n, { seed: 2 })];
const tGen = performance.now();
const trace = traceOf(urls);
const tFp = performance.now();
const result = simulateCaches(trace, { sizes });
const tSim = performance.now();

// Our LRU alone, to compare like with like against the Map peer.
const tLru0 = performance.now();
const oursLru = sizes.map((k) => replayMisses(trace, 'lru', k));
const tLru1 = performance.now();

function mapLruMisses(keys: string[], k: number): number {
  const m = new Map<string, true>();
  let misses = 0;
  for (const u of keys) {
    if (m.delete(u)) { m.set(u, true); continue; }
    misses++;
    if (m.size >= k) m.delete(m.keys().next().value!);
    m.set(u, true);
  }
  return misses;
}
const tMap0 = performance.now();
const peerLru = sizes.map((k) => mapLruMisses(urls, k));
const tMap1 = performance.now();
const agree = peerLru.every((m, i) => m === oursLru[i]);

const s = (ms: number) => (ms / 1000).toFixed(2);
const lines = [
  `## Caching lab: ${n.toLocaleString('en')} requests × 6 policies × 20 sizes`,
  '',
  `Command: \`node bin/run-ts.mjs bench/cache.bench.ts --requests ${n}\` (2-core machine shared with other work: indicative).`,
  '',
  `Trace: ${n.toLocaleString('en')} requests of ${result.distinct.toLocaleString('en')} distinct URLs (generated: host popularity ~1/rank, page popularity ~1/rank within a host, ~30 % in-page repeats), infinite-cache miss ratio ${(result.distinct / n).toFixed(4)}.`,
  '',
  '| step | seconds |',
  '| --- | ---: |',
  `| generate trace (not part of the lab) | ${s(tGen - t0)} |`,
  `| fingerprint the trace | ${s(tFp - tGen)} |`,
  `| simulate random, static, LRU, CLOCK, MIN, infinite at 20 sizes | ${s(tSim - tFp)} |`,
  `| **lab total (fingerprint + simulate), target < 30 s** | **${s(tSim - tGen)}** |`,
  '',
  '| LRU at the 20 sizes | seconds | ratio |',
  '| --- | ---: | ---: |',
  `| typed-array LRU over fingerprints (ours) | ${s(tLru1 - tLru0)} | 1.00 |`,
  `| JS Map of URL strings (peer) | ${s(tMap1 - tMap0)} | ${((tMap1 - tMap0) / (tLru1 - tLru0)).toFixed(2)}× slower |`,
  '',
  `Both LRUs give the same miss counts at every size: ${agree ? 'yes' : 'NO (bug)'}.`,
  '',
  formatCacheTable(result),
  '',
];
process.stdout.write(lines.join('\n') + '\n');
