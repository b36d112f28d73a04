/**
 * Ver(Q) and Change(Q) over random windows of random histories, checked against brute force: the
 * query evaluated from scratch (runQuery's own materialisation, not the incremental store of
 * answersOverTime) at the window's start and at every change point of the archive, and the answer
 * intervals clipped to the window by their definition. Seeded: a failure names its seed.
 */
import { describe, it, expect, afterEach } from 'vitest';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { tempArchive, DAY, T0 } from './helpers.ts';
import { runQuery, queryVersions, queryChanges, type SparqlJsonResults, type VersionArchive, type Interval } from '../../src/query/index.ts';

const { namedNode, blankNode, literal, quad } = N3.DataFactory;
const EX = 'http://example.org/';

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pool of triples for one document: plain ones, and a blank node joining two properties. */
function pool(doc: number): Quad[][] {
  const s = (i: number) => namedNode(`${EX}d${doc}/s${i}`);
  const items: Quad[][] = [];
  for (let i = 0; i < 6; i++) items.push([quad(s(i % 3), namedNode(`${EX}p1`), literal(`v${i}`))]);
  for (let i = 0; i < 3; i++) {
    const b = blankNode(`b${i}`);
    items.push([quad(s(i), namedNode(`${EX}p2`), b), quad(b, namedNode(`${EX}p3`), literal(`w${i}`))]);
  }
  items.push([quad(s(0), namedNode(`${EX}p1`), literal('v3'))]); // the same triple as item 3 from another subject slot: a duplicate
  return items;
}

/** Random versions of 3 documents at instants drawn from a small set, so that documents share instants. */
async function randomHistory(archive: VersionArchive, rand: () => number): Promise<number[]> {
  const instants = Array.from({ length: 14 }, (_, i) => T0 + i * DAY);
  for (let doc = 0; doc < 3; doc++) {
    const items = pool(doc);
    const graph = `${EX}doc${doc}.ttl`;
    for (const time of instants) {
      const r = rand();
      if (r < 0.45) continue; // no version at this instant
      if (r < 0.55) await archive.deleteGraph(graph, time);
      else await archive.putVersion(graph, time, items.filter(() => rand() < 0.5).flat());
      if (rand() < 0.15) await archive.putVersion(graph, time, items.filter(() => rand() < 0.5).flat()); // replaces the version just stored
    }
  }
  return instants;
}

const QUERIES = [
  `SELECT ?s ?o WHERE { ?s <${EX}p1> ?o }`,
  `SELECT ?s ?w WHERE { ?s <${EX}p2> ?b . ?b <${EX}p3> ?w }`,
  `SELECT ?o WHERE { ?s <${EX}p1> ?o }`, // a multiset: the same ?o from several subjects
  `ASK { ?s <${EX}p1> "v3" }`,
  `SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }`,
  `CONSTRUCT { ?s <${EX}has> ?o } WHERE { ?s <${EX}p1> ?o }`,
];

/** Answer keys from a from-scratch evaluation, multiset copies numbered as answersOverTime does. */
async function answersAt(archive: VersionArchive, sparql: string, at: number): Promise<Set<string>> {
  const construct = /^\s*CONSTRUCT/i.test(sparql);
  const result = await runQuery(archive, sparql, { at, format: construct ? 'ntriples' : 'json' });
  const keys = new Set<string>();
  if (construct) {
    for (const line of result.body.split('\n')) if (line.trim()) keys.add(line.trim());
    return keys;
  }
  const json = JSON.parse(result.body) as SparqlJsonResults;
  if (typeof json.boolean === 'boolean') return new Set([String(json.boolean)]);
  for (const b of json.results!.bindings) {
    const base = JSON.stringify(Object.keys(b).sort().map((k) => [k, b[k]]));
    let key = base;
    for (let n = 1; keys.has(key); n++) key = `${base}#${n}`;
    keys.add(key);
  }
  return keys;
}

