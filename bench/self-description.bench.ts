/**
 * What the self-description costs at scale: a versioned store of N documents on H hosts (5 triples each, a
 * second version of every tenth), then the VoID summary computed from the store (one GROUP BY over the
 * version log, the named graphs' index range: what a request after a write pays) against a request served
 * from the per-generation cache, and against a COUNT of every triple through the count totals, in the same run.
 * Run: node bin/run-ts.mjs bench/self-description.bench.ts [--quick] [--docs N] [--hosts H]   default 100,000 documents
 * on 100 hosts; --quick 10,000 on 10.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import N3 from 'n3';
import { NOW, openVersionStore } from '../src/query/index.ts';
import { option, QUICK } from './args.ts';

const documents = Number(option('--docs') ?? (QUICK ? 10_000 : 100_000));
const hosts = Number(option('--hosts') ?? (QUICK ? 10 : 100));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-void-bench-'));
const { namedNode, literal, quad } = N3.DataFactory;
const store = openVersionStore(dir);
const T0 = Date.UTC(2025, 0, 1);
const triples = (i: number, v: number) => {
  const s = namedNode(`http://h${i % hosts}.example/r/${i}`);
  return [0, 1, 2, 3, 4].map((k) => quad(s, namedNode(`http://example.org/p${k}`), literal(`${i} ${k} ${v}`)));
};
let t = performance.now();
for (let start = 0; start < documents; start += 5000) {
  store.writeTransaction(() => {
    for (let i = start; i < Math.min(documents, start + 5000); i++) store.putVersionNow(`http://h${i % hosts}.example/doc/${i}`, T0 + i, triples(i, 1));
  });
}
store.writeTransaction(() => {
  for (let i = 0; i < documents; i += 10) store.putVersionNow(`http://h${i % hosts}.example/doc/${i}`, T0 + documents + i, triples(i, 2));
});
store.flush();
const written = (performance.now() - t) / 1000;

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const time = (fn: () => unknown, runs = 7) => {
  const ms: number[] = [];
  for (let r = 0; r < runs; r++) {
    t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return median(ms);
};
const summary = time(() => [store.graphs().length, store.namedGraphsAt(NOW).length]);
const cached = time(() => store.generation); // a cached request's only read of the store
const count = time(() => store.countAt(NOW, {}, { inDocument: false }));
const n = (x: number) => x.toLocaleString('en');
console.log(`## Self-description: the VoID summary at ${n(documents)} documents\n`);
console.log(`${n(documents)} documents on ${n(hosts)} hosts, 5 triples each, a second version of every tenth (${n(documents + Math.ceil(documents / 10))} versions), written in ${written.toFixed(1)} s; medians of 7, one process.\n`);
console.log('| read | ms | against the cached request |');
console.log('| --- | --- | --- |');
console.log(`| summary from the store (graphs() + namedGraphsAt): a request after a write | ${summary.toFixed(1)} | ${(summary / cached).toFixed(0)}× |`);
console.log(`| a request served from the per-generation cache (the generation read) | ${cached.toFixed(3)} | 1× |`);
console.log(`| peer: COUNT of every triple through the count totals | ${count.toFixed(3)} | ${(count / cached).toFixed(1)}× |`);
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
