import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScaleArchive, type ScaleArchive } from '../../src/testkit/scale-archive.ts';
import { tempDir } from '../helpers.ts';
import { serveCli } from './serve-cli.ts';

/**
 * `serve` on an archive no reader has indexed yet catches the version index up at start, in the serving
 * process. It held a page of 10,000 full log rows for the federation holdings, 200,000 cached term ids
 * and 2,000-row batches whatever the heap, and died of "heap out of memory" under a small heap: with
 * these figures the code before the fix died at 3,000 documents under 40 MB (and at 20,000 under 48 MB,
 * the case, run with DATAMONITOR_FULL=1). Now its caches and batches take a share of the heap
 * limit: the server stays up, indexes the whole log, and answers from it.
 */
const FULL = process.env.DATAMONITOR_FULL === '1';
const DOCUMENTS = FULL ? 20_000 : 3_000;
const HEAP_MB = FULL ? 48 : 40;

/** The last log id the index holds, read from its file; undefined before the server has made it. */
function indexedLogId(dataDir: string): number | undefined {
  let db: Database.Database | undefined;
  try {
    db = new Database(path.join(dataDir, 'versions.sqlite'), { readonly: true, fileMustExist: true });
    return db.prepare<[], { value: number }>("SELECT value FROM meta WHERE key = 'indexed_log_id'").get()?.value;
  } catch {
    return undefined; // not created yet
  } finally {
    db?.close();
  }
}

describe(`serve with a ${HEAP_MB} MB heap on an unindexed archive of ${DOCUMENTS} documents`, () => {
  const dataDir = tempDir();
  let archive: ScaleArchive;
  beforeAll(async () => {
    archive = await buildScaleArchive({ dataDir, documents: DOCUMENTS });
  }, 900_000);

  let served: Awaited<ReturnType<typeof serveCli>> | undefined;
  afterAll(async () => served?.stop());

  it('stays up, indexes every log row, and answers a query from the index', async () => {
    served = await serveCli(dataDir, ['--query-timeout', '10m'], { heapMb: HEAP_MB });
    // The catch-up runs on its own once the server is ready: wait for it as a user would, reading the index.
    let last: number | undefined;
    while ((last = indexedLogId(dataDir)) !== archive.entries && !served.exited()) {
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(served.stderr()).not.toMatch(/heap out of memory/);
    expect(served.exited()).toBeUndefined();
    expect(last).toBe(archive.entries);
    const q = 'SELECT (COUNT(DISTINCT ?g) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }';
    const res = await fetch(`${served.info.url}/sparql?query=${encodeURIComponent(q)}`, { headers: { accept: 'application/sparql-results+json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { bindings: Array<{ n: { value: string } }> } };
    expect(Number(body.results.bindings[0]!.n.value)).toBe(archive.documents);
    expect(served.exited()).toBeUndefined();
  }, 900_000);
});
