/**
 * Issue #30 item 5, "a query cannot harm the next one", and #31 point 16: requests anyone may send
 * without a token (queries nested or chained past what Oxigraph's WebAssembly survives, bodies sent a
 * byte at a time, a JSON body nested 100,000 deep) get a 4xx each, and the requests after them are
 * answered as before. The servers are the real `datamonitor serve` and `federate`, processes of their
 * own: a query that traps Oxigraph must never run in this test process (vitest runs file after file in
 * one fork, and a trapped instance's heap later crashed it: commit 187e981).
 */
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer as startOrigin, type TestServer } from '../../src/testkit/server.ts';
import { nestingDepth } from '../../src/query/sparql-text.ts';
import { LOADED_TIMEOUT_MS, repoRoot, tempDir } from '../helpers.ts';
import { serveCli } from './serve-cli.ts';

const ALICE = 'SELECT ?name WHERE { <http://example.org/alice> <http://example.org/name> ?name }';
const TOKEN = 'hostile-test-token';
const nested = (open: string, close: string, n: number, inner = '') => open.repeat(n) + inner + close.repeat(n);

/** Over the default nesting limit (100): each of these made Oxigraph trap ("memory access out of bounds") on main. */
const DEEP = {
  groups: `SELECT * WHERE {${nested('{', '}', 2000)}}`,
  optionals: `SELECT * WHERE {${' ?s ?p ?o OPTIONAL {'.repeat(2000)}${'}'.repeat(2000)}}`,
  subqueries: `SELECT * WHERE {${nested('{ SELECT * WHERE ', '}', 2000, '{}')}}`,
  functions: `SELECT * WHERE { BIND(${nested('STR(', ')', 500, '1')} AS ?x) }`,
  parentheses: `SELECT * WHERE { FILTER(${nested('(', ')', 5000, '1')}) }`,
  blankNodes: `SELECT * WHERE { ?s <http://e/p> ${nested('[ <http://e/p> ', ']', 2000, '1')} }`,
};
/**
 * Within the nesting and size limits, yet each traps Oxigraph: a long chain at one level (measured: from
 * ~1000 BINDs or ~3000 operands of || in one group). They reach the engine, which must be thrown away.
 */
const CHAINS = {
  or: `SELECT * WHERE { ?s ?p ?o FILTER(${Array.from({ length: 3000 }, (_, i) => `?o = ${i}`).join(' || ')}) }`,
  binds: `SELECT * WHERE { ${Array.from({ length: 1500 }, (_, i) => `BIND(${i} AS ?x${i})`).join(' ')} }`,
};

