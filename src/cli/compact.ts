import path from 'node:path';
import { compactSqliteFile, READER_WAIT_MS } from '../store/compact.ts';
import { META_FILE } from '../util/data-dir.ts';
import { formatBytes } from '../util/units.ts';

/**
 * The metadata file rewritten whole when the command's writes left enough of it empty (src/store/compact.ts), at
 * the end of a crawl or an import into SQLite, once no reader of this process holds its pages (a crawl's live
 * index has made its last catch-up). A PostgreSQL store keeps to its own vacuum. On stderr: `--json` output stays
 * one document. `signal` stops the wait for readers, not the rewrite: what they hold stays in the WAL, and is said.
 */
export async function compactMetadata(dataDir: string, signal?: AbortSignal): Promise<void> {
  try {
    const file = path.join(dataDir, META_FILE);
    const c = await compactSqliteFile(file, {
      signal,
      onWaiting: () => process.stderr.write(`metadata store rewritten whole; waiting up to ${READER_WAIT_MS / 1000} s for a reader of ${file} (a serve, a query) to finish, to empty its WAL${signal ? ' (Ctrl-C stops waiting)' : ''}\n`),
    });
    if (!c) return;
    process.stderr.write(`metadata store rewritten whole in ${c.seconds.toFixed(1)} s: ${formatBytes(c.freedBytes)} of part-empty pages given back\n`);
    if (c.walBytes > 0) {
      process.stderr.write(`a reader still holds the old pages: the file keeps its size and ${formatBytes(c.walBytes)} of the rewrite stay in ${file}-wal, until the next crawl or import folds them in as it ends\n`);
    }
  } catch (e) {
    // What the command wrote is archived either way; the space stays for later rows.
    process.stderr.write(`metadata store not rewritten: ${(e as Error).message}\n`);
  }
}
