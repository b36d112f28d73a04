import type { FetchError } from '../../fetch/types.ts';
import type { ChangeState, CrawlLogEntry, DocumentState, MetadataStore } from '../../store/types.ts';
import { REASON_NAMES, isReason, type Reason } from '../reasons.ts';

/**
 * A fetch error's reason: the one mapping from the fetcher's error codes to the reason vocabulary
 * (src/fetch/reasons.ts's `reasonOfFetchError`, which knows finer timeout phases, can replace it).
 */
export function reasonOfFetchError(err: FetchError): Reason {
  const m = err.message.toLowerCase();
  switch (err.code) {
    case 'dns': return 'dns';
    case 'blocked-address': return 'refused-address';
    case 'redirect-loop': return 'redirect-loop';
    case 'too-many-redirects': return 'too-many-redirects';
    case 'bad-url': return 'bad-url';
    case 'robots': return 'robots-disallowed';
    case 'robots-unavailable': return 'robots-unavailable';
    case 'decode': return 'decode-error';
    case 'protocol': return 'protocol-error';
    case 'aborted': return 'aborted';
    case 'connect':
      if (m.includes('refused')) return 'connect-refused';
      if (m.includes('tls') || m.includes('ssl') || m.includes('certificate')) return 'tls-error';
      return 'connection-reset';
    case 'timeout':
      if (m.includes('connect')) return 'timeout-connect';
      if (m.includes('tls')) return 'timeout-tls';
      if (m.includes('headers')) return 'timeout-headers';
      if (m.includes('stalled') || m.includes('idle')) return 'timeout-body';
      return 'timeout-total';
    default: {
      const code = (err as { code: string }).code;
      return isReason(code) ? code : 'protocol-error';
    }
  }
}

/** What a capture shows, enough to name its reason. */
export interface CaptureFacts {
  status: number;
  change: ChangeState;
  error?: string;
  /** The document was fetched but its parser gave up (an error-level diagnostic). */
  parseFailed?: boolean;
}

/** A capture's reason, from what it shows: the status, the change, the fetch error's code (`code: message`). */
export function reasonOfCapture(c: CaptureFacts): Reason {
  if (c.status === 0) {
    const m = /^([a-z-]+): ([\s\S]*)$/.exec(c.error ?? '');
    return m ? reasonOfFetchError({ code: m[1] as FetchError['code'], message: m[2] }) : 'internal-error';
  }
  if (c.status >= 300 && c.status < 400 && c.status !== 304) return 'redirected';
  if (c.status === 429 || c.status === 503) return c.change === 'error' ? 'rate-limited' : 'fetched';
  if (c.status >= 500) return 'server-error';
  if (c.status >= 400) return 'http-error';
  if (c.parseFailed) return 'parse-error';
  return c.change === 'unchanged' ? 'unchanged' : 'fetched';
}

const parseFailedIn = (diagnostics: readonly string[] | undefined) => Boolean(diagnostics?.some((d) => d.startsWith('error:')));

export function zeroCounts(): Record<Reason, number> {
  return Object.fromEntries(REASON_NAMES.map((r) => [r, 0])) as Record<Reason, number>;
}

/**
 * Every URL's fate as a crawl-log row with its reason, counted for the summary: the stages record
 * fates that are not captures here, and captures get theirs through `store`.
 */
export class Fates {
  readonly counts = zeroCounts();
  /**
   * The store as capture (src/crawler/capture.ts, which speaks HTTP, not reasons) sees it: each log
   * row it writes gets the reason its status, change and error show, and is counted.
   */
  readonly store: MetadataStore;

  constructor(private readonly inner: MetadataStore, private readonly cycleId: number | undefined) {
    const logFetch = (e: CrawlLogEntry, patch: Partial<import('../../store/types.ts').DocumentRow>) => {
      const reason = e.reason ?? reasonOfCapture({ ...e, parseFailed: parseFailedIn(e.diagnostics) });
      this.count(reason);
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

  count(reason: Reason, n = 1): void {
    this.counts[reason] += n;
  }

  /** A fate without an HTTP response: skipped by a policy, given up, failed before any answer. */
  async record(url: string, reason: Reason, error: string, state: DocumentState): Promise<void> {
    this.count(reason);
    await this.inner.logFetch({ url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error, reason, triples: 0, cycleId: this.cycleId }, { state });
  }
}
