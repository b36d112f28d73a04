import { execFileSync } from 'node:child_process';
import { UserError } from './errors.ts';

/** Runs dpkg-deb; an error says what to install, or which file is not a package. */
export function dpkgDeb(args: string[], deb: string): string {
  try {
    return execFileSync('dpkg-deb', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === 'ENOENT') throw new UserError('dpkg-deb is not installed: it unpacks the .deb files (apt-get install dpkg)');
    throw new UserError(`${deb} is not a .deb package (dpkg-deb ${args[0]}: ${String(err.stderr ?? err.message).trim().split('\n')[0]})`);
  }
}

/** Unpacks a .deb into `dir` (dpkg-deb -x), with an error that says what to install or which file is not a package. */
export function unpackDeb(deb: string, dir: string): void {
  dpkgDeb(['-x', deb, dir], deb);
}

