/**
 * The archive over time on real data: the 52 schema.org releases as 52 versions of one document.
 * Size of the versioned store (TB) against storing every version whole, and the latency of BEAR's query
 * kinds, each against a peer measured in the same run: the release files parsed with N3.js.
 * Run: node bin/run-ts.mjs bench/query.bench.ts
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import N3 from 'n3';
import { openVersionStore, materialise, evaluate, queryChanges, freeStore } from '../src/query/index.ts';
import { readReleases, parseRelease } from '../test/query/schemaorg.ts';

const tarball = path.resolve('../shared/data/rdf/schemaorg-releases.tar.gz');
if (!fs.existsSync(tarball)) {
  console.error(`query.bench: ${tarball} is absent; nothing to measure`);
  process.exit(1);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-qbench-'));
execFileSync('tar', ['xzf', tarball, '-C', tmp]);
const releases = readReleases(path.join(tmp, 'schemaorg-releases'));
const DOC = 'https://schema.org/version/releases.nq';
const SUBCLASS = 'http://www.w3.org/2000/01/rdf-schema#subClassOf';

/** Median of `runs` timings in ms (the machine is shared: medians, and the ratio to the peer, matter). */
function time(runs: number, fn: () => unknown): number {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[Math.floor(runs / 2)];
}
async function timeAsync(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

// ---- load and size ------------------------------------------------------------------------------------
const archive = openVersionStore(path.join(tmp, 'archive'));
let putMs = 0;
let triplesIn = 0;
for (const r of releases) {
  const quads = parseRelease(r.file);
  triplesIn += quads.length;
  const t = performance.now();
  await archive.putVersion(DOC, r.time, quads);
  putMs += performance.now() - t;
}
archive.checkpoint();
const stats = archive.stats();
const raw = releases.map((r) => fs.readFileSync(r.file));
const rawBytes = raw.reduce((n, b) => n + b.length, 0);
const gzipEach = raw.reduce((n, b) => n + zlib.gzipSync(b).length, 0);
const gzipAll = zlib.gzipSync(Buffer.concat(raw)).length;

// ---- query kinds ------------------------------------------------------------------------------------
const mid = 25;
const [i1, i2] = [36, 37];
const n3Store = (file: string): N3.Store => new N3.Store(parseRelease(file));
const keys = (file: string): Set<string> => new Set(parseRelease(file).map((q) => `${N3.termToId(q.subject as N3.Term)} ${N3.termToId(q.predicate as N3.Term)} ${N3.termToId(q.object as N3.Term)}`));

const matRows = time(5, () => [...archive.snapshot(releases[mid].time, { graphs: [DOC] })].length);
const matPeerParse = time(5, () => parseRelease(releases[mid].file).length);
const subclassQuery = `SELECT ?c WHERE { ?c <${SUBCLASS}> <http://schema.org/Thing> }`;
const matSparql = time(5, () => {
  const { store } = materialise(archive, releases[mid].time, [DOC]);
  evaluate(store, subclassQuery, false, 'application/sparql-results+json');
  freeStore(store);
});
const matSparqlPeer = time(5, () => n3Store(releases[mid].file).getQuads(null, SUBCLASS, 'http://schema.org/Thing', null).length);

const diffNear = time(5, () => archive.delta(releases[i1].time, releases[i2].time, { graphs: [DOC] }));
const diffNearPeer = time(3, () => { const a = keys(releases[i1].file); const b = keys(releases[i2].file); return [[...a].filter((k) => !b.has(k)), [...b].filter((k) => !a.has(k))]; });
const diffFar = time(5, () => archive.delta(releases[0].time, releases[51].time, { graphs: [DOC] }));
const diffFarPeer = time(3, () => { const a = keys(releases[0].file); const b = keys(releases[51].file); return [[...a].filter((k) => !b.has(k)), [...b].filter((k) => !a.has(k))]; });

const verPattern = { s: { term: '<http://schema.org/Person>' }, p: { variable: 'p' }, o: { variable: 'o' } };
const ver = time(5, () => archive.patternVersions(verPattern));
const verPeer = time(1, () => releases.map((r) => parseRelease(r.file).filter((q) => q.subject.value === 'http://schema.org/Person').length));
const change = await timeAsync(1, () => queryChanges(archive, `SELECT ?c WHERE { ?c <${SUBCLASS}> <http://schema.org/Person> }`));
const verHits = archive.patternVersions(verPattern).length;
const sampleDelta = archive.delta(releases[i1].time, releases[i2].time, { graphs: [DOC] });

const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;
const ms = (n: number): string => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
console.log(`## Versioned archive (query): 52 schema.org releases as 52 versions of one document

Command: \`node bin/run-ts.mjs bench/query.bench.ts\` (2 shared cores, other work running: indicative; medians of 5 unless said).
Store: SQLite \`versions.sqlite\`, BEAR's timestamp-based policy (one row per triple and validity interval over a term dictionary, 6 indexes). ${releases.length} versions, ${triplesIn} triples in total, ${stats.rows} timestamped rows, ${stats.terms} terms.

| storage | bytes | vs. every version whole |
| --- | ---: | ---: |
| every version whole (52 N-Quads files) | ${kib(rawBytes)} | 1.00× |
| gzip of each file | ${kib(gzipEach)} | ${ratio(gzipEach, rawBytes)} |
| gzip of all files as one stream | ${kib(gzipAll)} | ${ratio(gzipAll, rawBytes)} |
| **versions.sqlite (TB, queryable)** | **${kib(stats.bytes)}** | **${ratio(stats.bytes, rawBytes)}** |

Loading: ${ms(putMs / releases.length)} ms per putVersion on average (delta against the previous version, one transaction; N3 parsing not counted).

| query kind (BEAR) | archive | peer (N3.js over the release files) | archive / peer |
| --- | ---: | ---: | ---: |
| Mat: version ${releases[mid].name} as rows (SQLite range scan) | ${ms(matRows)} ms | parse the release file: ${ms(matPeerParse)} ms | ${ratio(matRows, matPeerParse)} |
| Mat + SPARQL: load version ${releases[mid].name} into Oxigraph, run a subclass query | ${ms(matSparql)} ms | parse into an N3.Store, match: ${ms(matSparqlPeer)} ms | ${ratio(matSparql, matSparqlPeer)} |
| Diff: ${releases[i1].name} → ${releases[i2].name} (+${sampleDelta.added.length} −${sampleDelta.removed.length}) | ${ms(diffNear)} ms | parse both, set difference: ${ms(diffNearPeer)} ms | ${ratio(diffNear, diffNearPeer)} |
| Diff: ${releases[0].name} → ${releases[51].name} | ${ms(diffFar)} ms | parse both, set difference: ${ms(diffFarPeer)} ms | ${ratio(diffFar, diffFarPeer)} |
| Ver: \`<schema:Person> ?p ?o\` (${verHits} triples with their versions) | ${ms(ver)} ms | scan all 52 files (1 run): ${ms(verPeer)} ms | ${ratio(ver, verPeer)} |
| Change(Q): subclasses of schema:Person over 52 versions (incremental Oxigraph, 1 run) | ${ms(change)} ms | scan all 52 files (as Ver) | ${ratio(change, verPeer)} |
`);
await archive.close();
fs.rmSync(tmp, { recursive: true, force: true });
