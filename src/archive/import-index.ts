import fs from 'node:fs';
import path from 'node:path';

/**
 * The record index of an imported WARC file (`warc/import/<file>.warc.gz.records.jsonl`, a JSON line
 * per record copied): where each source record came from and where its copy is. Written by import when
 * the file is closed; read by import (revisits resolve by record ID) and by verify (each copy is
 * checked against the bytes it was copied with).
 */
export interface ImportedRecord {
  id?: string;
  type?: string;
  uri?: string;
  /** WARC-Date, epoch ms. */
  date?: number;
  /** Where the copy is in the archive. */
  file: string;
  offset: number;
  length: number;
  /** Where the record came from: source file (absolute path when imported) and offset in it. */
  source: string;
  sourceOffset: number;
  /** sha1 (hex) of the record's uncompressed bytes as the source held them. */
  sha1: string;
  /** A response's payload digests (sha1, sha256, and the one the source recorded: `digestKey` form). */
  payload?: string[];
}

export const IMPORT_DIR = path.join('warc', 'import');
export const INDEX_SUFFIX = '.records.jsonl';

/** Is `file` (a path below the data directory, as the crawl log holds it) an import file? */
export const isImportFile = (file: string): boolean => path.normalize(file).startsWith(IMPORT_DIR + path.sep);

/**
 * Every import file's index, file by file in name order: [file, its records, lines that are no record].
 * A damaged line is passed over (verify reports it), so one bad index never stops an import or export.
 */
export function readImportIndexes(dataDir: string): Array<[string, ImportedRecord[], number]> {
  return [...eachImportIndex(dataDir)];
}

/** `readImportIndexes` one file at a time: a reader holds one import's index, not every import's (verify). */
export function* eachImportIndex(dataDir: string): Generator<[string, ImportedRecord[], number]> {
  const dir = path.join(dataDir, IMPORT_DIR);
  if (!fs.existsSync(dir)) return;
  for (const name of fs.readdirSync(dir).sort()) {
    if (!name.endsWith(INDEX_SUFFIX)) continue;
    // The copy is in the file the index is named after, whatever a line says.
    yield readImportIndex(dataDir, path.join(IMPORT_DIR, name.slice(0, -INDEX_SUFFIX.length)));
  }
}

/** The index of one import file (`warc/import/….warc.gz`); no records when it has none (a crawled file). */
export function readImportIndex(dataDir: string, file: string): [string, ImportedRecord[], number] {
  const records: ImportedRecord[] = [];
  let bad = 0;
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, file + INDEX_SUFFIX), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [file, records, 0];
    throw e;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const r = JSON.parse(line) as ImportedRecord;
      if (typeof r.file === 'string' && Number.isSafeInteger(r.offset) && Number.isSafeInteger(r.length) && r.length > 0 && typeof r.sha1 === 'string') records.push({ ...r, file });
      else bad++;
    } catch {
      bad++;
    }
  }
  return [file, records, bad];
}
