/**
 * How PostgresStore rides out a lost database (issue 30, item 4): a restart, a fail-over, a backend
 * terminated by an administrator, a dropped network, too many connections or a full server. A
 * statement that fails so is sent again on a new connection (the pool drops a client whose query
 * failed), after 100 ms, 200 ms, … up to 5 s apart, for as long as the outage has lasted less than
 * `totalMs` (60 s, or DATAMONITOR_DB_RETRY). Then it throws DatabaseUnavailableError, which crawls and
 * workers take as a storage failure: they stop, their unarchived URLs stay queued, the command exits
 * 75 (EX_TEMPFAIL) and running it again finishes the work.
 *
 * Only a database this store has reached is retried: one that does not answer the first statement is
 * a wrong URL or a server not started, said at once (PostgresStore's UserError), not a minute later.
 *
 * One clock per store, not per statement: the outage starts at the first failure and ends at the first
 * success, so a command that gave up does not wait the whole bound again for each statement of its
 * clean-up; those fail at their first try until the database answers.
 *
 * Replaying is safe for a statement the server rolled back, which is what a lost connection does to
 * one in progress. The one case it is not: the server committed and the connection was lost before its
 * answer arrived. A crawl-log row may then be written twice (the documents' writes are idempotent); the
 * two rows say the same about the same WARC record.
 */
import { DatabaseUnavailableError, isDatabaseLost } from '../util/errors.ts';
import { formatDuration, parseDuration } from '../util/units.ts';

export interface RetryLimits {
  /** Longest outage ridden out, ms. */
  totalMs: number;
  /** First wait, doubled after each failure up to maxDelayMs. */
  firstDelayMs: number;
  maxDelayMs: number;
}

export const RETRY_DEFAULTS: RetryLimits = { totalMs: 60_000, firstDelayMs: 100, maxDelayMs: 5_000 };

/** The limits, with the bound from DATAMONITOR_DB_RETRY (a duration: `60s`, `500ms`, `0` not to retry). */
export function retryLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): RetryLimits {
  const v = env.DATAMONITOR_DB_RETRY;
  return v === undefined || v === '' ? RETRY_DEFAULTS : { ...RETRY_DEFAULTS, totalMs: parseDuration(v, 'DATAMONITOR_DB_RETRY') };
}

export class StoreRetry {
  /** When the outage began: the first failure since the last success. */
  private since: number | undefined;
  /** A statement has succeeded: the database exists and this process may use it. */
  private reached = false;

  /**
   * `where`: the database as messages name it (its URL without password). `retryable`: which errors
   * mean a lost database (a store opened read-only refuses writes with the fail-over's SQLSTATE).
   */
  constructor(private readonly where: string, private readonly retryable: (e: unknown) => boolean = isDatabaseLost, private readonly limits: RetryLimits = retryLimitsFromEnv()) {}

  /** Runs `send` until it succeeds, fails for another reason than a lost database, or the outage outlasts the bound. */
  async run<T>(send: () => Promise<T>): Promise<T> {
    for (let delay = this.limits.firstDelayMs; ; delay = Math.min(2 * delay, this.limits.maxDelayMs)) {
      try {
        const out = await send();
        this.since = undefined;
        this.reached = true;
        return out;
      } catch (e) {
        if (!this.reached || !this.retryable(e)) throw e;
        const now = Date.now();
        this.since ??= now;
        const left = this.since + this.limits.totalMs - now;
        if (left <= 0) {
          throw new DatabaseUnavailableError(
            `PostgreSQL at ${this.where} was lost or refused writes for ${formatDuration(now - this.since)}, retried all the while (last error: ${(e as Error).message || (e as { code?: string }).code})`,
            { cause: e },
          );
        }
        await new Promise((r) => setTimeout(r, Math.min(delay, left)));
      }
    }
  }
}
