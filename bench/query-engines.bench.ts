/**
 * Which SPARQL engine (issue 6): the project's path (the versioned store, Mat(T) into an in-memory Oxigraph
 * store, Oxigraph's SPARQL) against Comunica (@comunica/query-sparql-rdfjs from bench/peers) over an N3.js
 * Store holding the same snapshot, on one schema.org release, five query shapes. Both engines serialise
 * the answer a user gets (SPARQL JSON results, N-Triples for CONSTRUCT); the result counts must agree.
 * Peak RSS of each engine is measured in its own child process.
 * Run: node bin/run-ts.mjs bench/query-engines.bench.ts [--reps N]     (writes bench/QUERY-ENGINES.md too)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import type { Quad, Source, Store as RdfjsStore, Term } from '@rdfjs/types';
import { median } from '../src/util/stats.ts';

const SELF = fileURLToPath(import.meta.url);
const BENCH_DIR = path.dirname(SELF);
const ROOT = path.resolve(BENCH_DIR, '..');
const PEERS_DIR = path.join(BENCH_DIR, 'peers');
const DOC = 'https://schema.org/version/releases.nq';
const COMMAND = 'node bin/run-ts.mjs bench/query-engines.bench.ts';

const PREFIXES = `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
`;
interface BenchQuery { name: string; construct: boolean; sparql: string }
const QUERIES: BenchQuery[] = [
  { name: 'selective BGP: direct subclasses of schema:Thing', construct: false, sparql: `${PREFIXES}SELECT ?c WHERE { ?c rdfs:subClassOf schema:Thing }` },
  {
    name: 'join of 3 patterns: Text properties of CreativeWork subclasses',
    construct: false,
    sparql: `${PREFIXES}SELECT ?p ?c WHERE { ?c rdfs:subClassOf schema:CreativeWork . ?p schema:domainIncludes ?c . ?p schema:rangeIncludes schema:Text }`,
  },
  {
    name: 'aggregate: properties per class (COUNT … GROUP BY)',
    construct: false,
    sparql: `${PREFIXES}SELECT ?c (COUNT(?p) AS ?n) WHERE { ?p schema:domainIncludes ?c } GROUP BY ?c ORDER BY DESC(?n) ?c`,
  },
  {
    name: 'OPTIONAL + FILTER(regex): labels matching "date", with successor',
    construct: false,
    sparql: `${PREFIXES}SELECT ?t ?label ?next WHERE { ?t rdfs:label ?label OPTIONAL { ?t schema:supersededBy ?next } FILTER(regex(?label, "date", "i")) }`,
  },
  {
    name: 'CONSTRUCT: subclass edges with labels',
    construct: true,
    sparql: `${PREFIXES}CONSTRUCT { ?c rdfs:subClassOf ?d . ?c rdfs:label ?l } WHERE { ?c rdfs:subClassOf ?d ; rdfs:label ?l }`,
  },
];
const mediaTypeOf = (q: BenchQuery): string => (q.construct ? 'application/n-triples' : 'application/sparql-results+json');

/** Results in a serialised answer: bindings of a JSON result, distinct triples of N-Triples (a graph is a set). */
function countResults(q: BenchQuery, body: string): { count: number; raw: number } {
  if (!q.construct) {
    const n = (JSON.parse(body) as { results: { bindings: unknown[] } }).results.bindings.length;
    return { count: n, raw: n };
  }
  const lines = body.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  return { count: new Set(lines).size, raw: lines.length };
}

// ---------------------------------------------------------------- Comunica, from bench/peers

/** The part of Comunica's API this benchmark uses (its types live in bench/peers, outside the project). */
interface ComunicaEngine {
  query(sparql: string, context: Record<string, unknown>): Promise<unknown>;
  resultToString(result: unknown, mediaType: string): Promise<{ data: Readable }>;
}
interface ComunicaModule { QueryEngine: new () => ComunicaEngine }

const peerRequire = createRequire(path.join(PEERS_DIR, 'package.json'));
const PEER_PACKAGE = '@comunica/query-sparql-rdfjs';

