import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from 'node:stream/consumers';
import { tempArchive, turtle, T0, DAY } from './helpers.ts';
import { alive } from '../helpers.ts';
import { runQuery, type VersionArchive } from '../../src/query/index.ts';
import { QueryEngine, QueryLimitError, locationOf } from '../../src/query/engine/index.ts';
import { UserError } from '../../src/util/errors.ts';

const DOC = 'http://example.org/doc.ttl';
const BIG = 'http://example.org/big.ttl';
/** Unconnected patterns: n^3 rows on n triples, and n^4. */
const COUNT3 = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';
const PRODUCT4 = 'SELECT * WHERE {?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l}';
const ALICE = 'SELECT ?name WHERE { <http://example.org/alice> <http://example.org/name> ?name }';

const names = (body: string) => JSON.parse(body).results.bindings.map((b: any) => b.name.value);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the query to fail');
}

describe('query engine: queries in throw-away processes under limits', () => {
  let t: ReturnType<typeof tempArchive>;
  let archive: VersionArchive;
  const engines: QueryEngine[] = [];
  const engine = (o: ConstructorParameters<typeof QueryEngine>[0]) => {
    const e = new QueryEngine(o);
    engines.push(e);
    return e;
  };

  beforeAll(async () => {
    t = tempArchive();
    archive = t.archive;
    await archive.putVersion(DOC, T0, turtle('ex:alice ex:name "Alice" .'));
    // 300 triples: a 3-way product counts 27 million rows (seconds), a 4-way one grows without end.
    await archive.putVersion(BIG, T0, turtle(Array.from({ length: 300 }, (_, i) => `ex:s${i} ex:p${i % 7} "value ${i}" .`).join('\n')));
  });
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    await t.cleanup();
  });

  it('answers as runQuery does, streaming the body, and sees new versions', async () => {
    const e = engine({ workers: 1 });
    const r = await e.run(locationOf(archive), ALICE);
    expect(r.mediaType).toBe('application/sparql-results+json');
    expect(names(await text(r.body))).toEqual(['Alice']);
    const inProcess = await runQuery(archive, 'SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s ?o', { format: 'csv' });
    const viaEngine = await e.run(locationOf(archive), 'SELECT ?s ?o WHERE { ?s ?p ?o } ORDER BY ?s ?o', { format: 'csv' });
    expect(viaEngine.bytes).toBe(Buffer.byteLength(inProcess.body));
    expect(await text(viaEngine.body)).toBe(inProcess.body);
    await archive.putVersion(DOC, T0 + DAY, turtle('ex:alice ex:name "Alice B." .'));
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toEqual(['Alice B.']);
    expect(names(await text((await e.run(locationOf(archive), ALICE, { at: T0 })).body))).toEqual(['Alice']);
  });

  it('sends a large body in chunks as the reader takes them', async () => {
    const e = engine({ workers: 1 });
    const q = 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 20000';
    const r = await e.run(locationOf(archive), q);
    let chunks = 0;
    let bytes = 0;
    for await (const c of r.body) {
      chunks++;
      bytes += (c as Buffer).length;
    }
    expect(bytes).toBe(r.bytes);
    expect(chunks).toBeGreaterThan(1);
    expect(JSON.parse((await runQuery(archive, q)).body).results.bindings).toHaveLength(20000);
  });

  it('frees the process from a reader that stops reading, without ending it', async () => {
    // Over two chunks, so that it cannot end with the chunk the reader asked for; quick to evaluate within the limit.
    const e = engine({ workers: 1, timeMs: 3000 });
    const r = await e.run(locationOf(archive), 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } LIMIT 6000');
    expect(r.bytes).toBeGreaterThan(2 * 256 * 1024);
    const [pid] = e.pids;
    const failed = new Promise<Error>((resolve) => r.body.once('error', resolve));
    r.body.once('readable', () => r.body.read()); // one read, then nothing
    expect((await failed).message).toMatch(/the client read nothing for 3\.0 s/);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
    expect(e.pids).toEqual([pid]);
  });

  it('stops a query at its time limit, and ordinary queries go on; the same query is then refused without running', async () => {
    const e = engine({ workers: 1, timeMs: 1500 });
    const err = await failure(e.run(locationOf(archive), COUNT3));
    expect(err).toBeInstanceOf(QueryLimitError);
    expect((err as QueryLimitError).kind).toBe('time');
    expect((err as QueryLimitError).httpStatus).toBe(503);
    expect(err.message).toMatch(/time limit of 1\.5 s/);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
    const again = await failure(e.run(locationOf(archive), COUNT3));
    expect((again as QueryLimitError).kind).toBe('time');
    expect(again.message).toMatch(/refused without running/);
  });

  it('stops a query whose process grows over the memory limit (WebAssembly memory included)', async () => {
    const e = engine({ workers: 1, timeMs: 120_000, memoryBytes: 200 * 1024 ** 2 });
    const err = await failure(e.run(locationOf(archive), PRODUCT4));
    expect((err as QueryLimitError).kind).toBe('memory');
    expect(err.message).toMatch(/memory limit of 200\.0 MiB/);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
  });

  it('refuses a result over the size limit with 413, and a wrong query with a plain UserError', async () => {
    const e = engine({ workers: 1, resultBytes: 2000 });
    const err = await failure(e.run(locationOf(archive), 'SELECT * WHERE { ?s ?p ?o }'));
    expect((err as QueryLimitError).kind).toBe('result');
    expect((err as QueryLimitError).httpStatus).toBe(413);
    expect(err.message).toMatch(/over the limit of 2\.0 KiB: add a LIMIT/);
    const wrong = await failure(e.run(locationOf(archive), 'SELECT ?x WHERE { ?x'));
    expect(wrong).toBeInstanceOf(UserError);
    expect(wrong).not.toBeInstanceOf(QueryLimitError);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
  });

  it('ends the process of a query whose caller gives up, and the next query gets a fresh one', async () => {
    const e = engine({ workers: 1, timeMs: 120_000 });
    const abort = new AbortController();
    const running = e.run(locationOf(archive), COUNT3, {}, abort.signal);
    while (e.load.evaluating === 0) await sleep(20);
    const [pid] = e.pids;
    abort.abort();
    expect((await failure(running)).name).toBe('AbortError');
    while (alive(pid!)) await sleep(20);
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
    expect(e.pids).not.toContain(pid);
  });

  it('survives its query process being killed (as the OS would on memory pressure)', async () => {
    const e = engine({ workers: 1, timeMs: 120_000 });
    const running = e.run(locationOf(archive), COUNT3);
    while (e.load.evaluating === 0) await sleep(20);
    process.kill(e.pids[0]!, 'SIGKILL');
    const err = await failure(running);
    expect((err as QueryLimitError).kind).toBe('crashed');
    expect(names(await text((await e.run(locationOf(archive), ALICE)).body))).toHaveLength(1);
  });

  it('refuses a query when every process is busy and the queue is full, saying when to retry', async () => {
    const e = engine({ workers: 1, queue: 0, timeMs: 3000 });
    const slow = e.run(locationOf(archive), COUNT3);
    while (e.load.busy === 0) await sleep(20);
    const busy = await failure(e.run(locationOf(archive), ALICE));
    expect((busy as QueryLimitError).kind).toBe('busy');
    expect((busy as QueryLimitError).retryAfter).toBe(3);
    expect(((await failure(slow)) as QueryLimitError).kind).toBe('time');
  });
});
