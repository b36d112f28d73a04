/**
 * The server's read paths over real HTTP on 127.0.0.1, each against a peer in the same run:
 * - memento replay (WARC record read, un-gzipped, revisits resolved) against a fastify route sending the
 *   same bytes from memory: the cost of coming from the archive;
 * - TimeGate and TimeMap against the same peer route (what a Memento client pays per look-up);
 * - SPARQL over the protocol against runQuery in process (the protocol's own cost);
 * - the dashboard page and a CDXJ query for scale.
 *
 * - /cdx and the dashboard's counts on a large crawl log, against reading the whole log as they used to.
 *
 * Run: node bin/run-ts.mjs bench/server.bench.ts [--docs 50] [--requests 300] [--log-rows 200000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { crawl } from '../src/crawler/crawl.ts';
import { catchUpVersions, openVersionStore, runQuery } from '../src/query/index.ts';
import { openStore } from '../src/store/index.ts';
import { cdxLines, cdxPage, startServer as startArchive } from '../src/server/index.ts';
import { startServer as startOrigin } from '../src/testkit/server.ts';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const DOCS = arg('--docs', 50);
const N = arg('--requests', 300);
const LOG_ROWS = arg('--log-rows', 200_000);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-server-bench-'));
let round = 0;
const docBody = (i: number) => `@prefix ex: <http://example.org/> .\n` + Array.from({ length: 40 }, (_, k) => `ex:d${i}_${k} a ex:Thing ; ex:round ${i % 2 === 0 ? round : 0} ; ex:label "thing ${k} of document ${i}" .\n`).join('');
const origin = await startOrigin((_req, res, url) => {
  const m = /^\/d(\d+)\.ttl$/.exec(url.pathname);
  if (!m) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/turtle' }).end(docBody(Number(m[1])));
});
const seeds = Array.from({ length: DOCS }, (_, i) => `${origin.url}/d${i}.ttl`);
for (round = 0; round < 3; round++) {
  await crawl({ seeds, dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'] }).run();
}
// The versioned store is indexed from the archive (what `query` or `serve` would do first), not timed here.
{
  const store = await openStore(dataDir);
  await store.init();
  const versions = openVersionStore(dataDir);
  await catchUpVersions(versions, store, dataDir);
  await versions.close();
  await store.close();
}

const { app, url } = await startArchive({ dataDir, port: 0 });
const doc = seeds[1]!; // odd: unchanged after the first round, so its later mementos are revisits
const timemap = await (await fetch(`${url}/timemap/json/${doc}`)).json() as { mementos: { list: Array<{ uri: string }> } };
const lastMemento = timemap.mementos.list.at(-1)!.uri;
const bytes = Buffer.from(await (await fetch(lastMemento)).arrayBuffer());

const peer = Fastify();
peer.get('/bytes', (_req, reply) => reply.type('text/turtle').send(bytes));
await peer.listen({ port: 0, host: '127.0.0.1' });
const peerUrl = `http://127.0.0.1:${(peer.server.address() as { port: number }).port}/bytes`;

async function timeRequests(url: string | ((i: number) => string), init: RequestInit = {}, n = N): Promise<number> {
  const target = typeof url === 'string' ? () => url : url;
  for (let i = 0; i < 10; i++) await (await fetch(target(-1 - i), { ...init, redirect: 'manual' })).arrayBuffer(); // warm up
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await fetch(target(i), { ...init, redirect: 'manual' });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${target(i)}: HTTP ${res.status}`);
  }
  return (performance.now() - t0) / n;
}

const query = 'SELECT ?s WHERE { ?s <http://example.org/round> 2 } ORDER BY ?s LIMIT 5';
const archive = openVersionStore(dataDir, { readonly: true });
async function inProcess(n = N): Promise<number> {
  for (let i = 0; i < 5; i++) await runQuery(archive, query);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await runQuery(archive, query);
  return (performance.now() - t0) / n;
}

const peerMs = await timeRequests(peerUrl);
const mementoMs = await timeRequests(lastMemento);
const timegateMs = await timeRequests(`${url}/timegate/${doc}`, { headers: { 'accept-datetime': new Date(0).toUTCString() } });
const timemapMs = await timeRequests(`${url}/timemap/link/${doc}`);
const sparqlDirect = await inProcess();
const sparqlHttp = await timeRequests(`${url}/sparql?query=${encodeURIComponent(query)}`);
const t0 = Date.now();
const sparqlAtMs = await timeRequests((i) => `${url}/sparql?query=${encodeURIComponent(query)}&at=${new Date(t0 - 1000 + i).toISOString()}`, {}, 20);
const cdxMs = await timeRequests(`${url}/cdx?url=${encodeURIComponent(origin.url + '/')}&matchType=host`, {}, 50);
const dashboardMs = await timeRequests(`${url}/`, {}, 20);

const f = (ms: number) => ms.toFixed(2);
const r = (ms: number, base: number) => (ms / base).toFixed(1);
process.stdout.write(`## Server read paths (${DOCS} documents × 3 crawls = ${DOCS * 3} captures; ${N} sequential requests over HTTP on 127.0.0.1)

| request | ms per request | ratio to peer | peer |
| --- | ---: | ---: | --- |
| peer: fastify route sending the memento's ${bytes.length} bytes from memory | ${f(peerMs)} | 1.0 | |
| memento replay (a revisit: two WARC records read and un-gzipped) | ${f(mementoMs)} | ${r(mementoMs, peerMs)} | in-memory route |
| TimeGate (302) | ${f(timegateMs)} | ${r(timegateMs, peerMs)} | in-memory route |
| TimeMap (link format, 3 mementos) | ${f(timemapMs)} | ${r(timemapMs, peerMs)} | in-memory route |
| SPARQL GET, now (snapshot cached) | ${f(sparqlHttp)} | ${r(sparqlHttp, sparqlDirect)} | runQuery in process: ${f(sparqlDirect)} ms |
| SPARQL GET, at= a new instant each time (snapshot materialised per request; 20 requests) | ${f(sparqlAtMs)} | ${r(sparqlAtMs, sparqlDirect)} | runQuery in process |
| CDXJ, matchType=host (${DOCS * 3} lines; 50 requests) | ${f(cdxMs)} | ${r(cdxMs, peerMs)} | in-memory route |
| dashboard page (20 requests) | ${f(dashboardMs)} | ${r(dashboardMs, peerMs)} | in-memory route |

Indicative: 2 cores shared with other work.
`);

// A large crawl log (synthetic rows: 100 hosts, 20 URLs each, captured again and again), read the new way
// (GROUP BY, LIMIT, index range scans) against the old one (the whole log into memory, then filtered).
{
  const bigDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-server-bench-log-'));
  const store = await openStore(bigDir);
  await store.init();
  const t0 = Date.UTC(2026, 0, 1);
  for (let i = 0; i < LOG_ROWS; i++) {
    const host = `h${i % 100}.example`;
    await store.appendLog({ url: `http://${host}/doc/${Math.floor(i / 100) % 20}`, time: t0 + i * 1000, status: i % 50 === 0 ? 404 : 200, durationMs: 5, bytes: 1000, change: i < 2000 ? 'new' : i % 7 === 0 ? 'changed' : 'unchanged', triples: 7, checksum: `sha1:${i % 977}`, warcFile: 'warc/x.warc.gz', warcOffset: i * 900, warcLength: 900 });
  }
  await store.flush();
  const host = 'http://h7.example/';
  const time = async (fn: () => Promise<unknown>, n: number) => {
    await fn();
    const a = performance.now();
    for (let i = 0; i < n; i++) await fn();
    return (performance.now() - a) / n;
  };
  const pageNew = await time(() => cdxPage(store, { url: host, matchType: 'host', limit: 100 }), 20);
  const pageOld = await time(async () => cdxLines(await store.log(), { url: host, matchType: 'host', limit: 100 }), 3);
  const countsNew = await time(() => store.logCounts(), 5);
  const countsOld = await time(async () => {
    const byChange = new Map<string, number>();
    for (const e of await store.log()) byChange.set(e.change, (byChange.get(e.change) ?? 0) + 1);
    return byChange;
  }, 3);
  await store.close();
  fs.rmSync(bigDir, { recursive: true, force: true });
  process.stdout.write(`
### A large crawl log (${LOG_ROWS.toLocaleString('en')} rows, SQLite, in process)

| read | now | reading the whole log (before) | before / now |
| --- | ---: | ---: | ---: |
| /cdx page: matchType=host, limit=100 | ${f(pageNew)} ms | ${f(pageOld)} ms | ${(pageOld / pageNew).toFixed(0)}× |
| dashboard counts (by change state, by status) | ${f(countsNew)} ms | ${f(countsOld)} ms (by change only) | ${(countsOld / countsNew).toFixed(0)}× |
`);
}

await archive.close();
await app.close();
await peer.close();
await origin.close();
fs.rmSync(dataDir, { recursive: true, force: true });
