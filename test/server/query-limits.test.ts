/**
 * Issue #13's "done when": runaway SPARQL queries, sent ten times each and all at once with ordinary
 * requests, cannot harm the server. The server is the real `datamonitor serve` (a process of its own,
 * so that its resident memory is its own), over an archive this test crawls from 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer as startOrigin, type TestServer } from '../../src/testkit/server.ts';
import { startServer } from '../../src/server/index.ts';
import { QueryEngine } from '../../src/query/engine/index.ts';
import { residentBytes } from '../../src/query/engine/memory.ts';
import { alive, repoRoot, tempDir } from '../helpers.ts';

const MiB = 1024 ** 2;
/** The issue's two queries: a product of four unconnected patterns, and a count over three. */
const PRODUCT4 = 'SELECT * WHERE {?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l}';
const COUNT3 = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const ALICE = 'SELECT ?name WHERE { <http://example.org/alice> <http://example.org/name> ?name }';
const QUERY_MEMORY = 512 * MiB;

const sparql = (base: string, q: string) => `${base}/sparql?query=${encodeURIComponent(q)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The query processes of a server: its child processes (Linux /proc). */
function childrenOf(pid: number): number[] {
  const tasks = fs.readdirSync(`/proc/${pid}/task`);
  return tasks.flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
}

async function names(res: Response): Promise<string[]> {
  return ((await res.json()) as any).results.bindings.map((b: any) => b.name.value);
}

describe('SPARQL queries that cannot harm the server (#13)', () => {
  let origin: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir('dm-limits-');
    // 300 triples: three unconnected patterns make 27 million rows, four grow without end.
    const big = Array.from({ length: 300 }, (_, i) => `<http://example.org/s${i}> <http://example.org/p${i % 7}> "value ${i}" .`).join('\n') + '\n';
    origin = await startOrigin((_req, res, url) => {
      if (url.pathname === '/small.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/alice> <http://example.org/name> "Alice" .\n');
      if (url.pathname === '/big.nt') return res.writeHead(200, { 'content-type': 'application/n-triples' }).end(big);
      res.writeHead(404).end();
    });
    await crawl({
      seeds: [`${origin.url}/small.ttl`, `${origin.url}/big.nt`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, domains: ['127.0.0.1'],
    }).run();
  });
  afterAll(async () => {
    await origin?.close();
  });

  it('ten copies of each runaway query at once get their limit errors, ordinary requests are answered meanwhile, and memory comes back', async () => {
    const server = await serve(dataDir, ['--query-timeout', '2s', '--query-memory', `${QUERY_MEMORY / MiB}MiB`, '--query-workers', '2', '--query-queue', '8']);
    try {
      const base = server.url;
      expect(await names(await fetch(sparql(base, ALICE)))).toEqual(['Alice']);
      const rssBefore = (await residentBytes(server.pid))!;

      let pending = 0;
      const bad = [...Array(10).fill(PRODUCT4), ...Array(10).fill(COUNT3)].map(async (q: string) => {
        pending++;
        try {
          const res = await fetch(sparql(base, q));
          return { q, status: res.status, body: await res.text() };
        } finally {
          pending--;
        }
      });
      // While they run: Memento, the dashboard and ordinary SPARQL queries.
      const answeredWhileBadPending: string[] = [];
      const ordinary: Array<Promise<void>> = [];
      for (let round = 0; round < 3; round++) {
        const timemap = await fetch(`${base}/timemap/link/${origin.url}/small.ttl`);
        expect(timemap.status).toBe(200);
        expect(await timemap.text()).toContain('rel="original"');
        if (pending > 0) answeredWhileBadPending.push('timemap');
        const dashboard = await fetch(`${base}/`);
        expect(dashboard.status).toBe(200);
        await dashboard.text();
        if (pending > 0) answeredWhileBadPending.push('dashboard');
        ordinary.push(fetch(sparql(base, `${ALICE} # round ${round}`)).then(async (res) => {
          expect(res.status).toBe(200);
          expect(await names(res)).toEqual(['Alice']);
        }));
      }
      expect(answeredWhileBadPending.length).toBeGreaterThan(0); // the event loop was not held by a query
      await Promise.all(ordinary);
      for (const r of await Promise.all(bad)) {
        expect(r.status, r.body).toBe(503);
        expect(r.body).toMatch(/over the (time limit of 2\.0 s|memory limit of 512\.0 MiB)/);
      }

      // Afterwards: ordinary SPARQL still works, a repeated runaway query is refused at once.
      expect(await names(await fetch(sparql(base, ALICE)))).toEqual(['Alice']);
      const again = await fetch(sparql(base, COUNT3));
      expect(again.status).toBe(503);
      expect(await again.text()).toMatch(/refused without running/);
      // The server's own memory did not grow with the queries; each query process is within its bound.
      expect((await residentBytes(server.pid))!).toBeLessThan(rssBefore + 100 * MiB);
      for (const child of childrenOf(server.pid)) expect((await residentBytes(child)) ?? 0).toBeLessThanOrEqual(QUERY_MEMORY);
    } finally {
      await server.stop();
    }
  });

  it('a client that disconnects ends its query process; the next query gets a fresh one', async () => {
    const engine = new QueryEngine({ workers: 1, timeMs: 120_000 });
    const { app, url } = await startServer({ dataDir, port: 0, engine });
    try {
      const client = new AbortController();
      const request = fetch(sparql(url, COUNT3), { signal: client.signal }).catch((e: Error) => e);
      while (engine.load.evaluating === 0) await sleep(20);
      const [pid] = engine.pids;
      client.abort();

      expect(((await request) as Error).name).toBe('AbortError');
      while (alive(pid!)) await sleep(20);
      expect(await names(await fetch(sparql(url, ALICE)))).toEqual(['Alice']);
      expect(engine.pids).not.toContain(pid);
    } finally {
      await app.close();
      await engine.close();
    }
  });

  it('answers 413 for a result over the size limit, and 503 with Retry-After when every process is busy and the queue is full', async () => {
    const engine = new QueryEngine({ workers: 1, queue: 0, timeMs: 3000, resultBytes: 4096 });
    const { app, url } = await startServer({ dataDir, port: 0, engine });
    try {
      const big = await fetch(sparql(url, 'SELECT * WHERE { ?s ?p ?o }'));
      expect(big.status).toBe(413);
      expect(await big.text()).toMatch(/over the limit of 4\.0 KiB: add a LIMIT/);
      // Ver(Q) of a pattern through the archive API runs in a query process too, under the same limits.
      const ver = await fetch(`${url}/api/pattern/versions?${new URLSearchParams({ pattern: '?s ?p ?o', graph: `${origin.url}/big.nt` })}`);
      const verBody = await ver.clone().text();
      expect(ver.status, verBody).toBe(413);
      expect(((await ver.json()) as { error: string }).error).toMatch(/over the limit of 4\.0 KiB/);
      const slow = fetch(sparql(url, COUNT3));
      while (engine.load.evaluating === 0) await sleep(20);
      const busy = await fetch(sparql(url, ALICE));
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('3');
      expect(await busy.text()).toMatch(/busy.*try again shortly/);
      expect((await slow).status).toBe(503);
    } finally {
      await app.close();
      await engine.close();
    }
  });
});

/** `datamonitor serve` on a free port, with extra flags; its pid, URL and a stop function. */
async function serve(dataDir: string, flags: string[]): Promise<{ pid: number; url: string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'serve', '--data', dataDir, '--port', '0', '--json', ...flags],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAMONITOR_TOKEN: '' } });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const closed = new Promise((r) => child.once('close', r));
  const stop = async () => {
    child.kill('SIGTERM');
    await closed;
  };
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
  return { pid: child.pid!, url: JSON.parse(line).url, stop };
}
