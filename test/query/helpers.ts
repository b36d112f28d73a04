import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import N3 from 'n3';
import type { Quad } from '@rdfjs/types';
import { openVersionStore, type VersionArchive } from '../../src/query/index.ts';

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
