/**
 * `crawl --answer` against Comunica on the same generated Web of Linked Data (issue #17), and a second
 * `--answer` answered from the archive. Per query:
 *
 * - `--answer`, first run: documents fetched (requests), answers, time;
 * - `--answer`, second run on the same archive: what it fetched again (nothing is stale: 0) and whether
 *   its answer is the same;
 * - Comunica (`@comunica/query-sparql`, no link traversal of its own) given the query's seed IRIs as
 *   sources, as a user of it would start; and given the documents the first `--answer` traced its
 *   answer rows to (the same data: its answers should then be ours, a cross-check of the two engines).
 *
 * `@comunica/query-sparql-link-traversal` is not installable here (not in the package lists), so
 * Comunica's own traversal is not measured. Comunica is not a dependency of datamonitor: install it
 * anywhere and point COMUNICA_DIR at that directory (the one holding node_modules/), e.g.
 *
 *   mkdir -p /tmp/comunica && cd /tmp/comunica && npm init -y && npm pkg set overrides.undici=7.30.2 \
 *     && npm install @comunica/query-sparql@5.4.1
 *   COMUNICA_DIR=/tmp/comunica node bin/run-ts.mjs bench/follow-comunica.bench.ts [--quick]
 *
 * (The undici override: Comunica 5.4's fetch actor wants undici 8, which needs Node ≥ 22.19; with undici 7
 * it runs on Node 20.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { fetch as undiciFetch, ProxyAgent } from 'undici';
import { crawl, type CrawlSummary } from '../src/crawler/crawl.ts';
import { startLinkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { startForwardProxy } from '../src/testkit/forward-proxy.ts';

const QUICK = process.argv.includes('--quick');
const DOCS = QUICK ? 100 : 400;
const PREFIXES = 'PREFIX v: <http://vocab.lod.test/ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>';
const note = (s: string) => process.stderr.write(`${s}\n`);

interface ComunicaBindings { get(v: string): { value: string } | undefined; keys(): IterableIterator<{ value: string }> }
interface ComunicaEngine { queryBindings(q: string, ctx: Record<string, unknown>): Promise<{ toArray(): Promise<ComunicaBindings[]> }> }

async function loadComunica(): Promise<(new () => ComunicaEngine) | undefined> {
  const dir = process.env.COMUNICA_DIR;
  const spec = dir ? pathToFileURL(path.join(dir, 'node_modules/@comunica/query-sparql/lib/index.js')).href : '@comunica/query-sparql';
  try {
    const mod = (await import(spec)) as { QueryEngine?: new () => ComunicaEngine; default?: { QueryEngine: new () => ComunicaEngine } };
    return mod.QueryEngine ?? mod.default?.QueryEngine;
  } catch (e) {
    note(`Comunica not loaded (${(e as Error).message.split('\n')[0]}): set COMUNICA_DIR, see the header of this file`);
    return undefined;
  }
}

const QueryEngine = await loadComunica();
const web = await startLinkedDataWeb({ documents: DOCS, hosts: 10 });
const proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
const agent = new ProxyAgent(proxy.url);
const base = { proxy: proxy.url, resolve: {}, allowPrivate: true, delayMs: 0, perHost: 2, domains: ['lod.test'], depth: 50 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-follow-comunica-'));
const QUERIES: Array<[string, string, string]> = [
  ['1 hop', web.resource(0), `${PREFIXES} SELECT ?x ?label WHERE { <${web.resource(0)}> v:related ?x . ?x rdfs:label ?label FILTER(lang(?label) = "en") }`],
  ['2 hops', web.resource(3), `${PREFIXES} SELECT DISTINCT ?y ?label WHERE { <${web.resource(3)}> v:related ?x . ?x v:related ?y . ?y rdfs:label ?label FILTER(lang(?label) = "en") }`],
  ['seeAlso, blank node', web.resource(7), `${PREFIXES} SELECT ?d ?city WHERE { <${web.resource(7)}> rdfs:seeAlso ?d . ?d v:primaryTopic ?t . ?t v:address ?a . ?a v:city ?city }`],
];

const requestsSince = (from: number) => web.requests.slice(from).filter((r) => r.path !== '/robots.txt').length;
/** An answer as a set of rows, each `var=value` sorted: comparable across engines. */
const ours = (s: CrawlSummary) => new Set(s.query!.answer!.rows.map((r) => Object.entries(r.binding).map(([k, v]) => `${k}=${String(v.value)}`).sort().join(' ')));
const theirs = (rows: ComunicaBindings[], vars: string[]) => new Set(rows.map((b) => vars.filter((v) => b.get(v)).map((v) => `${v}=${b.get(v)!.value}`).sort().join(' ')));
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));
const contained = (a: Set<string>, b: Set<string>) => [...a].filter((x) => b.has(x)).length;

interface Row {
  name: string;
  answers: number; docs: number; requests: number; ms: number;
  second: { requests: number; same: boolean; fromArchive: number; ms: number };
  comunica?: { answers: number; correct: number; requests: number; ms: number; sameDocs: { answers: number; same: boolean; requests: number; ms: number } };
}
const rows: Row[] = [];

