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

/** Error codes that mean the archive's storage failed (disk full, quota, read-only, I/O), not the page. */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EFBIG', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_READONLY', '53100']);

/**
 * Whether an error is the archive's storage failing. Such an error is no page's fault: a crawl that
 * met it must stop and leave its URLs queued, instead of marking every remaining URL failed.
 */
export function isStorageFailure(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (STORAGE_CODES.has(code) || STORAGE_CODES.has(code.split('_').slice(0, 2).join('_'))) return true;
    if (/\b(ENOSPC|EDQUOT|EROFS|SQLITE_FULL)\b|no space left on device|database or disk is full/i.test(String((e as Error).message ?? ''))) return true;
  }
  return false;
}
