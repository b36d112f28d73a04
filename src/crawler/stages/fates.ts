import type { FetchError } from '../../fetch/types.ts';
import type { ChangeState, CrawlLog, CrawlLogEntry, DocumentRow, DocumentState } from '../../store/types.ts';
import { POLICY_REASONS, REASON_NAMES, type Reason } from '../../vocabulary/reasons.ts';
import { reasonOfFetchError } from '../../fetch/reasons.ts';
import { outcomeOf, zeroOutcomes } from '../../vocabulary/outcomes.ts';
import type { Logger } from '../../util/log.ts';

/** What a capture shows, enough to name its reason. */
export interface CaptureFacts {
  status: number;
  change: ChangeState;
  error?: string;
  /** The document was fetched but its parser gave up (an error-level diagnostic). */
  parseFailed?: boolean;
}

/**
 * A capture's reason, from what it shows: the status, the change, the fetch error's code (`code: message`;
 * capture sets the reason itself from the fetch error, with its timeout phase, so this is the fallback).
 */
export function reasonOfCapture(c: CaptureFacts): Reason {
  if (c.status === 0) {
    const m = /^([a-z-]+): ([\s\S]*)$/.exec(c.error ?? '');
    return m ? (reasonOfFetchError({ code: m[1] as FetchError['code'], message: m[2] }) ?? 'protocol-error') : 'internal-error';
  }
  if (c.status >= 300 && c.status < 400 && c.status !== 304) return 'redirected';
  if (c.status === 429 || c.status === 503) return c.change === 'error' ? 'rate-limited' : 'fetched';
  if (c.status >= 500) return 'server-error';
  if (c.status >= 400) return 'http-error';
  if (c.parseFailed) return 'parse-error';
  return c.change === 'unchanged' ? 'unchanged' : 'fetched';
}

const parseFailedIn = (diagnostics: readonly string[] | undefined) => Boolean(diagnostics?.some((d) => d.startsWith('error:')));

/** Reasons that mean something went wrong (not a policy's choice, not a capture): logged as warnings. */
const FAILED = new Set<Reason>(REASON_NAMES.filter((r) => !POLICY_REASONS.has(r) && !['fetched', 'unchanged', 'redirected', 'variant', 'prerequisite'].includes(r)));

export function zeroCounts(): Record<Reason, number> {
  return Object.fromEntries(REASON_NAMES.map((r) => [r, 0])) as Record<Reason, number>;
}

/**
 * Every URL's fate as a crawl-log row with its reason, counted for the summary: the stages record
 * fates that are not captures here, and captures get theirs through `store`.
 */
export class Fates {
  readonly counts = zeroCounts();
  /** The same rows (and filtered URLs) in the one way of counting the summaries, `stats` and the dashboard share. */
  readonly outcomes = zeroOutcomes();
  /**
   * The store as capture (src/crawler/capture.ts, which speaks HTTP, not reasons) sees it: each log
   * row it writes gets the reason its status, change and error show, and is counted.
   */
  readonly store: CrawlLog;

  /**
   * `log` gets one line per URL, as Heritrix's crawl.log has: info for what was archived or skipped,
   * warn for what failed (the reason's line is what to grep).
   */
  constructor(private readonly inner: CrawlLog, private readonly cycleId: number | undefined, private readonly log?: Logger) {
    const logFetch = (e: CrawlLogEntry, patch: Partial<DocumentRow>) => {
      const reason = e.reason ?? reasonOfCapture({ ...e, parseFailed: parseFailedIn(e.diagnostics) });
      this.count(reason, 1, e.change);
      this.logLine(reason, e);
      return inner.logFetch({ ...e, reason }, patch);
    };
    this.store = new Proxy(inner, {
      get(target, prop) {
        if (prop === 'logFetch') return logFetch;
        const v = Reflect.get(target, prop, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }

  /** `n` URLs met `reason` (`change`: a capture's, else none: 'error'). */
  count(reason: Reason, n = 1, change: ChangeState = 'error'): void {
    this.counts[reason] += n;
    this.outcomes[outcomeOf(change, reason)] += n;
  }

  private logLine(reason: Reason, e: Pick<CrawlLogEntry, 'url' | 'status' | 'bytes' | 'durationMs' | 'triples' | 'change' | 'error'>): void {
    // Per URL: build nothing when the line would be dropped (the library's default logger is silent).
    const failed = FAILED.has(reason);
    if (!this.log?.isLevelEnabled(failed ? 'warn' : 'info')) return;
    const fields = { url: e.url, status: e.status, reason, bytes: e.bytes, ms: e.durationMs, triples: e.triples, change: e.change, ...(e.error ? { error: e.error } : {}) };
    if (failed) this.log.warn(fields, 'fetch');
    else this.log.info(fields, 'fetch');
  }

  /**
   * A fate that is no capture: skipped by a policy, given up, failed before any answer, or an answer
   * (`status`) that is tried again (a 5xx, a Retry-After), whose bytes are not archived.
   */
  async record(url: string, reason: Reason, error: string, state: DocumentState, status = 0): Promise<void> {
    this.count(reason);
    this.logLine(reason, { url, status, bytes: 0, durationMs: 0, triples: 0, change: 'error', error });
    await this.inner.logFetch({ url, time: Date.now(), status, durationMs: 0, bytes: 0, change: 'error', error, reason, triples: 0, cycleId: this.cycleId }, { state });
  }
}
