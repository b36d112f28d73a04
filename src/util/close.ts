/**
 * Runs `fn`, then `close`. A close that fails after `fn` failed does not replace fn's error: a query
 * stopped by a limit or Ctrl-C while it read rows (the watchdog ends the evaluation without unwinding it)
 * leaves SQLite's statement busy, and closing then threw "This database connection is busy", reported
 * as a bug instead of the limit's message (test/query/cli-limits.test.ts). Commands exit after the error.
 */
export async function closedAfter<T>(fn: () => Promise<T>, close: () => Promise<void>): Promise<T> {
  let result: T;
  try {
    result = await fn();
  } catch (e) {
    await close().catch(() => undefined);
    throw e;
  }
  await close();
  return result;
}
