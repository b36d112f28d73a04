import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

export const repoRoot = path.resolve(import.meta.dirname, '..');

/** A fresh temporary directory, removed when the process exits. */
export function tempDir(prefix = 'dm-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Rows of a table of a data directory's metadata store, read straight from its SQLite file (what a user would inspect). */
function rows(dataDir: string, sql: string): Array<Record<string, any>> {
  const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
  try {
    return db.prepare(sql).all() as Array<Record<string, any>>;
  } finally {
    db.close();
  }
}

export const crawlLog = (dataDir: string) => rows(dataDir, 'SELECT * FROM crawl_log ORDER BY id');
export const documents = (dataDir: string) => rows(dataDir, 'SELECT * FROM documents');

export function warcFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'warc');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.warc.gz') || f.endsWith('.warc.gz.open')).map((f) => path.join(root, f));
}
