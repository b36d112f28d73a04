import fs from 'node:fs';
import path from 'node:path';

/** Every WARC file under the data directory (workers' included), relative to it; `.open` ones apart. */
export function listWarcFiles(dataDir: string): { closed: string[]; open: string[] } {
  const closed: string[] = [];
  const open: string[] = [];
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(dataDir, rel), { withFileTypes: true })) {
      const child = path.join(rel, d.name);
      if (d.isDirectory()) {
        if (!d.name.startsWith('.')) walk(child);
      } else if (d.name.endsWith('.warc.gz')) closed.push(child);
      else if (d.name.endsWith('.warc.gz.open')) open.push(child);
    }
  };
  walk('');
  return { closed: closed.sort(), open: open.sort() };
}

/** Why a WARC record named by the crawl log cannot be read: each kind says what the user can do about it. */
export type ArchiveReadFault = 'outside-data-dir' | 'missing-file' | 'corrupt-record';

/**
 * A WARC record the crawl log names could not be read. `message` is fit to show a client: it names the file
 * only relative to the data directory (never an absolute path of this machine) and says what to run.
 */
export class ArchiveReadError extends Error {
  constructor(readonly fault: ArchiveReadFault, message: string, readonly file: string) {
    super(message);
    this.name = 'ArchiveReadError';
  }
}

function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The file a WARC path from the store stands for (a file still being written keeps its `.open` name), checked
 * to be inside the data directory: the path as written and the file it resolves to, symbolic links followed
 * (a link at the top of the directory, such as a worker archive linked into a reader root, counts as part of it).
 * Every reader of WARC records by store rows opens files through this, so a crafted row
 * (`warc_file = '../../../../etc/passwd'`, or a link out of the directory) opens nothing outside it.
 */
export function warcPath(dataDir: string, rel: string): string {
  const root = path.resolve(dataDir);
  const outside = () =>
    new ArchiveReadError('outside-data-dir', 'the crawl log names a WARC file outside the data directory; it was not opened (a damaged or tampered metadata store: run `datamonitor verify`)', rel);
  if (typeof rel !== 'string' || rel === '' || rel.includes('\0') || path.isAbsolute(rel)) throw outside();
  const abs = path.resolve(root, rel);
  if (!inside(root, abs)) throw outside();
  let real: string;
  try {
    real = fs.realpathSync(fs.existsSync(abs) ? abs : abs + '.open');
  } catch {
    // Its writer may have finished the `.open` file (renamed it) between the two calls: a live index reads
    // beside the crawl, which finishes every file at its end.
    try {
      real = fs.realpathSync(abs);
    } catch {
      throw new ArchiveReadError('missing-file', `the WARC file ${rel} named by the crawl log is not in the data directory: restore it, or run \`datamonitor verify\` to list what is missing`, rel);
    }
  }
  if (inside(realRoot(root), real)) return real;
  // A link at the top of the data directory is the operator's (docs/workers.md: a reader ROOT of links to
  // each worker's --data): what resolves inside its target is inside the archive; a link deeper down is not.
  const top = path.join(root, path.relative(root, abs).split(path.sep)[0]!);
  if (top !== abs && fs.lstatSync(top).isSymbolicLink() && inside(fs.realpathSync(top), real)) return real;
  throw outside();
}

// The data directory's own real path, once per directory (it is the same for every record read from it).
const realRoots = new Map<string, string>();
function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    real = fs.realpathSync(root);
    if (realRoots.size > 64) realRoots.clear();
    realRoots.set(root, real);
  }
  return real;
}

/**
 * A descriptor of the WARC file a store path stands for (warcPath), for reading. A `.open` file renamed by
 * its writer between warcPath and the open is looked up again, once: the descriptor then reads the same
 * bytes under the final name.
 */
export function openWarc(dataDir: string, rel: string): number {
  try {
    return fs.openSync(warcPath(dataDir, rel), 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return fs.openSync(warcPath(dataDir, rel), 'r');
  }
}