async function comunica(q: string, sources: string[], vars: string[]): Promise<{ answers: Set<string>; requests: number; ms: number }> {
  const engine = new QueryEngine!();
  const from = web.requests.length;
  const t0 = performance.now();
  const stream = await engine.queryBindings(q, {
    sources,
    lenient: true,
    // Through the same forward proxy the crawler uses: the Web's hosts exist only there.
    fetch: (input: string | URL | Request, init?: RequestInit) => undiciFetch(input as string, { ...(init as object), dispatcher: agent } as Parameters<typeof undiciFetch>[1]),
  });
  const out = theirs(await stream.toArray(), vars);
  return { answers: out, requests: requestsSince(from), ms: performance.now() - t0 };
}

let run = 0;
for (const [name, seed, q] of QUERIES) {
  const dataDir = path.join(tmp, `a${run++}`);
  let from = web.requests.length;
  let t0 = performance.now();
  const first = await crawl({ ...base, seeds: [], answer: q, dataDir }).run();
  const firstMs = performance.now() - t0;
  const requests = requestsSince(from);
  const answer = ours(first);
  from = web.requests.length;
  t0 = performance.now();
  const second = await crawl({ ...base, seeds: [], answer: q, dataDir }).run();
  const row: Row = {
    name, answers: answer.size, docs: first.query!.learnt.documents, requests, ms: firstMs,
    second: { requests: requestsSince(from), same: sameSet(ours(second), answer), fromArchive: second.query!.archive?.documents ?? 0, ms: performance.now() - t0 },
  };
  if (QueryEngine) {
    const vars = first.query!.answer!.vars;
    const fromSeed = await comunica(q, [seed], vars);
    // The documents --answer traced its rows to: the data the answer needs.
    const docs = [...new Set(first.query!.answer!.rows.flatMap((r) => r.documents))];
    const all = await comunica(q, docs.length ? docs : [seed], vars);
    row.comunica = {
      answers: fromSeed.answers.size, correct: contained(fromSeed.answers, answer), requests: fromSeed.requests, ms: fromSeed.ms,
      sameDocs: { answers: all.answers.size, same: sameSet(all.answers, answer), requests: all.requests, ms: all.ms },
    };
  }
  note(`${name}: --answer ${row.answers} answers from ${row.docs} docs (${row.requests} requests); second run ${row.second.requests} requests; Comunica from the seed ${row.comunica?.answers ?? '-'} answers`);
  rows.push(row);
}
await agent.close();
await proxy.close();
await web.close();
fs.rmSync(tmp, { recursive: true, force: true });

const s = (ms: number) => (ms / 1000).toFixed(1);
console.log(`### C. \`crawl --answer\` against Comunica, and a second \`--answer\` answered from the archive

Command: \`COMUNICA_DIR=/tmp/comunica node bin/run-ts.mjs bench/follow-comunica.bench.ts${QUICK ? ' --quick' : ''}\` (Comunica \`@comunica/query-sparql\` ${QueryEngine ? 'loaded' : 'NOT loaded: its columns are empty'}; 2-core machine shared with other engineers' work).

A ${DOCS}-document Web on 10 hosts (each resource IRI 303s to its document), served on 127.0.0.1 through a
forward proxy that both engines use. **\`@comunica/query-sparql-link-traversal\` could not be installed here**
(it is not in the machine's package lists), so Comunica's own link traversal is not measured: plain
\`@comunica/query-sparql\` 5.4.1 dereferences the sources it is given and follows no links. It is given the
query's seed IRI (as a user would start), and then the documents \`--answer\` traced its answer rows to (the
data the answer needs: a cross-check that the two engines agree on it). The second \`--answer\` runs on the first one's archive, where
nothing is stale yet (re-crawl policy: a week after a crawl's fetch). Requests: every HTTP request but robots.txt.

| query | --answer answers | --answer docs | --answer requests | --answer s | 2nd run requests | 2nd run docs from archive | 2nd run same answer | 2nd run s | Comunica from seed: answers (of ours) | its requests | its s | Comunica given the answer's docs: answers | same as ours | its requests |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |
${rows.map((r) => `| ${r.name} | ${r.answers} | ${r.docs} | ${r.requests} | ${s(r.ms)} | ${r.second.requests} | ${r.second.fromArchive} | ${r.second.same ? 'yes' : 'NO'} | ${s(r.second.ms)} | ${r.comunica ? `${r.comunica.answers} (${r.comunica.correct})` : '–'} | ${r.comunica?.requests ?? '–'} | ${r.comunica ? s(r.comunica.ms) : '–'} | ${r.comunica?.sameDocs.answers ?? '–'} | ${r.comunica ? (r.comunica.sameDocs.same ? 'yes' : 'NO') : '–'} | ${r.comunica?.sameDocs.requests ?? '–'} |`).join('\n')}
`);