async function post(base: string, query: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}/sparql`, { method: 'POST', headers: { 'content-type': 'application/sparql-query' }, body: query });
  return { status: res.status, body: await res.text() };
}

async function alice(base: string): Promise<void> {
  const res = await fetch(`${base}/sparql?query=${encodeURIComponent(ALICE)}`);
  const body = await res.text();
  expect(res.status, body).toBe(200);
  expect(JSON.parse(body).results.bindings.map((b: { name: { value: string } }) => b.name.value)).toEqual(['Alice']);
}

/**
 * A POST whose body comes a byte every 200 ms and never completes: what the client receives before the
 * server closes the connection. Without a request timeout the server waits for ever (the test's own
 * timeout then fails it).
 */
function dripPost(base: string, route: string, type: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let got = '';
    const drip = setInterval(() => socket.writable && socket.write('x'), 200);
    socket.on('data', (d) => (got += d));
    socket.on('error', () => undefined); // reset after the 408: what was received is the answer
    socket.on('close', () => {
      clearInterval(drip);
      resolve(got);
    });
    socket.write(`POST ${route} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: ${type}\r\nContent-Length: 100000\r\n\r\n`);
  });
}

/** `datamonitor federate --archive <archive> --port 0 --json [args]` as a child process, once it listens. */
async function federateCli(archive: string, args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'federate', '--archive', archive, '--port', '0', '--json', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAMONITOR_TOKEN: '' } });
  const closed = new Promise((r) => child.once('close', r));
  const stop = async () => {
    child.kill('SIGTERM');
    await closed;
  };
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => ((out += d), out.includes('\n') && resolve(out.split('\n')[0]!)));
    child.once('exit', (code) => reject(new Error(`federate exited with ${code}: ${err}`)));
  });
  return { url: JSON.parse(line).url, stop };
}

describe('hostile requests to serve and federate', () => {
  let origin: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDir('dm-hostile-');
    origin = await startOrigin((_req, res, url) => {
      if (url.pathname === '/small.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/alice> <http://example.org/name> "Alice" .\n');
      res.writeHead(404).end();
    });
    await crawl({ seeds: [`${origin.url}/small.ttl`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, domains: ['127.0.0.1'] }).run();
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await origin?.close();
  });

  it('refuses queries nested too deep or too long with a 400 naming the limit; ordinary queries are answered after each', async () => {
    const server = await serveCli(dataDir, ['--query-max-size', '64KiB', '--query-workers', '1']);
    try {
      const base = server.info.url;
      await alice(base);
      for (const [shape, query] of Object.entries(DEEP)) {
        const r = await post(base, query);
        expect(r.status, `${shape}: ${r.body}`).toBe(400);
        expect(r.body, shape).toMatch(/the query's brackets nest \d+ deep .*over the nesting limit of 100: .*serve --query-max-depth/);
        await alice(base);
      }
      const long = `SELECT * WHERE { VALUES ?x { ${Array.from({ length: 10_000 }, (_, i) => `<http://example.org/item/${i}>`).join(' ')} } }`;
      const r = await post(base, long);
      expect(r.status, r.body).toBe(400);
      expect(r.body).toMatch(/the query is \d+\.\d KiB, over the query size limit of 64\.0 KiB: .*serve --query-max-size/);
      await alice(base);
      expect(server.exited()).toBeUndefined();
    } finally {
      await server.stop();
    }
  }, LOADED_TIMEOUT_MS);

  it('a query that traps the engine gets a 400; the engine is replaced and the next query is answered', async () => {
    const server = await serveCli(dataDir, ['--query-workers', '1']);
    try {
      const base = server.info.url;
      await alice(base);
      for (const [shape, query] of Object.entries(CHAINS)) {
        expect(nestingDepth(query), shape).toBeLessThan(100); // past the parse limits: the engine sees it
        const r = await post(base, query);
        expect(r.status, `${shape}: ${r.body}`).toBe(400);
        expect(r.body, shape).toMatch(/^the query engine failed on this query \(.+\): the engine instance that ran it is not used again/);
        await alice(base);
      }
      // The same query again is refused without taking a process.
      const again = await post(base, CHAINS.or);
      expect(again.status).toBe(400);
      expect(again.body).toMatch(/refused without running until/);
      await alice(base);
    } finally {
      await server.stop();
    }
    // A raised depth limit lets a deep query reach the engine: it traps, and the engine recovers the same way.
    const lenient = await serveCli(dataDir, ['--query-max-depth', '10000', '--query-workers', '1']);
    try {
      const r = await post(lenient.info.url, DEEP.groups);
      expect(r.status, r.body).toBe(400);
      expect(r.body).toMatch(/^the query engine failed on this query/);
      await alice(lenient.info.url);
    } finally {
      await lenient.stop();
    }
  }, LOADED_TIMEOUT_MS);

  it('cuts a request body that does not arrive within --request-timeout with 408, on serve and on federate', async () => {
    const server = await serveCli(dataDir, ['--request-timeout', '2s']);
    const federation = await federateCli(server.info.url, ['--request-timeout', '2s']);
    try {
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => dripPost(server.info.url, '/sparql', 'application/sparql-query')),
        ...Array.from({ length: 2 }, () => dripPost(federation.url, '/api/urls', 'application/json')),
      ]);
      for (const got of answers) {
        expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
        expect(got).toContain('the request was not received in full within the request timeout of 2.0 s');
      }
      await alice(server.info.url);
    } finally {
      await federation.stop();
      await server.stop();
    }
  }, LOADED_TIMEOUT_MS);

  it('answers POST /api/urls with a JSON body nested 100,000 deep with 400, on serve and on federate', async () => {
    const server = await serveCli(dataDir, ['--token', TOKEN]);
    const federation = await federateCli(server.info.url, ['--token', TOKEN]);
    try {
      const body = `{"urls": ["http://example.org/ok", ${nested('[', ']', 100_000)}]}`;
      for (const base of [server.info.url, federation.url]) {
        const res = await fetch(`${base}/api/urls`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
        const text = await res.text();
        expect(res.status, `${base}: ${text}`).toBe(400);
        expect(JSON.parse(text).invalid).toEqual(['(a JSON array, not a URL string)']);
      }
      await alice(server.info.url);
    } finally {
      await federation.stop();
      await server.stop();
    }
  }, LOADED_TIMEOUT_MS);
});

describe('nestingDepth', () => {
  it('counts (, { and [ in the query, not in its strings, IRIs or comments', () => {
    expect(nestingDepth('SELECT * WHERE { ?s ?p ?o FILTER((?o > 1)) }')).toBe(3);
    expect(nestingDepth('SELECT * WHERE { ?s <http://e/p> [[ <http://e/((((> "{{{{" ]] } # ((((((')).toBe(3);
    expect(nestingDepth(`SELECT * WHERE {${nested('{', '}', 150)}}`)).toBe(151);
  });
});
