/**
 * Queries that ask for their first solutions (SELECT … LIMIT without ORDER BY, ASK: src/query/plan/first.ts)
 * on a big archive, through `datamonitor query` as a user types them: the planner (which reads the first
 * rows valid at T in growing rounds) against the path the planner took before, the whole snapshot
 * (DATAMONITOR_QUERY_PLAN=snapshot) or the rows of the query's patterns (=patterns) for a query with a
 * constant, in the same run. Every solution the planner gives is checked to be a solution of the query
 * without its LIMIT, which the same peer answers (blank nodes excepted: their labels are per answer).
 * The archive is src/testkit/scale-archive.ts's (the generated Linked Data Web as a crawl leaves it, a
 * second version of every tenth document), indexed by the first query.
 *
 * Both run with the CLI's default limits (30 s, 1 GiB), as a user runs them: a peer that stops at one is
 * reported so. The check runs without limits; --no-check leaves it out (at 1,000,000 documents it would
 * load 34 M quads for the unselective queries).
 *
 * Run: node bin/run-ts.mjs bench/first-solutions.bench.ts [--quick] [--docs N] [--data DIR] [--no-check]
 *   default 100,000 documents; --quick 10,000; --data: an archive built by an earlier run (kept).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { VOCAB_HOST } from '../src/testkit/linked-data-web.ts';
import { flag, option, QUICK } from './args.ts';
import { runCli, type CliRun } from './cli-run.ts';
import { termText } from '../src/query/results/table.ts';
import type { SparqlJsonTerm } from '../src/versions/types.ts';

const DOCS = Number(option('--docs') ?? (QUICK ? 10_000 : 100_000));
const given = option('--data');
const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'dm-first-'));
if (!given) process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));

const P = `PREFIX v: <http://${VOCAB_HOST}/ns#> `;
const QUERIES: Array<{ name: string; sparql: string; before: 'snapshot' | 'patterns' }> = [
  { name: 'every triple, LIMIT 10', sparql: 'SELECT * WHERE { ?s ?p ?o } LIMIT 10', before: 'snapshot' },
  { name: 'GRAPH ?g, LIMIT 10 OFFSET 1000', sparql: 'SELECT * WHERE { GRAPH ?g { ?s ?p ?o } } LIMIT 10 OFFSET 1000', before: 'snapshot' },
  { name: 'DISTINCT predicates, LIMIT 20', sparql: 'SELECT DISTINCT ?p WHERE { ?s ?p ?o } LIMIT 20', before: 'snapshot' },
  { name: 'one label, LIMIT 1', sparql: 'SELECT ?l WHERE { ?s rdfs:label ?l } LIMIT 1', before: 'patterns' },
  { name: 'a join through blank nodes, LIMIT 10', sparql: `${P}SELECT ?r ?street ?city WHERE { ?r v:address ?a . ?a v:street ?street ; v:city ?city } LIMIT 10`, before: 'patterns' },
  { name: 'ASK with a FILTER', sparql: 'ASK { ?s ?p ?o FILTER(CONTAINS(STR(?o), "Linked Data Lane")) }', before: 'snapshot' },
];

const CHECK = !flag('--no-check');
/** As a user runs it: the CLI's default limits (30 s, 1 GiB), which the whole-snapshot path may not stay within. */
const query = (sparql: string, env: Record<string, string> = {}) => runCli(['query', '--data', dir, '--json', sparql], env);
/** The check of the answers, which must run to its end. */
const queryUnlimited = (sparql: string) => runCli(['query', '--data', dir, '--json', '--max-memory', '16g', '--timeout', '2h', sparql]);

