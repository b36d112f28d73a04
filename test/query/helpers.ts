import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { catchUpVersions, openVersionStore, type CatchUpOptions, type CatchUpResult, type VersionArchive } from '../../src/query/index.ts';
import { openStore } from '../../src/store/index.ts';

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
