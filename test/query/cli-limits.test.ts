import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import N3 from 'n3';
import { tempArchive, turtle, T0 } from './helpers.ts';
import { linkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { cli } from '../helpers.ts';
import { EXIT } from '../../src/util/exit-codes.ts';

const COUNT3 = 'SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }';

/** `datamonitor query` as a user runs it: a runaway query ends with a message and a sysexits status, not a hang or a stack trace. */
describe('CLI: datamonitor query under limits', () => {
  let t: ReturnType<typeof tempArchive>;

  beforeAll(async () => {
    t = tempArchive();
    await t.archive.putVersion('http://example.org/big.ttl', T0, turtle(Array.from({ length: 300 }, (_, i) => `ex:s${i} ex:p${i % 7} "value ${i}" .`).join('\n')));
    await t.archive.close();
  });
  afterAll(() => t.cleanup());

  it('stops a query over --timeout with its own status (79) and says what to do', async () => {
    const r = await cli(['query', '--data', t.dir, '--timeout', '1s', COUNT3]);
    expect(r.code).toBe(EXIT.queryLimit);
    expect(r.err).toMatch(/^datamonitor: the query ran over the time limit of 1\.0 s and was stopped: .*query --timeout/m);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.out).toBe('');
  });

  it('holds Ver(Q) and Change(Q) to the same limits', async () => {
    const r = await cli(['query', '--data', t.dir, '--timeout', '1s', '--changes', COUNT3]);
    expect(r.code).toBe(EXIT.queryLimit);
    expect(r.err).toMatch(/time limit of 1\.0 s/);
  });

  it('refuses a result over --max-result, and answers within the limits', async () => {
    const big = await cli(['query', '--data', t.dir, '--max-result', '1k', 'SELECT * WHERE { ?s ?p ?o }']);
    expect(big.code).toBe(EXIT.queryLimit);
    expect(big.err).toMatch(/over the limit of 1000 B: add a LIMIT/);
    const ok = await cli(['query', '--data', t.dir, '--max-result', '1k', '--csv', 'SELECT ?o WHERE { <http://example.org/s3> ?p ?o }']);
    expect(ok.code).toBe(0);
    expect(ok.out.split(/\r?\n/).filter(Boolean)).toEqual(['o', 'value 3']);
  });

  it('refuses a query nested too deep or too long before it runs (64), and one that breaks the engine ends with 79', async () => {
    const deep = await cli(['query', '--data', t.dir, `SELECT * WHERE {${'{'.repeat(2000)}${'}'.repeat(2000)}}`]);
    expect(deep.code, deep.err).toBe(EXIT.usage);
    expect(deep.err).toMatch(/^datamonitor: the query's brackets nest 2001 deep .*over the nesting limit of 100: .*query --max-depth/m);
    const long = await cli(['query', '--data', t.dir, '--max-query-size', '1KiB', `SELECT * WHERE { VALUES ?x { ${'1 '.repeat(1000)}} }`]);
    expect(long.code, long.err).toBe(EXIT.usage);
    expect(long.err).toMatch(/^datamonitor: the query is 2\.0 KiB, over the query size limit of 1\.0 KiB: .*query --max-query-size/m);
    // Within both limits, a chain of 3000 || breaks Oxigraph's WebAssembly (in that process, not this one).
    const chain = `SELECT * WHERE { ?s ?p ?o FILTER(${Array.from({ length: 3000 }, (_, i) => `?o = ${i}`).join(' || ')}) }`;
    const broken = await cli(['query', '--data', t.dir, chain]);
    expect(broken.code, broken.err).toBe(EXIT.queryLimit);
    expect(broken.err).toMatch(/^datamonitor: the query engine failed on this query \(.+\): .*VALUES block instead of a long FILTER chain/m);
    expect(broken.err).not.toMatch(/\n\s+at /);
  });

  it('takes limits as sizes and durations, and refuses ones that cannot work', async () => {
    const small = await cli(['query', '--data', t.dir, '--max-memory', '10MiB', 'ASK {}']);
    expect(small.code).toBe(EXIT.usage);
    expect(small.err).toMatch(/--max-memory 10MiB is too small: a query process needs at least 128\.0 MiB/);
    const bad = await cli(['query', '--data', t.dir, '--timeout', 'soon', 'ASK {}']);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toMatch(/--timeout 'soon' is not a duration/);
  });
});

/**
 * The time limit (or Ctrl-C, or the memory limit) may stop a query while it still reads the archive's rows:
 * the watchdog ends the evaluation without unwinding it, so SQLite's statement stays busy, and closing the
 * store then threw "This database connection is busy executing a query", which the CLI printed as a bug
 * (exit 70) instead of the limit's message (seen at 100,000 documents, where loading the snapshot takes
 * longer than the 30 s default).
 */
describe('CLI: a query stopped while it reads the archive', () => {
  let t: ReturnType<typeof tempArchive>;
  const DOCS = 1_500;

  beforeAll(async () => {
    t = tempArchive();
    const web = linkedDataWeb({ documents: DOCS, hosts: 5 });
    for (let i = 0; i < DOCS; i++) await t.archive.putVersion(web.document(i), T0 + i, new N3.Parser({ format: 'text/turtle' }).parse(web.turtle(i)));
    await t.archive.close();
  }, 120_000);
  afterAll(() => t.cleanup());

  it('ends with the time limit\'s message and status 79, never an error about a busy connection', async () => {
    // The whole snapshot (50,000 rows) is read row by row for some hundreds of milliseconds after the query is
    // planned: limits from 100 ms to 1.6 s stop it before, inside and after that read, whatever this machine's speed.
    const outcomes: string[] = [];
    for (const ms of [100, 200, 400, 800, 1600]) {
      const r = await cli(['query', '--data', t.dir, '--timeout', `${ms}ms`, 'SELECT * WHERE { ?s ?p ?o } ORDER BY ?o LIMIT 1'], { env: { DATAMONITOR_QUERY_PLAN: 'snapshot' } });
      outcomes.push(`${ms} ms: exit ${r.code} ${r.err.split('\n').find((l) => l.startsWith('datamonitor:'))?.slice(0, 100) ?? ''}`);
      if (r.code !== 0) expect(r.err, `${ms} ms`).toMatch(/^datamonitor: the query ran over the time limit of .* and was stopped/m);
    }
    expect(outcomes.filter((o) => /busy|a bug/.test(o))).toEqual([]);
    expect(outcomes.some((o) => /exit 79/.test(o)), outcomes.join('\n')).toBe(true);
  }, 120_000);
});
