import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { catchUpVersions, openVersionStore, type CatchUpOptions, type CatchUpResult, type VersionArchive } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';
import { runMain } from '../helpers.ts';

/** A fresh archive in its own temp dir (real SQLite file). */
export function tempArchive(): { archive: VersionArchive; dir: string; cleanup: () => Promise<void> } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-query-'));
  const archive = openVersionStore(dir);
  return { archive, dir, cleanup: async () => { await archive.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

export function turtle(text: string, base = 'http://example.org/'): Quad[] {
  return new N3.Parser({ baseIRI: base, format: 'text/turtle' }).parse(`@prefix ex: <http://example.org/> .\n${text}`);
}

export const DAY = 86_400_000;
export const T0 = Date.UTC(2025, 0, 1);

/**
 * What `query` does before it answers: brings `<dataDir>/versions.sqlite` up to date with the crawl log
 * (the index is derived from the archive; the crawler does not write it). Returns the open store.
 */
export async function indexVersions(dataDir: string, opts: CatchUpOptions = {}): Promise<{ archive: VersionArchive; result: CatchUpResult; close: () => Promise<void> }> {
  const store = await openStore(dataDir);
  await store.init();
  const archive = openVersionStore(dataDir);
  try {
    const result = await catchUpVersions(archive, store, dataDir, opts);
    return { archive, result, close: () => archive.close() };
  } catch (e) {
    await archive.close();
    throw e;
  } finally {
    await store.close();
  }
}

/**
 * Each document's graph at `at` by `datamonitor query --at` (in process, as a user runs it), its triples in the
 * default graph: what an LDES replay or a mirror is compared with. `db`: the store's PostgreSQL URL.
 */
export async function graphsAt(dataDir: string, at: number, documents: string[], db?: string): Promise<Map<string, Quad[]>> {
  const { namedNode, blankNode, literal, quad, defaultGraph } = N3.DataFactory;
  const r = await runMain(['query', '--data', dataDir, ...(db ? ['--db', db] : []), '--at', new Date(at).toISOString(), '--json', 'SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } }']);
  if (r.code !== 0) throw new Error(`query --at failed (${r.code}): ${r.err}`);
  const term = (t: { type: string; value: string; datatype?: string; 'xml:lang'?: string }) =>
    t.type === 'uri' ? namedNode(t.value) : t.type === 'bnode' ? blankNode(t.value) : literal(t.value, t['xml:lang'] || (t.datatype ? namedNode(t.datatype) : undefined));
  const out = new Map<string, Quad[]>(documents.map((d) => [d, []]));
  for (const b of JSON.parse(r.out).results.bindings as Array<Record<string, any>>) {
    out.get(b.g.value)?.push(quad(term(b.s) as any, term(b.p) as any, term(b.o) as any, defaultGraph()));
  }
  return out;
}
