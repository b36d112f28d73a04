/**
 * A Triple Pattern Fragment's latency on a big archive: a generated Web of Linked Data
 * (src/testkit/linked-data-web.ts, ~35 triples and a blank node a document) put into versions.sqlite with
 * putVersion directly (as bench/scale-query.bench.ts does), a revision of every tenth document a month
 * later; then, in one warm process, a page of a fragment as `serve` makes it (fragments.ts: the store's
 * page, its count estimate, the TriG written) for patterns from selective to every triple, now and at an
 * instant before the revisions, and as a peer in the same run the `datamonitor query` path (runQuery,
 * the planner's choice) for the same pattern with LIMIT 100. No HTTP: a request adds fastify's few
 * hundred microseconds.
 *
 * Run: node bin/run-ts.mjs bench/fragments.bench.ts [--docs N] [--runs N] [--keep]
 *   default 100,000 documents; --keep leaves the archive in the temp dir for a re-run.
 * Writes a markdown table to stdout (bench/FRAGMENTS.md holds the latest).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import { openVersionStore, runQuery, type VersionArchive } from '../src/query/index.ts';
import { linkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { readFragment, writeFragment, PAGE_SIZE, type FragmentRequest } from '../src/server/fragments.ts';
import { NOW } from '../src/query/sparql.ts';

const args = process.argv.slice(2);
const arg = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const DOCS = arg('--docs', 100_000);
const RUNS = arg('--runs', 21);
const keep = args.includes('--keep');
const T0 = Date.UTC(2026, 0, 1);
const T1 = T0 + 30 * 86_400_000;
const web = linkedDataWeb({ documents: DOCS, hosts: 50 });
const dir = path.join(os.tmpdir(), `dm-fragments-bench-${DOCS}`);
const marker = path.join(dir, 'built');
const note = (s: string) => process.stderr.write(`${s}\n`);

async function build(): Promise<void> {
  fs.rmSync(dir, { recursive: true, force: true });
  const archive = openVersionStore(dir);
  const t = performance.now();
  const put = (i: number, time: number, text: string) => archive.putVersion(web.document(i), time, new N3.Parser({ format: 'text/turtle' }).parse(text));
  for (let i = 0; i < DOCS; i++) {
    await put(i, T0 + i, web.turtle(i));
    if (i % 10_000 === 9_999) note(`built ${i + 1} documents, ${Math.round((performance.now() - t) / 1000)} s`);
  }
  for (let i = 0; i < DOCS; i += 10) await put(i, T1 + i, web.turtle(i).replace(`"Resource ${i}"@en`, `"Resource ${i}, revised"@en`));
  archive.checkpoint();
  await archive.close();
  fs.writeFileSync(marker, String(Math.round(performance.now() - t)));
}

if (!fs.existsSync(marker)) await build();
const archive: VersionArchive = openVersionStore(dir, { readonly: true });
const stats = archive.stats();

const RDFS_LABEL = '<http://www.w3.org/2000/01/rdf-schema#label>';
const RDF_TYPE = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>';
const AGENT = '<http://vocab.lod.test/ns#Agent>';
/** `cursor`: the page as hydra:next links it, from the row id the page before ended on (found before timing). */
interface Case { name: string; pattern: (r: number) => FragmentRequest['pattern']; page?: number; cursor?: boolean }
const CASES: Case[] = [
  { name: 'subject bound (a resource, ~30 triples)', pattern: (r) => ({ s: `<${web.resource((r * 7919) % DOCS)}>` }) },
  { name: 'object literal ("Resource i"@en)', pattern: (r) => ({ o: `"Resource ${(r * 7919 + 1) % DOCS}"@en` }) },
  { name: 'predicate rdfs:label, page 1', pattern: () => ({ p: RDFS_LABEL }) },
  { name: 'predicate rdfs:label, page 100', pattern: () => ({ p: RDFS_LABEL }), page: 100 },
  { name: 'predicate rdfs:label, page 100 from hydra:next (cursor)', pattern: () => ({ p: RDFS_LABEL }), page: 100, cursor: true },
  { name: 'a class (?x a v:Agent), page 1', pattern: () => ({ p: RDF_TYPE, o: AGENT }) },
  { name: 'a class (?x a v:Agent), page 100', pattern: () => ({ p: RDF_TYPE, o: AGENT }), page: 100 },
  { name: 'a class (?x a v:Agent), page 100 from hydra:next (cursor)', pattern: () => ({ p: RDF_TYPE, o: AGENT }), page: 100, cursor: true },
  { name: 'every triple (?s ?p ?o), page 1', pattern: () => ({}) },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

async function fragmentMs(c: Case, at: number, r: number): Promise<{ ms: number; pageMs: number; triples: number }> {
  const request: FragmentRequest = { given: {}, pattern: c.pattern(r), page: c.page ?? 1 };
  if (c.cursor) request.after = archive.triplesAt(at, request.pattern, { offset: (request.page - 1) * PAGE_SIZE - 1, limit: 1 })[0]?.id;
  const t = performance.now();
  const page = readFragment(archive, at, request, []);
  await writeFragment({ dataset: 'http://127.0.0.1/fragments', pageUrl: 'http://127.0.0.1/fragments?x', title: 'bench', genid: 'http://127.0.0.1/.well-known/genid/' }, request, page, 'application/trig');
  const ms = performance.now() - t;
  // The page's share: the same page again, alone (the rest is the count and writing).
  const tc = performance.now();
  archive.triplesAt(at, request.pattern, { offset: (request.page - 1) * PAGE_SIZE, limit: PAGE_SIZE + 1, after: request.after });
  return { ms, pageMs: performance.now() - tc, triples: page.triples.length };
}

/** The same pattern through the query path (planner, engine, JSON), LIMIT 100: the peer. */
async function queryMs(c: Case, at: number, r: number): Promise<number> {
  const p = c.pattern(r);
  const q = `SELECT * WHERE { ${p.s ?? '?s'} ${p.p ?? '?p'} ${p.o ?? '?o'} } LIMIT ${PAGE_SIZE} OFFSET ${((c.page ?? 1) - 1) * PAGE_SIZE}`;
  const t = performance.now();
  await runQuery(archive, q, { at: at === NOW ? undefined : at, format: 'json' });
  return performance.now() - t;
}

const rows: string[] = [];
for (const [when, at] of [['now', NOW], ['past (T0 + 1 day)', T0 + 86_400_000]] as const) {
  for (const c of CASES) {
    await fragmentMs(c, at, RUNS); // warm-up
    const f: number[] = [];
    const pageReads: number[] = [];
    const q: number[] = [];
    let triples = 0;
    // Alternated, so that the machine's load falls on both alike.
    for (let r = 0; r < RUNS; r++) {
      const run = await fragmentMs(c, at, r);
      f.push(run.ms);
      pageReads.push(run.pageMs);
      triples = run.triples;
      q.push(await queryMs(c, at, r));
    }
    rows.push(`| ${when} | ${c.name} | ${triples} | ${median(f).toFixed(2)} | ${p95(f).toFixed(2)} | ${median(pageReads).toFixed(2)} | ${median(q).toFixed(2)} | ${(median(q) / median(f)).toFixed(1)}× |`);
    note(rows.at(-1)!);
  }
}
await archive.close();

console.log(`### ${DOCS.toLocaleString('en')} documents, SQLite (${stats.rows.toLocaleString('en')} rows, ${stats.versions.toLocaleString('en')} versions, ${(stats.bytes / 2 ** 20).toFixed(0)} MiB)\n`);
console.log(`Command: \`node bin/run-ts.mjs bench/fragments.bench.ts --docs ${DOCS} --runs ${RUNS}\`; ${RUNS} runs of each, one warm process, alternated with the peer.\n`);
console.log('| instant | pattern | triples on the page | fragment median ms | fragment p95 ms | of which the page read, median ms | `query` LIMIT 100 median ms | query / fragment |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(r);
if (!keep) fs.rmSync(dir, { recursive: true, force: true });