function keyOf(answer: Record<string, unknown>): string {
  if (typeof answer.triple === 'string') return answer.triple.trim();
  if (typeof answer.boolean === 'boolean') return String(answer.boolean);
  return JSON.stringify(Object.keys(answer).sort().map((k) => [k, answer[k]]));
}

describe('Ver(Q) and Change(Q) over windows agree with brute force at every change point', () => {
  let cleanup: () => Promise<void> = async () => {};
  afterEach(() => cleanup());

  for (const seed of [1, 2, 3, 4]) {
    it(`random history, seed ${seed}`, async () => {
      const rand = prng(seed);
      const t = tempArchive(); cleanup = t.cleanup;
      const instants = await randomHistory(t.archive, rand);
      const points = t.archive.changePoints();
      expect(points.length).toBeGreaterThan(5);
      const windows: Array<{ from?: number; to?: number }> = [{}, { from: T0 - DAY }, { to: T0 + 20 * DAY }];
      for (let i = 0; i < 6; i++) {
        const a = instants[Math.floor(rand() * instants.length)] + (rand() < 0.5 ? 0 : DAY / 2);
        const b = a + Math.floor(rand() * 6) * DAY + (rand() < 0.5 ? 0 : DAY / 3);
        windows.push(rand() < 0.2 ? { to: b } : rand() < 0.2 ? { from: a } : { from: a, to: b });
      }
      for (const sparql of QUERIES) {
        const memo = new Map<number, Set<string>>();
        const at = async (time: number) => memo.get(time) ?? memo.set(time, await answersAt(t.archive, sparql, time)).get(time)!;
        for (const w of windows) {
          const label = `seed ${seed}, ${sparql}, window ${JSON.stringify({ from: w.from && new Date(w.from).toISOString(), to: w.to && new Date(w.to).toISOString() })}`;
          // Brute force: the evaluation instants are the window's start and the change points inside it.
          const inside = points.filter((p) => (w.from === undefined || p > w.from) && (w.to === undefined || p <= w.to));
          const steps = w.from === undefined ? inside : [w.from, ...inside];
          const expectedChanges = [];
          const expectedIntervals = new Map<string, Interval[]>();
          let previous = new Set<string>();
          for (const [i, time] of steps.entries()) {
            const now = await at(time);
            const baseline = i === 0 && w.from !== undefined;
            if (!baseline) {
              const added = [...now].filter((k) => !previous.has(k)).length;
              const removed = [...previous].filter((k) => !now.has(k)).length;
              if (added + removed > 0) expectedChanges.push({ time, added, removed, answers: now.size });
            }
            for (const k of now) {
              if (previous.has(k)) continue;
              const list = expectedIntervals.get(k) ?? [];
              list.push(baseline ? { from: time, clippedFrom: true } : { from: time });
              expectedIntervals.set(k, list);
            }
            for (const k of previous) if (!now.has(k)) expectedIntervals.get(k)!.at(-1)!.to = time;
            previous = now;
          }
          // Still holding at the window's end: cut there when something changed later, else open now.
          const later = w.to !== undefined && points.some((p) => p > w.to!);
          if (later) for (const k of previous) Object.assign(expectedIntervals.get(k)!.at(-1)!, { to: w.to, clippedTo: true });

          expect(await queryChanges(t.archive, sparql, w), label).toEqual(expectedChanges);
          const ver = await queryVersions(t.archive, sparql, w);
          const got = new Map<string, Interval[]>();
          const counts = new Map<string, number>();
          for (const v of ver) {
            // Multiset copies: the n-th equal answer is keyed like the brute force keys it.
            const base = keyOf(v.answer as Record<string, unknown>);
            const n = counts.get(base) ?? 0;
            counts.set(base, n + 1);
            got.set(n === 0 ? base : `${base}#${n}`, v.intervals);
          }
          expect(got, label).toEqual(expectedIntervals);
        }
      }
    }, 60_000);
  }
});
