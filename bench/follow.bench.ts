/**
 * Query-driven crawling (issue #17), two measures, each against a peer in the same run:
 *
 * A. What the driving query costs as a crawl learns N documents (no fetching: the documents of the
 *    generated Web of Linked Data are parsed and learnt in crawl order): the query run after every
 *    document (the peer), every 100 documents, and in growing batches (`--follow-batch auto`).
 * B. Documents fetched for the same answer: `crawl --answer` (link-traversal querying) against a plain
 *    BFS crawl from the same seed that stops as soon as what it has fetched gives the same answer
 *    (the query runs after each of its documents), on a generated multi-host Web served on 127.0.0.1.
 *
 *   node bin/run-ts.mjs bench/follow.bench.ts [--quick] [--svg bench/follow.svg]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Parser } from 'n3';
import { QueryDriver } from '../src/crawler/follow/index.ts';
import { Knowledge } from '../src/crawler/follow/knowledge.ts';
import { analyseQuery } from '../src/query/sparql-text.ts';
import { crawl } from '../src/crawler/crawl.ts';
import { linkedDataWeb, startLinkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { startForwardProxy } from '../src/testkit/forward-proxy.ts';
import { barChart, lineChart, stack } from '../src/plot/svg.ts';

const QUICK = process.argv.includes('--quick');
const svgAt = process.argv.indexOf('--svg');
const SVG = svgAt > 0 ? process.argv[svgAt + 1] : undefined;
const PREFIXES = 'PREFIX v: <http://vocab.lod.test/ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>';
const FOLLOW = `${PREFIXES} SELECT ?next WHERE { ?r v:related ?next }`;

// ---- A: evaluation schedules ----

function documentsOf(n: number) {
  const gen = linkedDataWeb({ documents: n, hosts: 20 });
  const parser = new Parser({ format: 'text/turtle' });
  return Array.from({ length: n }, (_, i) => ({ url: gen.document(i), quads: parser.parse(gen.turtle(i)) }));
}

interface ScheduleRun {
  n: number;
  schedule: string;
  evaluations: number;
  queryMs: number;
  learnMs: number;
  /** [documents learnt, cumulative query ms] after each run. */
  curve: Array<[number, number]>;
}

function runSchedule(docs: ReturnType<typeof documentsOf>, n: number, batch: string): ScheduleRun {
  const driver = new QueryDriver({ follow: FOLLOW, followBatch: batch });
  const sink = { offer: () => undefined };
  let learnMs = 0;
  const curve: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    driver.learn(docs[i].url, docs[i].quads, 1, sink);
    learnMs += performance.now() - t;
    if (driver.due(false)) {
      driver.evaluate(sink);
      curve.push([i + 1, driver.stats.evaluationMs]);
    }
  }
  driver.finish();
  curve.push([n, driver.stats.evaluationMs]);
  const out = { n, schedule: driver.stats.schedule, evaluations: driver.stats.evaluations, queryMs: driver.stats.evaluationMs, learnMs, curve };
  driver.close();
  return out;
}

const SMALL = QUICK ? 500 : 2_000;
const LARGE = QUICK ? 2_000 : 10_000;
const docs = documentsOf(LARGE);
const runs: ScheduleRun[] = [];
const note = (what: string) => process.stderr.write(`follow bench: ${what}\n`);
for (const s of ['every', '100', 'auto']) (runs.push(runSchedule(docs, SMALL, s)), note(`A ${SMALL} ${s}: ${(runs.at(-1)!.queryMs / 1000).toFixed(1)} s`));
for (const s of ['100', 'auto']) (runs.push(runSchedule(docs, LARGE, s)), note(`A ${LARGE} ${s}: ${(runs.at(-1)!.queryMs / 1000).toFixed(1)} s`));
// One run of the query over everything: the unit of cost the schedules are a multiple of.
const full = new Knowledge();
for (const d of docs) full.add(d.url, d.quads);
const shape = analyseQuery(FOLLOW);
const t = performance.now();
const bindings = full.boundIris(shape).size;
const oneQueryMs = performance.now() - t;
const fullQuads = full.quads;
full.close();

