import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempArchive, turtle, T0 } from './helpers.ts';
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

  it('stops a query over --timeout with EX_UNAVAILABLE and says what to do', async () => {
    const r = await cli(['query', '--data', t.dir, '--timeout', '1s', COUNT3]);
    expect(r.code).toBe(EXIT.unavailable);
    expect(r.err).toMatch(/^datamonitor: the query ran over the time limit of 1\.0 s and was stopped: .*query --timeout/m);
    expect(r.err).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.out).toBe('');
  });

  it('holds Ver(Q) and Change(Q) to the same limits', async () => {
    const r = await cli(['query', '--data', t.dir, '--timeout', '1s', '--changes', COUNT3]);
    expect(r.code).toBe(EXIT.unavailable);
    expect(r.err).toMatch(/time limit of 1\.0 s/);
  });

  it('refuses a result over --max-result, and answers within the limits', async () => {
    const big = await cli(['query', '--data', t.dir, '--max-result', '1k', 'SELECT * WHERE { ?s ?p ?o }']);
    expect(big.code).toBe(EXIT.unavailable);
    expect(big.err).toMatch(/over the limit of 1000 B: add a LIMIT/);
    const ok = await cli(['query', '--data', t.dir, '--max-result', '1k', '--csv', 'SELECT ?o WHERE { <http://example.org/s3> ?p ?o }']);
    expect(ok.code).toBe(0);
    expect(ok.out.split(/\r?\n/).filter(Boolean)).toEqual(['o', 'value 3']);
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
