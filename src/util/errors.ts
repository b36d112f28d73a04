import os from 'node:os';
import { EXIT } from './exit-codes.ts';
import { META_FILE } from './data-dir.ts';

/**
 * An error caused by the user's input (bad argument, missing file): shown without a stack trace.
 * `exitCode` is its sysexits status (src/cli/exit-codes.ts): 64 (usage) unless said otherwise.
 */
export class UserError extends Error {
  constructor(message: string, readonly exitCode: number = 64) {
    super(message);
    this.name = 'UserError';
  }
}

/**
 * A bad value of a library option, said in the library's terms (`depth must be …`): a program calling
 * `crawl({ depth: -1 })` has no `--depth`. The CLI, which does, shows it as its flag (`flagOf`).
 */
export class OptionError extends UserError {
  constructor(readonly option: string, readonly problem: string) {
    super(`${option} ${problem}`);
    this.name = 'OptionError';
  }

  /** The message as the CLI says it: `--depth must be …`. */
  get flagMessage(): string {
    return `${flagOf(this.option)} ${this.problem}`;
  }
}

/** The CLI flag of a library option: `maxDocs` → `--max-docs`, `delayMs` → `--delay` (flags take units). */
export function flagOf(option: string): string {
  return `--${option.replace(/Ms$/, '').replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Error codes that mean the archive's storage failed (disk full, quota, I/O), not the page. */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EFBIG', 'SQLITE_FULL', 'SQLITE_IOERR', '53100']);
/**
 * Error codes that mean this user may not write (or open) a file of the archive: its modes, its owner, a
 * read-only mount. SQLite says SQLITE_READONLY when it opened the file but may not write it, and
 * SQLITE_CANTOPEN when it may not create it or its journal beside it; PostgreSQL's 42501 is a user without the privilege.
 */
const PERMISSION_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'SQLITE_READONLY', 'SQLITE_CANTOPEN', 'SQLITE_PERM', '42501']);

/**
 * SQLSTATEs that mean the database went away or cannot take writes for now (a restart, a crash, a
 * fail-over that left this connection on a standby, too many connections, a full server), not that a
 * statement was wrong: the same statement may succeed on a new connection. Classes 08 (connection
 * exception) and 53 (insufficient resources) are matched by their prefix.
 */
const DATABASE_LOST_STATES = new Set(['57P01', '57P02', '57P03', '25006']);
const isLostState = (code: string) => DATABASE_LOST_STATES.has(code) || /^(08|53)[0-9A-Z]{3}$/.test(code);
/**
 * Socket errors, and what node-postgres throws without a code when the socket of a query closed
 * under it. An HTTP fetch meets the same codes: they mean a lost database only on the store's
 * connection, so isStorageFailure sees them only inside a DatabaseUnavailableError.
 */
const SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
const SOCKET_MESSAGE = /^Connection terminated\b|^Client has encountered a connection error|^terminating connection\b/;

type Chained = { code?: unknown; cause?: unknown; message?: unknown } | undefined;

/** The error and its causes, the first four. */
function* causes(err: unknown): Generator<NonNullable<Chained>> {
  for (let e = err as Chained, depth = 0; e && depth < 4; e = e.cause as Chained, depth++) yield e;
}

/**
 * Whether an error of a statement sent to PostgreSQL says the database was lost or cannot take writes
 * for a while: what the store retries on a new connection (src/store/pg-retry.ts).
 */
export function isDatabaseLost(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (isLostState(code) || SOCKET_CODES.has(code)) return true;
    if (!code && SOCKET_MESSAGE.test(String(e.message ?? ''))) return true;
  }
  return false;
}

/** A full disk or an I/O error: EX_IOERR (74). */
function isDiskFailure(err: unknown): boolean {
  for (const e of causes(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (STORAGE_CODES.has(code) || STORAGE_CODES.has(code.split('_').slice(0, 2).join('_'))) return true;
    if (/\b(ENOSPC|EDQUOT|SQLITE_FULL)\b|no space left on device|database or disk is full/i.test(String(e.message ?? ''))) return true;
  }
  return false;
}

/**
 * Whether a write (or an open for writing) was refused because this user may not write the file: EX_NOPERM
 * (77). Freeing space would not help, so it is told apart from a full disk. A full disk wins when both are
 * in the chain.
 */
export function isPermissionDenied(err: unknown): boolean {
  if (isDiskFailure(err)) return false;
  for (const e of causes(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (PERMISSION_CODES.has(code) || PERMISSION_CODES.has(code.split('_').slice(0, 2).join('_'))) return true;
  }
  return false;
}

/**
 * A permission error in words: which file (Node's fs errors name it; SQLite's do not, so the metadata
 * store of `dataDir` is named), that this user cannot write it, and what to do.
 */
export function permissionMessage(err: unknown, dataDir: string | undefined, outcome = 'Nothing was changed'): string {
  let file: string | undefined;
  for (const e of causes(err)) if (typeof (e as { path?: unknown }).path === 'string') file ??= (e as { path: string }).path;
  const sqlite = [...causes(err)].some((e) => /^(SQLITE_|42501$)/.test(String(e.code ?? '')));
  const what = file ? `'${file}'` : sqlite && dataDir ? `the metadata store in '${dataDir}' (${META_FILE}, or the directory it needs to write its journal in)` : `a file of the archive${dataDir ? ` in '${dataDir}'` : ''}`;
  return `permission denied: you (${userName()}) cannot write ${what} (${(err as Error).message}). ${outcome}; run the command as the archive's owner, give this user write access (chown or chmod), or work on a copy of the archive`;
}

/**
 * Whether an error is the archive's storage failing: its disk, or its database lost. Such an error is
 * no page's fault: a crawl that met it must stop and leave its URLs queued, instead of marking every
 * remaining URL failed.
 */
export function isStorageFailure(err: unknown): boolean {
  if (isDiskFailure(err) || isPermissionDenied(err)) return true;
  for (const e of causes(err)) if (e instanceof DatabaseUnavailableError || isLostState(typeof e.code === 'string' ? e.code : '')) return true;
  return false;
}

/**
 * The exit status of a command a storage failure ended: 74 for a disk (fix it first), 77 for a file this
 * user may not write, 75 for a database lost (try again later).
 */
export function storageExitCode(err: unknown): typeof EXIT.ioError | typeof EXIT.noPermission | typeof EXIT.tempFail {
  if (isDiskFailure(err)) return EXIT.ioError;
  return isPermissionDenied(err) ? EXIT.noPermission : EXIT.tempFail;
}

/**
 * The database stayed lost (or unable to take writes) for longer than the store retries: thrown
 * instead of the last error (its `cause`). Nothing of the failed write was kept.
 */
export class DatabaseUnavailableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailableError';
  }
}

/** This process's user name, or its uid when the system has no name for it. */
function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}