const every = runs.find((r) => r.n === SMALL && r.schedule === 'every')!;
const scheduleRows = runs.map((r) => `| ${r.n.toLocaleString('en')} | ${r.schedule} | ${r.evaluations.toLocaleString('en')} | ${(r.queryMs / 1000).toFixed(2)} | ${r.n === SMALL ? `${(every.queryMs / r.queryMs).toFixed(1)}×` : '–'} | ${((r.learnMs * 1000) / r.n).toFixed(0)} | ${((r.queryMs * 1000) / r.n).toFixed(0)} |`);

// ---- B: documents fetched for the same answer ----

const DOCS = QUICK ? 150 : 400;
const web = await startLinkedDataWeb({ documents: DOCS, hosts: 10 });
const proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
const base = { proxy: proxy.url, resolve: {}, allowPrivate: true, delayMs: 0, perHost: 2, domains: ['lod.test'], depth: 50 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-follow-bench-'));
const QUERIES: Array<[string, string, string]> = [
  ['1 hop', web.resource(0), `${PREFIXES} SELECT ?x ?label WHERE { <${web.resource(0)}> v:related ?x . ?x rdfs:label ?label FILTER(lang(?label) = "en") }`],
  ['2 hops', web.resource(3), `${PREFIXES} SELECT DISTINCT ?y ?label WHERE { <${web.resource(3)}> v:related ?x . ?x v:related ?y . ?y rdfs:label ?label FILTER(lang(?label) = "en") }`],
  ['seeAlso, blank node', web.resource(7), `${PREFIXES} SELECT ?d ?city WHERE { <${web.resource(7)}> rdfs:seeAlso ?d . ?d v:primaryTopic ?t . ?t v:address ?a . ?a v:city ?city }`],
];

const key = (rows: Array<Record<string, { value: unknown }>>) => JSON.stringify(rows.map((r) => Object.entries(r).map(([k, v]) => `${k}=${String(v.value)}`).sort().join(' ')).sort());
const requestsSince = (from: number) => web.requests.slice(from).filter((r) => r.path !== '/robots.txt').length;

interface Traversal { name: string; answers: number; ltqpDocs: number; ltqpComplete: number; ltqpRequests: number; ltqpMs: number; bfsDocs: number; bfsRequests: number; bfsMs: number; same: boolean }
const traversals: Traversal[] = [];
const answerOf = (k: Knowledge, shape: ReturnType<typeof analyseQuery>) => key(k.select(shape).map((s) => Object.fromEntries([...s].map(([v, term]) => [v, { value: term.value }]))));
let run = 0;
for (const [name, seed, q] of QUERIES) {
  const qShape = analyseQuery(q);
  let from = web.requests.length;
  let t0 = performance.now();
  // --answer, with the answer after each document (to see when it was complete; not part of its time).
  const ltqpCrawl = crawl({ ...base, seeds: [], answer: q, dataDir: path.join(tmp, `a${run}`) });
  const seenAnswers: string[] = [];
  const k1 = new Knowledge();
  let checkMs = 0;
  for await (const doc of ltqpCrawl) {
    if (doc.status !== 200) continue;
    const c = performance.now();
    k1.add(doc.finalUrl ?? doc.url, doc.quads);
    seenAnswers.push(answerOf(k1, qShape));
    checkMs += performance.now() - c;
  }
  k1.close();
  const ltqp = ltqpCrawl.summary!;
  const ltqpMs = performance.now() - t0 - checkMs;
  const ltqpRequests = requestsSince(from);
  const answer = ltqp.query!.answer!.rows.map((r) => r.binding);
  const want = key(answer);
  const ltqpComplete = seenAnswers.indexOf(want) + 1;
  // BFS from the same seed, stopped as soon as its documents give the same answer.
  from = web.requests.length;
  t0 = performance.now();
  const k = new Knowledge();
  let bfsDocs = 0;
  let same = false;
  for await (const doc of crawl({ ...base, seeds: [seed], dataDir: path.join(tmp, `b${run++}`) })) {
    if (doc.status !== 200) continue;
    bfsDocs++;
    k.add(doc.finalUrl ?? doc.url, doc.quads);
    if (answerOf(k, qShape) === want) {
      same = true;
      break;
    }
  }
  k.close();
  note(`B ${name}: --answer ${ltqp.reasons.fetched} docs (complete after ${ltqpComplete}), BFS ${bfsDocs}${same ? '' : ' (never the same)'}`);
  traversals.push({ name, answers: answer.length, ltqpDocs: ltqp.reasons.fetched, ltqpComplete, ltqpRequests, ltqpMs, bfsDocs, bfsRequests: requestsSince(from), bfsMs: performance.now() - t0, same });
}
await proxy.close();
await web.close();
fs.rmSync(tmp, { recursive: true, force: true });

const traversalRows = traversals.map((r) => `| ${r.name} | ${r.answers} | ${r.ltqpComplete} | ${r.ltqpDocs} | ${r.ltqpRequests} | ${(r.ltqpMs / 1000).toFixed(1)} | ${r.same ? r.bfsDocs : `${r.bfsDocs} (never the same)`} | ${r.bfsRequests} | ${(r.bfsMs / 1000).toFixed(1)} | ${(r.bfsDocs / r.ltqpComplete).toFixed(1)}× | ${(r.bfsDocs / r.ltqpDocs).toFixed(1)}× |`);

console.log(`## Query-driven crawling (issue #17)

Command: \`node bin/run-ts.mjs bench/follow.bench.ts${QUICK ? ' --quick' : ''}${SVG ? ` --svg ${SVG}` : ''}\` (2-core machine shared with other engineers' work: indicative; compare the ratios).

### A. What the --follow query costs as the crawl learns N documents

The generated Web of Linked Data's documents (about 35 triples each, 10 \`v:related\` links), learnt one by one
into the crawl's one Oxigraph store (named graph = document); the follow query \`SELECT ?next WHERE { ?r v:related ?next }\`
binds about 10 IRIs a document. Peer: the query run after every document. One run over all ${LARGE.toLocaleString('en')}
documents (${fullQuads.toLocaleString('en')} quads, ${bindings.toLocaleString('en')} distinct IRIs bound) takes ${oneQueryMs.toFixed(0)} ms.
A real crawl also runs the query whenever its frontier empties (not counted here).

| documents | schedule | query runs | query s | vs every-document peer | learn µs/doc | query µs/doc |
| ---: | --- | ---: | ---: | ---: | ---: | ---: |
${scheduleRows.join('\n')}

### B. Documents fetched for the same answer: \`crawl --answer\` against a BFS crawl

A ${DOCS}-document Web on 10 hosts (each resource IRI 303s to its document), served on 127.0.0.1 through a proxy.
\`--answer\` starts from the query's IRIs and follows the IRIs of triples matching its patterns, best first;
it runs until no candidate link is left (it cannot know the answer is complete before: Hartig's
reachability semantics), and the "complete after" column says after how many of its documents the answer
was already whole. The BFS crawl starts from the same resource IRI, follows every link, and is stopped as
soon as its documents give the same answer (an oracle it would not have; the query runs after each of its
documents, that cost included in its time). Requests count every HTTP request but robots.txt (303s included).

| query | answers | --answer complete after docs | --answer docs | --answer requests | --answer s | BFS docs to same answer | BFS requests | BFS s | BFS docs / --answer complete | BFS docs / --answer docs |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${traversalRows.join('\n')}
`);

if (SVG) {
  const a = lineChart({
    title: `--follow query cost as the crawl learns documents (${SMALL.toLocaleString('en')} docs)`,
    xLabel: 'documents learnt', yLabel: 'cumulative query s',
    series: runs.filter((r) => r.n === SMALL).map((r) => ({ name: r.schedule, points: r.curve.map(([x, y]) => [x, y / 1000] as [number, number]), markers: r.schedule !== 'every' })),
    note: 'every: the query after each document; batch:100; growth: when what was learnt grows by a tenth',
  });
  const b = barChart({
    title: 'Documents fetched for the same answer',
    categories: traversals.map((r) => r.name),
    series: [
      { name: '--answer: answer whole', values: traversals.map((r) => r.ltqpComplete) },
      { name: '--answer: all fetched', values: traversals.map((r) => r.ltqpDocs) },
      { name: 'BFS until same answer', values: traversals.map((r) => r.bfsDocs) },
    ],
    yLabel: 'documents',
  });
  fs.writeFileSync(SVG, stack([a, b]));
}
