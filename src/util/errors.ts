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
