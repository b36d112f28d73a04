import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { unpackDeb } from '../util/deb.ts';

/** PostgreSQL 15's documentation as a Debian package in the shared data (../shared/data/sites, next to this repository). */
export const POSTGRESQL_DOCS_DEB = path.resolve(import.meta.dirname, '../../../shared/data/sites/postgresql-doc-15_15.20-0+deb12u1_all.deb');

/** Why the PostgreSQL documentation cannot be unpacked here, or undefined when it can. */
export function postgresqlDocsMissing(): string | undefined {
  if (!fs.existsSync(POSTGRESQL_DOCS_DEB)) return `${POSTGRESQL_DOCS_DEB} is not here`;
  try {
    execFileSync('dpkg-deb', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'dpkg-deb is not installed';
  }
  return undefined;
}

/**
 * Unpacks the documentation (1,169 HTML pages, a real website) into a temporary directory: `root` is
 * the site's root (index.html), `remove` deletes it all. Check `postgresqlDocsMissing()` first.
 */
export function unpackPostgresqlDocs(): { root: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-pgdoc-'));
  unpackDeb(POSTGRESQL_DOCS_DEB, dir);
  return { root: path.join(dir, 'usr/share/doc/postgresql-doc-15/html'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