function ensurePeers(): void {
  if (fs.existsSync(path.join(PEERS_DIR, 'node_modules', PEER_PACKAGE, 'package.json'))) return;
  console.error(`query-engines bench: installing the peers (${PEER_PACKAGE}) into bench/peers/node_modules ...`);
  const r = spawnSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm ci --prefix bench/peers failed (exit ${r.status}); run it by hand to see why`);
}

async function readAll(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString();
  return text;
}

async function comunicaAnswer(engine: ComunicaEngine, store: Source, q: BenchQuery): Promise<string> {
  // The archive's default graph is the union of its documents; Comunica's is not unless asked.
  const result = await engine.query(q.sparql, { sources: [store], unionDefaultGraph: true });
  return readAll((await engine.resultToString(result, mediaTypeOf(q))).data);
}

// ---------------------------------------------------------------- the two paths from the archive

type Archive = import('../src/versions/sqlite-store.ts').VersionArchive;

/** Comunica's Mat(T): the archive's rows at T parsed into an N3.js Store (the same quads Oxigraph loads). */
async function n3Snapshot(archive: Archive, at: number): Promise<RdfjsStore> {
  const { nquadLine } = await import('../src/versions/sqlite-store.ts');
  const N3 = (await import('n3')).default;
  const lines: string[] = [];
  for (const row of archive.snapshot(at, { graphs: [DOC] })) lines.push(nquadLine(row));
  const quads: Quad[] = new N3.Parser({ format: 'application/n-quads' }).parse(lines.join('\n'));
  return new N3.Store(quads) as unknown as RdfjsStore;
}

/**
 * The issue's other option, Comunica over the versioned store with no Mat step: an RDF/JS source whose
 * match() asks the archive for the pattern's rows (patternVersions, on the s/p/o indexes) and keeps those
 * valid at T. A prototype on the public API (it also computes each row's versions, which a dedicated
 * source would skip), so its times are an upper bound for this design. One source per query: the
 * memo only spares Comunica's cardinality count (countQuads) a second read of the same pattern.
 */
async function archiveSourceAt(archive: Archive, at: number): Promise<Source> {
  const { nquadLine } = await import('../src/versions/sqlite-store.ts');
  const { ntTerm } = await import('../src/rdf/terms.ts');
  const N3 = (await import('n3')).default;
  const memo = new Map<string, Quad[]>();
  const position = (t: Term | null | undefined, name: string): { term: string } | { variable: string } =>
    t && t.termType !== 'Variable' ? { term: ntTerm(t) } : { variable: name };
  const quadsOf = (s?: Term | null, p?: Term | null, o?: Term | null, g?: Term | null): Quad[] => {
    if (g?.termType === 'DefaultGraph') return []; // every triple is in its document's graph
    const pattern = { s: position(s, 's'), p: position(p, 'p'), o: position(o, 'o'), graph: position(g, 'g') };
    const key = JSON.stringify(pattern);
    let quads = memo.get(key);
    if (!quads) {
      const lines = archive
        .patternVersions(pattern)
        .filter((v) => v.intervals.some((i) => i.from <= at && (i.to === undefined || at < i.to)))
        .map((v) => nquadLine(v.quad));
      memo.set(key, (quads = new N3.Parser({ format: 'application/n-quads' }).parse(lines.join('\n'))));
    }
    return quads;
  };
  return {
    match: (s, p, o, g) => ReadableStream.from(quadsOf(s, p, o, g)) as unknown as ReturnType<Source['match']>,
    countQuads: (s: Term | null, p: Term | null, o: Term | null, g: Term | null) => quadsOf(s, p, o, g).length,
  } as Source;
}

// ---------------------------------------------------------------- child: peak RSS of one engine

type ChildMode = 'baseline' | 'oxigraph' | 'comunica' | 'comunica-archive';

/** Opens the prepared archive, answers every query once with one engine, prints its peak RSS and timings. */
async function child(mode: ChildMode, dataDir: string, at: number): Promise<void> {
  const { openVersionStore, nquadLine } = await import('../src/versions/sqlite-store.ts');
  const archive = openVersionStore(dataDir, { readonly: true });
  const t0 = performance.now();
  const counts: number[] = [];
  if (mode === 'baseline') {
    // What both engines must do anyway: read the snapshot's rows as text.
    let n = 0;
    for (const row of archive.snapshot(at, { graphs: [DOC] })) n += nquadLine(row).length;
    counts.push(n);
  } else if (mode === 'oxigraph') {
    const { runQuery } = await import('../src/query/index.ts');
    for (const q of QUERIES) counts.push(countResults(q, (await runQuery(archive, q.sparql, { at, format: q.construct ? 'ntriples' : 'json' })).body).count);
  } else {
    const { QueryEngine } = peerRequire(PEER_PACKAGE) as ComunicaModule;
    const engine = new QueryEngine();
    const store = mode === 'comunica' ? await n3Snapshot(archive, at) : undefined;
    for (const q of QUERIES) counts.push(countResults(q, await comunicaAnswer(engine, store ?? (await archiveSourceAt(archive, at)), q)).count);
  }
  const ms = performance.now() - t0;
  // maxRSS is in KiB.
  console.log(JSON.stringify({ mode, rssKiB: process.resourceUsage().maxRSS, ms, counts }));
  await archive.close();
}

// ---------------------------------------------------------------- parent

async function elapsed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const ratio = (a: number, b: number): string => `${(a / b).toFixed(a / b >= 10 ? 0 : a / b >= 1 ? 1 : 2)}×`;

interface ChildReport { rssKiB: number; ms: number; counts: number[] }

/** Medians over `runs` fresh child processes of one mode. */
function runChild(mode: ChildMode, dataDir: string, at: number, runs: number): ChildReport {
  const reports: ChildReport[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/run-ts.mjs'), SELF, '--child', mode, dataDir, String(at)], { encoding: 'utf8', cwd: ROOT });
    if (r.status !== 0) throw new Error(`child ${mode} failed (exit ${r.status}): ${r.stderr}`);
    reports.push(JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as ChildReport);
  }
  return { rssKiB: median(reports.map((r) => r.rssKiB)), ms: median(reports.map((r) => r.ms)), counts: reports[0].counts };
}

async function parent(): Promise<void> {
  const repsArg = process.argv.indexOf('--reps');
  const reps = repsArg > 0 ? Math.max(1, Number(process.argv[repsArg + 1]) || 7) : 7;
  const tarball = path.resolve(ROOT, '../shared/data/rdf/schemaorg-releases.tar.gz');
  if (!fs.existsSync(tarball)) {
    console.log(`query-engines bench: skipped (${tarball} is absent)`);
    return;
  }
  ensurePeers();
  const { openVersionStore, runQuery, freeStore, materialise } = await import('../src/query/index.ts');
  const { readReleases, parseRelease } = await import('../test/query/schemaorg.ts');
  const N3 = (await import('n3')).default;
  const comunicaVersion = (peerRequire(`${PEER_PACKAGE}/package.json`) as { version: string }).version;
  const oxigraphVersion = (createRequire(path.join(ROOT, 'package.json'))('oxigraph/package.json') as { version: string }).version;

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-qengines-'));
  try {
    execFileSync('tar', ['xzf', tarball, '-C', tmp]);
    const release = readReleases(path.join(tmp, 'schemaorg-releases')).at(-1)!;
    const quads = parseRelease(release.file);

    // (a) the project's path: put the release as one version (fresh data dir per repetition).
    const putMs: number[] = [];
    let dataDir = '';
    for (let i = 0; i < Math.min(reps, 5); i++) {
      dataDir = path.join(tmp, `archive-${i}`);
      const archive = openVersionStore(dataDir);
      // Until close the version sits in the store's 100 ms write batch: the commit is part of the put.
      putMs.push(await elapsed(async () => {
        await archive.putVersion(DOC, release.time, quads);
        await archive.close();
      }));
    }
    const archive = openVersionStore(dataDir, { readonly: true });
    const snapshotQuads = [...archive.snapshot(release.time, { graphs: [DOC] })].length;

    // Load alone: Mat(T) into Oxigraph (rows → N-Quads → load) and into an N3.js Store (rows → N-Quads → parse).
    const oxLoadMs: number[] = [];
    const n3LoadMs: number[] = [];
    const n3FromParsedMs: number[] = [];
    for (let i = 0; i < reps; i++) {
      oxLoadMs.push(await elapsed(async () => freeStore(materialise(archive, release.time, [DOC]).store)));
      n3LoadMs.push(await elapsed(() => n3Snapshot(archive, release.time)));
      n3FromParsedMs.push(await elapsed(async () => new N3.Store(quads)));
    }

    const { QueryEngine } = peerRequire(PEER_PACKAGE) as ComunicaModule;
    const engine = new QueryEngine();
    const store = await n3Snapshot(archive, release.time);
    // Each at-time query gets a new instant (past the release, so the same snapshot): runQuery's snapshot
    // cache misses, so the user's full path (materialise + query + serialise) is what is timed.
    let instant = release.time;
    const freshAt = (): number => ++instant;

    interface Row { q: BenchQuery; ox: number; oxRaw: number; co: number; coRaw: number; ca: number; oxCold: number; oxWarm: number; coWarm: number; coCold: number; caCold: number }
    const rows: Row[] = [];
    let mismatches = 0;
    for (const q of QUERIES) {
      const format = q.construct ? 'ntriples' : 'json';
      // Warm-up (JIT, Comunica's first-use setup) and the result counts.
      const ox = countResults(q, (await runQuery(archive, q.sparql, { at: freshAt(), format })).body);
      const co = countResults(q, await comunicaAnswer(engine, store, q));
      const ca = countResults(q, await comunicaAnswer(engine, await archiveSourceAt(archive, release.time), q));
      if (ox.count !== co.count || ox.count !== ca.count) {
        mismatches++;
        console.error(`\n!!!!! RESULT MISMATCH on "${q.name}": Oxigraph ${ox.count}, Comunica (N3 Store) ${co.count}, Comunica (archive source) ${ca.count} !!!!!\n`);
      }
      const t = { oxCold: [] as number[], oxWarm: [] as number[], coWarm: [] as number[], coCold: [] as number[], caCold: [] as number[] };
      for (let i = 0; i < reps; i++) {
        const at = freshAt();
        t.oxCold.push(await elapsed(() => runQuery(archive, q.sparql, { at, format })));
        t.oxWarm.push(await elapsed(() => runQuery(archive, q.sparql, { at, format }))); // same instant: cached snapshot
        t.coWarm.push(await elapsed(() => comunicaAnswer(engine, store, q)));
        t.coCold.push(await elapsed(async () => comunicaAnswer(engine, await n3Snapshot(archive, release.time), q)));
        t.caCold.push(await elapsed(async () => comunicaAnswer(engine, await archiveSourceAt(archive, release.time), q)));
      }
      rows.push({ q, ox: ox.count, oxRaw: ox.raw, co: co.count, coRaw: co.raw, ca: ca.count, oxCold: median(t.oxCold), oxWarm: median(t.oxWarm), coWarm: median(t.coWarm), coCold: median(t.coCold), caCold: median(t.caCold) });
      console.error(`query-engines bench: ${q.name} done`);
    }
    await archive.close();

    const rss = (['baseline', 'oxigraph', 'comunica', 'comunica-archive'] as ChildMode[]).map((m) => runChild(m, dataDir, release.time, 3));
    const [base, oxRss, coRss, caRss] = rss;
    for (const [i, q] of QUERIES.entries()) {
      if (oxRss.counts[i] !== coRss.counts[i] || oxRss.counts[i] !== caRss.counts[i]) {
        mismatches++;
        console.error(`\n!!!!! RESULT MISMATCH in the child processes on "${q.name}": Oxigraph ${oxRss.counts[i]}, Comunica ${coRss.counts[i]}, Comunica (archive source) ${caRss.counts[i]} !!!!!\n`);
      }
    }
    const mib = (kib: number): string => (kib / 1024).toFixed(0);

    const geo = (xs: number[]): number => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
    const md = `# Query engines: Oxigraph (the project's path) against Comunica

Command: \`${COMMAND}\` (2 shared cores, other work running: indicative; medians of ${reps}).
Data: schema.org release ${release.name} (${quads.length} quads) put as one version of one document; the snapshot at T holds ${snapshotQuads} quads.
Engines: oxigraph@${oxigraphVersion} (WASM) through \`runQuery\` (src/query/sparql.ts); ${PEER_PACKAGE}@${comunicaVersion} over an N3.js Store (RDF/JS source, \`unionDefaultGraph: true\`), Node ${process.version}.
Both serialise the answer (SPARQL JSON results; N-Triples for CONSTRUCT) and are read to the end.

Loading: putVersion of the release into an empty archive, committed, ${fmt(median(putMs))} ms (the crawler's cost, once per version).
Mat(T) from the archive: into Oxigraph ${fmt(median(oxLoadMs))} ms; into an N3.js Store ${fmt(median(n3LoadMs))} ms (N3.Store from already parsed quads: ${fmt(median(n3FromParsedMs))} ms).

| query | results (Ox / Co) | Oxigraph at T: Mat + query | Comunica at T: Mat into N3 + query | Co / Ox | Comunica at T over the archive, no Mat | Co / Ox | Oxigraph, snapshot loaded | Comunica, N3 store loaded | Co / Ox |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows
  .map((r) => `| ${r.q.name} | ${r.ox} / ${r.co}${r.ox === r.co && r.ox === r.ca ? '' : ` **MISMATCH** (archive source ${r.ca})`}${r.oxRaw !== r.ox || r.coRaw !== r.co ? ` (lines ${r.oxRaw} / ${r.coRaw})` : ''} | ${fmt(r.oxCold)} ms | ${fmt(r.coCold)} ms | ${ratio(r.coCold, r.oxCold)} | ${fmt(r.caCold)} ms | ${ratio(r.caCold, r.oxCold)} | ${fmt(r.oxWarm)} ms | ${fmt(r.coWarm)} ms | ${ratio(r.coWarm, r.oxWarm)} |`)
  .join('\n')}
| geometric mean of the ratios | | | | ${ratio(geo(rows.map((r) => r.coCold)), geo(rows.map((r) => r.oxCold)))} | | ${ratio(geo(rows.map((r) => r.caCold)), geo(rows.map((r) => r.oxCold)))} | | | ${ratio(geo(rows.map((r) => r.coWarm)), geo(rows.map((r) => r.oxWarm)))} |

Peak RSS, one child process per engine (open the archive, Mat(T), answer the five queries once; tsx loader included; medians of 3 processes):
baseline (read the snapshot rows only) ${mib(base.rssKiB)} MiB; Oxigraph ${mib(oxRss.rssKiB)} MiB (+${mib(oxRss.rssKiB - base.rssKiB)}); Comunica over N3 ${mib(coRss.rssKiB)} MiB (+${mib(coRss.rssKiB - base.rssKiB)}); Comunica over the archive ${mib(caRss.rssKiB)} MiB (+${mib(caRss.rssKiB - base.rssKiB)}).
First run in a fresh process (Mat + five queries, engine set-up and module loading included): Oxigraph ${fmt(oxRss.ms)} ms, Comunica over N3 ${fmt(coRss.ms)} ms, Comunica over the archive ${fmt(caRss.ms)} ms.
${mismatches ? `\n**${mismatches} result-count mismatch(es): see above.**\n` : '\nResult counts agree on every query.\n'}
"At T" is what a CLI user waits for (\`datamonitor query --at T\`): each repetition asks for a new instant, so runQuery's snapshot cache misses and the snapshot is materialised again; Comunica's first column does the same with an N3.js Store; "over the archive" is Comunica on an RDF/JS source that reads each triple pattern's rows valid at T from the archive (a prototype on \`patternVersions\`, no snapshot at all). "Loaded" is the repeated query of a server about the same instant (Oxigraph's cached snapshot, Comunica's kept store).
`;
    console.log(md);
    fs.writeFileSync(path.join(BENCH_DIR, 'QUERY-ENGINES.md'), md);
    if (mismatches) process.exitCode = 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const childAt = process.argv.indexOf('--child');
if (childAt > 0) await child(process.argv[childAt + 1] as ChildMode, process.argv[childAt + 2], Number(process.argv[childAt + 3]));
else await parent();
