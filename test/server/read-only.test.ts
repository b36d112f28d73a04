/**
 * `serve` on a data directory it cannot write (an archive mounted read-only, or owned by the crawl's user):
 * the metadata store is opened read-only, the version index is built in a temporary directory, and
 * nothing in the data directory is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildArchive, type ArchiveFixture } from './fixture.ts';
import { openStore, ReadOnlyStoreError } from '../../src/store/index.ts';
import { readOnlyView } from '../helpers.ts';
import { serveCli } from './serve-cli.ts';

/** Every file under dir with its size and modification time: what "nothing was written" is checked against. */
function snapshot(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => {
    const st = fs.statSync(path.join(dir, f));
    return `${f} ${st.size} ${st.mtimeMs}`;
  });
}

describe('serve on a read-only data directory', () => {
  let fx: ArchiveFixture;

  beforeAll(async () => {
    fx = await buildArchive({ spacingMs: 0 });
  });
  afterAll(() => fx?.close());

  it('answers a SPARQL query and a Memento request, and writes nothing', async () => {
    const before = snapshot(fx.dataDir);
    const view = readOnlyView(fx.dataDir);
    if (!view) {
      console.warn('\n*** SKIPPED: no read-only view of a directory can be made here (needs root for a read-only bind mount) ***\n');
      return;
    }
    const served = await serveCli(view.path).catch((e) => (view.release(), Promise.reject(e)));
    try {
      const { url } = served.info;

      const sparql = await fetch(`${url}/sparql?query=${encodeURIComponent('SELECT ?n WHERE { <http://example.org/alice> <http://example.org/name> ?n }')}`);
      expect(sparql.status).toBe(200);
      const json = (await sparql.json()) as { results: { bindings: { n: { value: string } }[] } };
      expect(json.results.bindings.map((b) => b.n.value)).toEqual(['Alice B.']);

      const gate = await fetch(`${url}/timegate/${fx.doc}`, { redirect: 'manual', headers: { 'accept-datetime': new Date(fx.times[0]!).toUTCString() } });
      expect(gate.status).toBe(302);
      const memento = await fetch(new URL(gate.headers.get('location')!, url));
      expect(memento.status).toBe(200);
      expect(memento.headers.get('memento-datetime')).toBeTruthy();
      expect(await memento.text()).toBe(fx.served[0]);

      const dashboard = await fetch(`${url}/`);
      expect(dashboard.status).toBe(200);
      expect(await dashboard.text()).toContain('temporary index');
      expect(served.stderr()).toBe('');
    } finally {
      await served.stop();
      view.release();
    }
    expect(snapshot(fx.dataDir)).toEqual(before);
  });

  it('a store opened read-only refuses writes with a clear error, and reads', async () => {
    const store = await openStore(fx.dataDir, undefined, { readonly: true });
    try {
      await store.init();
      expect((await store.versions(fx.doc)).length).toBe(4);
      await expect(store.appendLog({ url: fx.doc, time: 0, status: 200, durationMs: 0, bytes: 0, change: 'new', triples: 0 })).rejects.toThrow(ReadOnlyStoreError);
      await expect(store.addDocuments([{ url: 'http://example.org/x', host: 'example.org', depth: 0 }])).rejects.toThrow(/addDocuments refused: the metadata store .* was opened read-only/);
    } finally {
      await store.close();
    }
  });
});
