import path from 'node:path';
import { compactSqliteFile } from '../store/compact.ts';
import { META_FILE } from '../util/data-dir.ts';

/**
 * The metadata file rewritten whole when the command's writes left enough of it empty (src/store/compact.ts), at
 * the end of a crawl or an import into SQLite, once no reader of this process holds its pages (a crawl's live
 * index has made its last catch-up). A PostgreSQL store keeps to its own vacuum. On stderr: `--json` output stays
 * one document.
 */
export function compactMetadata(dataDir: string): void {
  try {
    const c = compactSqliteFile(path.join(dataDir, META_FILE));
    if (c) process.stderr.write(`metadata store rewritten whole in ${c.seconds.toFixed(1)} s: ${(c.freedBytes / 1048576).toFixed(1)} MiB of part-empty pages given back\n`);
  } catch (e) {
    // What the command wrote is archived either way; the space stays for later rows.
    process.stderr.write(`metadata store not rewritten: ${(e as Error).message}\n`);
  }
}