if (!given || !fs.existsSync(path.join(dir, 'meta.sqlite'))) {
  const t = performance.now();
  await buildScaleArchive({ dataDir: dir, documents: DOCS, hosts: 20, onProgress: (n) => process.stderr.write(`\rbuilding: ${n} documents`) });
  process.stderr.write(`\nbuilt ${DOCS} documents in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
}
const index = await query('ASK { <http://nothing.test/s> ?p ?o }');
process.stderr.write(`index caught up in ${(index.ms / 1000).toFixed(1)} s\n`);

type Binding = Record<string, { type: string; value: string; datatype?: string; 'xml:lang'?: string }>;
const parsed = (r: CliRun) => JSON.parse(r.stdout) as { boolean?: boolean; results?: { bindings: Binding[] } };
const key = (b: Binding) => JSON.stringify(Object.keys(b).sort().map((k) => [k, b[k]]));
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const rows: string[] = [];
for (const q of QUERIES) {
  process.stderr.write(`${q.name}\n`);
  const planner = await query(q.sparql);
  const peer = await query(q.sparql, { DATAMONITOR_QUERY_PLAN: q.before });
  if (planner.code !== 0) throw new Error(`${q.name}: exit ${planner.code}: ${planner.stderr.slice(-300)}`);
  const lastLine = (r: CliRun) => r.stderr.split('\n').filter((l) => l.startsWith('datamonitor:')).at(-1)?.slice(0, 90) ?? '';
  const peerCell = peer.code === 0 ? `${s(peer.ms)}, ${s(peer.cpuMs)} CPU, ${mb(peer.peakRss)}` : `**exit ${peer.code}** after ${s(peer.ms)} (${lastLine(peer)}), ${mb(peer.peakRss)}`;
  // The planner's solutions among the whole answer's (the query without its LIMIT/OFFSET, the peer's way).
  let check: string;
  const mine = parsed(planner);
  if (!CHECK) {
    check = `${mine.boolean ?? `${mine.results!.bindings.length} solutions`} (not checked: --no-check)`;
  } else if (mine.boolean !== undefined) {
    const whole = peer.code === 0 ? peer : await queryUnlimited(q.sparql);
    check = mine.boolean === parsed(whole).boolean ? `same answer (${mine.boolean})` : `**differs** (${mine.boolean} / ${parsed(whole).boolean})`;
  } else {
    // Asked back with the solutions as VALUES: the whole answer may not fit in a string (3.4 M triples at 100,000 documents).
    const got = mine.results!.bindings;
    const vars = (JSON.parse(planner.stdout) as { head: { vars: string[] } }).head.vars;
    const plain = got.filter((b) => !Object.values(b).some((t) => t.type === 'bnode'));
    const body = q.sparql.slice(q.sparql.indexOf('WHERE') + 5, q.sparql.lastIndexOf('}') + 1);
    const values = plain.map((b) => `(${vars.map((v) => (b[v] ? termText(b[v] as SparqlJsonTerm) : 'UNDEF')).join(' ')})`).join(' ');
    const back = await queryUnlimited(`${q.sparql.slice(0, q.sparql.indexOf('SELECT'))}SELECT DISTINCT ${vars.map((v) => `?${v}`).join(' ')} WHERE { VALUES (${vars.map((v) => `?${v}`).join(' ')}) { ${values} } ${body} }`);
    const found = new Set(parsed(back).results!.bindings.map(key));
    const asked = Number(/LIMIT (\d+)/.exec(q.sparql)![1]);
    const inside = plain.filter((b) => found.has(key(b))).length;
    check = `${got.length}/${asked} solutions; ${inside === plain.length ? 'each' : `**${inside} of ${plain.length}**`} a solution of the query without LIMIT${plain.length < got.length ? ` (${got.length - plain.length} with blank nodes not checked)` : ''}`;
  }
  const ratio = (a: number, b: number, digits: number) => (peer.code === 0 ? `${(a / b).toFixed(digits)}×` : '');
  rows.push(`| ${q.name} | ${s(planner.ms)} | ${s(planner.cpuMs)} | ${mb(planner.peakRss)} | ${q.before}: ${peerCell} | ${ratio(planner.cpuMs, peer.cpuMs, 3)} | ${ratio(planner.peakRss, peer.peakRss, 2)} | ${check} |`);
}

console.log(`## First solutions of unordered queries (src/query/plan/first.ts), ${DOCS.toLocaleString('en')} documents\n`);
console.log(`Command: \`node bin/run-ts.mjs bench/first-solutions.bench.ts${QUICK ? ' --quick' : option('--docs') ? ` --docs ${DOCS}` : ''}${CHECK ? '' : ' --no-check'}\`; index caught up by the first query in ${s(index.ms)}. Each \`datamonitor query\` is its own process with the CLI's default limits (wall, CPU of the CLI and its query process, peak RSS summed over both); the peer is the path the planner took for the query before, in the same run.\n`);
console.log('| query | planner wall | CPU | peak RSS | before (same run) | CPU ratio | RSS ratio | answers |');
console.log('| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |');
for (const r of rows) console.log(r);
