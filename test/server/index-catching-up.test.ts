/**
 * A server started on a new archive indexes it before it can answer at any time T; on 100,000 documents
 * that takes minutes. A request that would wait longer than `indexWaitMs` is answered 503 with how far the
 * catch-up is and a Retry-After, and the dashboard's summary comes at once, saying the same; once the
 * index holds the crawl log, the same request answers 200. Before, such a request was held silent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildScaleArchive, type ScaleArchive } from '../../src/testkit/scale-archive.ts';
import { buildServer } from '../../src/server/app.ts';
import { tempDir } from '../helpers.ts';

describe('a request while the index catches up', () => {
  const dataDir = tempDir();
  let archive: ScaleArchive;
  let app: FastifyInstance;
  beforeAll(async () => {
    archive = await buildScaleArchive({ dataDir, documents: 5_000 });
    // One millisecond: the catch-up of 5,000 documents (over 10,000 log rows) goes in batches of at most 2,000 rows with a turn of the event loop between them, so each request below is answered at the end of a batch, with batches left.
    app = await buildServer({ dataDir, logger: false, indexWaitMs: 1 });
  }, 300_000);
  afterAll(async () => app?.close());

  it("the dashboard's summary does not wait for the catch-up at all", async () => {
    // A server that would let a query wait ten minutes: the summary must still answer while the catch-up runs.
    const dir = tempDir();
    await buildScaleArchive({ dataDir: dir, documents: 5_000 });
    const patient = await buildServer({ dataDir: dir, logger: false, indexWaitMs: 600_000 });
    try {
      const summary = await patient.inject({ method: 'GET', url: '/summary' });
      expect(summary.body).toMatch(/<td>RDF graphs<\/td><td>the archive&#39;s index is catching up with the crawl log: /);
    } finally {
      await patient.close();
    }
  }, 300_000);

  it('is answered 503 with the progress and a Retry-After, then 200 once the index holds the log', async () => {
    const q = 'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }';
    const sparql = () => app.inject({ method: 'GET', url: `/sparql?query=${encodeURIComponent(q)}`, headers: { accept: 'application/sparql-results+json' } });
    const early = await sparql();
    expect(early.statusCode).toBe(503);
    expect(early.body).toMatch(/^the archive's index is catching up with the crawl log: (starting|[\d,]+ of [\d,]+ crawl-log rows indexed \(\d+ %\)|building)/);
    expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const summary = await app.inject({ method: 'GET', url: '/summary' });
    expect(summary.statusCode).toBe(200);
    expect(summary.body).toMatch(/<td>RDF graphs<\/td><td>the archive&#39;s index is catching up with the crawl log: /);
    let res = early;
    for (let i = 0; i < 600 && res.statusCode === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await sparql();
    }
    expect(res.statusCode).toBe(200);
    const n = Number((JSON.parse(res.body) as { results: { bindings: Array<{ n: { value: string } }> } }).results.bindings[0]!.n.value);
    expect(n).toBe(archive.documents);
    const after = await app.inject({ method: 'GET', url: '/summary' });
    // Every document has a graph in the index, the gone ones too (their last version is empty).
    expect(after.body).toMatch(/<td>RDF graphs<\/td><td>5000 documents, \d+ versions/);
  }, 300_000);
});
