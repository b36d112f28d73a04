import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildScaleArchive } from '../../src/testkit/scale-archive.ts';
import { openStore } from '../../src/store/index.ts';
import type { CrawlLogEntry, MetadataStore } from '../../src/store/types.ts';
import { InlineVersions, VersionThread } from '../../src/versions/version-reader.ts';
import { tempDir } from '../helpers.ts';

/**
 * A bulk catch-up reads its versions on a thread (src/versions/version-reader.ts): what crosses must be
 * what the main thread would have read, and a thread that ended must say so instead of leaving the
 * catch-up waiting.
 */
describe('the catch-up\'s reading thread', () => {
  let dataDir: string;
  let store: MetadataStore;
  let rows: CrawlLogEntry[];

  beforeAll(async () => {
    dataDir = tempDir();
    await buildScaleArchive({ dataDir, documents: 40, hosts: 4 });
    store = await openStore(dataDir, undefined, { readonly: true });
    await store.init();
    rows = await store.log({ limit: 1_000 });
  });
  afterAll(async () => {
    await store?.close();
  });

  it('reads every version as the main thread does: the same terms, blank nodes and rows without one', async () => {
    const inline = new InlineVersions(dataDir, true);
    const thread = new VersionThread(dataDir);
    try {
      const [a, b] = [await inline.read(rows), await thread.read(rows)];
      const versions = rows.map((_, i) => a(i)).filter((v) => v !== undefined);
      expect(versions.length).toBeGreaterThanOrEqual(40); // the 303s and 404s hold none
      expect(versions.some((v) => 'terms' in v && v.terms.some((q) => q[0].startsWith('_:') || q[2].startsWith('_:')))).toBe(true);
      for (let i = 0; i < rows.length; i++) expect(b(i)).toEqual(a(i));
    } finally {
      await inline.close();
      await thread.close();
    }
  });

  it('a read asked of a thread that has ended fails at once with what happened', async () => {
    const thread = new VersionThread(dataDir);
    await (thread as unknown as { thread: { worker: { terminate(): Promise<number> } } }).thread.worker.terminate();
    await expect(thread.read(rows)).rejects.toThrow(/the catch-up's reading thread failed: it exited/);
    await thread.close();
  });
});
