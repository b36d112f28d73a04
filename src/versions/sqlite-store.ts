import fs from 'node:fs';
import path from 'node:path';
import { VersionStore } from './store.ts';
import { SqliteVersionDialect } from './sqlite-dialect.ts';
import type { RowConstants } from './backend.ts';
import { VERSIONS_FILE } from '../util/data-dir.ts';

export { OPEN, checkGraph, checkTime, intervalsByQuad, nquadLine, ntripleLine, repeatedVariables, toQuadRow, tripleHash, type RawRow } from './rows.ts';
export type { RowConstants };

export { VERSIONS_FILE };

/**
 * Whether any row of a named graph is valid at T (countAt: the snapshot's dm:inDocument statements), through
 * the partial index of named-graph rows (quads_by_ng): the unary `+` keeps SQLite from taking the validity's
 * index instead (store.ts namedRowsAtT writes the same).
 */
export const NAMED_ROW_AT_T = 'SELECT 1 FROM quads q WHERE q.ng IS NOT NULL AND +q.to_t > ? AND +q.from_t <= ? LIMIT 1';

/** The versioned store in SQLite (`<data>/versions.sqlite`): store.ts over sqlite-dialect.ts. */
export class VersionArchive extends VersionStore {
  private readonly sqlite: SqliteVersionDialect;

  constructor(file: string, opts: { readonly?: boolean } = {}) {
    const dialect = new SqliteVersionDialect(file, opts);
    super(dialect);
    this.sqlite = dialect;
  }

  /** Folds the WAL into the database file (for measuring size, or before copying the file). */
  checkpoint(): void {
    this.flush(); // a checkpoint cannot run inside the open batch
    this.sqlite.db.pragma('wal_checkpoint(TRUNCATE)');
  }
}

/** Opens (creating if needed) the versioned store of a data directory: `<dataDir>/versions.sqlite`. */
export function openVersionStore(dataDir: string, opts: { readonly?: boolean } = {}): VersionArchive {
  if (!opts.readonly) fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, VERSIONS_FILE);
  if (opts.readonly && !fs.existsSync(file)) throw new Error(`no versioned archive at ${file}`);
  return new VersionArchive(file, opts);
}
