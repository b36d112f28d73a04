import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempArchive, turtle, T0 } from './helpers.ts';
import { repoRoot } from '../helpers.ts';
import { DEFAULT_LIMITS, QueryEngine, QueryLimitError, locationOf } from '../../src/query/engine/index.ts';
import { checkResult, guarded } from '../../src/query/engine/inline.ts';
import { prepareQuery } from '../../src/query/sparql.ts';
import { UserError } from '../../src/util/errors.ts';
import { EXIT } from '../../src/util/exit-codes.ts';
import type { VersionArchive } from '../../src/versions/sqlite-store.ts';

/** Unconnected patterns over 300 triples: 27 million rows to count (seconds), and a product that grows without end. */
const COUNT3 = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const PRODUCT4 = 'SELECT * WHERE {?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l}';
const ALICE = 'SELECT ?name WHERE { <http://example.org/alice> <http://example.org/name> ?name }';
const names = (body: string) => JSON.parse(body).results.bindings.map((b: { name: { value: string } }) => b.name.value);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const linux = fs.existsSync('/proc/self/status');

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the query to fail');
}

/** Resident memory of a process, bytes (Linux). */
function rss(pid: number): number {
  try {
    return Number(/^VmRSS:\s*(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** `datamonitor …` as a process of its own, with its pid while it runs. */
function start(args: string[]) {
  const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args]);
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const ended = new Promise<{ code: number | null; signal: string | null; out: string; err: string }>((resolve) =>
    p.on('exit', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { p, ended };
}

let t: ReturnType<typeof tempArchive>;
let archive: VersionArchive;

beforeAll(async () => {
  t = tempArchive();
  archive = t.archive;
  await archive.putVersion('http://example.org/doc.ttl', T0, turtle('ex:alice ex:name "Alice" .'));
  await archive.putVersion('http://example.org/big.ttl', T0, turtle(Array.from({ length: 300 }, (_, i) => `ex:s${i} ex:p${i % 7} "value ${i}" .`).join('\n')));
  archive.flush();
});
afterAll(() => t.cleanup());

/** The engine as the CLI runs it: one query on a worker thread of the asking process, under the same limits as a query process. */
describe('query engine, thread isolation', () => {
  const engines: QueryEngine[] = [];
  const engine = (o: ConstructorParameters<typeof QueryEngine>[0]) => {
    const e = new QueryEngine({ ...o, isolation: 'thread' });
    engines.push(e);
    return e;
  };
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
  });

  it('answers as a query process does, streaming a body of many chunks', async () => {
    const e = engine({ workers: 1 });
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toEqual(['Alice']);
    const r = await e.run(locationOf(archive), 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 20000');
    let chunks = 0;
    let bytes = 0;
    for await (const c of r.body) {
      chunks++;
      bytes += (c as Buffer).length;
    }
    expect(bytes).toBe(r.bytes);
    expect(chunks).toBeGreaterThan(1);
    expect(e.pids).toEqual([]); // no process of its own
  });

  it('stops a query at its time limit (inside the WebAssembly evaluation), and the next query gets a fresh thread', async () => {
    const e = engine({ workers: 1, timeMs: 1500 });
    const err = await failure(e.run(locationOf(archive), COUNT3));
    expect((err as QueryLimitError).kind).toBe('time');
    expect(err.message).toMatch(/time limit of 1\.5 s/);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toEqual(['Alice']);
  });

  it.skipIf(!linux)('stops a query whose thread grows the process over the memory limit (WebAssembly memory included)', async () => {
    const e = engine({ workers: 1, timeMs: 300_000, memoryBytes: 200 * 1024 ** 2 });
    const err = await failure(e.run(locationOf(archive), PRODUCT4));
    expect((err as QueryLimitError).kind).toBe('memory');
    expect(err.message).toMatch(/memory limit of 200\.0 MiB/);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toEqual(['Alice']);
  }, 300_000);

  it('refuses a result over the size limit, a wrong query with a plain UserError, and ends a cancelled one', async () => {
    const e = engine({ workers: 1, resultBytes: 2000, timeMs: 300_000 });
    expect(((await failure(e.run(locationOf(archive), 'SELECT * WHERE { ?s ?p ?o }'))) as QueryLimitError).kind).toBe('result');
    const wrong = await failure(e.run(locationOf(archive), 'SELECT ?x WHERE { ?x'));
    expect(wrong).toBeInstanceOf(UserError);
    expect(wrong).not.toBeInstanceOf(QueryLimitError);
    const abort = new AbortController();
    const running = e.run(locationOf(archive), COUNT3, {}, abort.signal);
    while (e.load.evaluating === 0) await sleep(20);
    abort.abort();
    expect((await failure(running)).name).toBe('AbortError');
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toEqual(['Alice']);
  });

  it('takes one query thread only: two would count each other in the process memory', () => {
    expect(() => new QueryEngine({ isolation: 'thread', workers: 2 })).toThrow(/one at a time/);
  });
});

/**
 * A query on the asking thread (src/query/engine/inline.ts), as `datamonitor query` runs its one query.
 * Only evaluations that end by themselves run in this process: vitest runs file after file in one fork
 * (isolate: false), and an evaluation stopped inside Oxigraph's WebAssembly (time limit, memory limit,
 * Ctrl-C) leaves its heap untrusted — a later garbage collection freed Oxigraph terms through it and
 * crashed the fork ("RuntimeError: memory access out of bounds" in web.js's FinalizationRegistry, CI of
 * stop 28). inline.ts says so: after a limit error the caller exits. The stopped evaluations are tried as
 * a user meets them, in a `datamonitor query` process of their own: below, and in cli-limits.test.ts.
 */
describe('query on the asking thread, under the limits', () => {
  const limits = (o: Partial<typeof DEFAULT_LIMITS> = {}) => ({ ...DEFAULT_LIMITS, ...o });
  const run = async (sparql: string, l = limits()) => {
    const started = Date.now();
    const prepared = await prepareQuery(archive, sparql);
    return guarded(() => prepared.execute(), l, started);
  };

  it('answers as runQuery does', async () => {
    expect(names((await run(ALICE)).body)).toEqual(['Alice']);
  });

  it('refuses a result over the size limit, and a wrong query with a plain UserError', async () => {
    const body = (await run('SELECT * WHERE { ?s ?p ?o }')).body;
    expect(() => checkResult(body, limits({ resultBytes: 2000 }))).toThrow(/is .* over the limit of /);
    const wrong = await failure(run('SELECT ?x WHERE { ?x'));
    expect(wrong).toBeInstanceOf(UserError);
    expect(wrong).not.toBeInstanceOf(QueryLimitError);
  });
});

/** `datamonitor query` as a user runs it: its one query on the main thread, stopped at the limits or by Ctrl-C. */
describe('CLI: datamonitor query under the limits and Ctrl-C', () => {
  it.skipIf(!linux)('ends a query over --max-memory with the query-limit status (79) and says what to do', async () => {
    const { ended } = start(['query', '--data', t.dir, '--timeout', '5m', '--max-memory', '200MiB', PRODUCT4]);
    const r = await ended;
    expect(r.code).toBe(EXIT.queryLimit);
    expect(r.err).toMatch(/^datamonitor: the query needed more than the memory limit of 200\.0 MiB .*and was stopped: .*query --max-memory/m);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.out).toBe('');
  }, 300_000);

  /**
   * `signal` sent while a runaway query is being evaluated: it grows the process's memory, so past 300 MiB
   * it surely is (the CLI with Oxigraph loaded is far below). Were the evaluation deaf to the signal, it
   * would go unanswered until a limit ended the query (EX_UNAVAILABLE), far later.
   */
  async function signalDuringEvaluation(signal: NodeJS.Signals) {
    const { p, ended } = start(['query', '--data', t.dir, '--timeout', '10m', '--max-memory', '3GiB', PRODUCT4]);
    try {
      let exited = false;
      void ended.then(() => (exited = true));
      while (!exited && rss(p.pid!) < 300 * 1024 ** 2) await sleep(50);
      expect(exited).toBe(false);
      p.kill(signal);
      return await ended;
    } finally {
      p.kill('SIGKILL');
    }
  }

  it.skipIf(!linux)('ends at once on SIGTERM during a runaway query (node\'s default: a supervisor stopping it is not kept waiting)', async () => {
    const r = await signalDuringEvaluation('SIGTERM');
    expect(r.signal).toBe('SIGTERM');
    expect(r.out).toBe('');
  }, 300_000);

  it.skipIf(!linux)('answers Ctrl-C during a runaway query at once: the evaluation ends, the status is 130', async () => {
    const r = await signalDuringEvaluation('SIGINT');
    expect(r.code).toBe(EXIT.interrupted);
    expect(r.err).toMatch(/^datamonitor: the query was cancelled \(SIGINT\)/m);
    expect(r.out).toBe('');
  }, 300_000);
});
