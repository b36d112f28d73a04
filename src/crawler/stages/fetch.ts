import { isTransientFetchError, reasonOfFetchError } from '../../fetch/reasons.ts';
import { ROBOTS_ACCEPT } from '../../fetch/accept.ts';
import { robotsNoService } from '../../fetch/robots.ts';
import type { FetchError, FetchOutcome, Fetcher } from '../../fetch/types.ts';
import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import type { DocumentStore } from '../../store/types.ts';
import type { Job, Next, Stage } from './types.ts';
import { reasonOfCapture, type Fates } from './fates.ts';
import { fingerprint53 } from '../../frontier/seen/fingerprint.ts';
import { formatDuration } from '../../util/units.ts';

export interface FetchStageDeps {
  fetcher: Fetcher;
  /** The fetcher of prerequisites (robots.txt), which follows redirects as RFC 9309 asks. */
  prerequisites: Fetcher;
  store: DocumentStore;
  /** Fetch again what the store says was fetched (re-crawl cycles). */
  refetch: boolean;
  retryLater(entry: FrontierEntry): boolean;
  /** Tries a URL gets at most (the first and its retries): said in the log rows of a network failure. */
  maxTries: number;
  /**
   * A transient network failure is not retried when the origin's back-off before the retry would be
   * longer than this: a host that keeps failing while its back-off doubles is given up, not waited on.
   */
  maxRetryBackoffMs: number;
  fates: Fates;
  frontier: Frontier;
  counts: { errors: number };
  signal?: AbortSignal;
}

/**
 * The time the host's next request is spaced from: when this request was written to its connection,
 * which on a loaded machine or a new connection can be long after it was asked for; a server would
 * otherwise see two requests closer than --delay. When nothing was sent, the time it was asked.
 */
function spacedFrom(asked: number | undefined, outcome: FetchOutcome): number | undefined {
  return outcome.sentAt !== undefined && asked !== undefined ? Math.max(asked, outcome.sentAt) : asked;
}

/**
 * One HTTP exchange, conditional on what the store knows. A Retry-After, a server error or a
 * transient network failure (reset, refused, timed out) puts the URL back for a later try while tries
 * are left (the host backs off meanwhile); the last try goes on down the chain and is archived or
 * recorded as failed.
 */
export class FetchStage implements Stage {
  readonly name = 'fetch';
  /**
   * URLs a re-fetching crawl has asked for in this run, as 53 bits of their fingerprint (a number, about
   * 20 bytes each in a Set, where the URL string would take about 70). A URL due in a cycle can also be
   * the target of another due URL's redirect: it was asked for twice in one cycle.
   */
  private readonly asked = new Set<number>();
  constructor(private readonly d: FetchStageDeps) {}

  /** Whether a re-fetch of `entry` in this run was asked for already (and notes it if not); retries are not repeats. */
  private askedBefore(entry: FrontierEntry): boolean {
    if (entry.retries || entry.variant) return false;
    const key = fingerprint53(entry.url);
    if (this.asked.has(key)) return true;
    this.asked.add(key);
    return false;
  }

  async process(job: Job): Promise<Next> {
    const { entry } = job;
    if (entry.prerequisite) return this.prerequisite(job);
    if (entry.variant?.negotiated) return this.negotiate(job);
    // A re-fetching crawl fetches each URL once too, however many ways it was queued (due, a redirect's target, a seed).
    if ((this.d.refetch || entry.refetch) && this.askedBefore(entry)) return 'done';
    job.prev = await this.d.store.getDocument(entry.url);
    // Fetched meanwhile (the target of a redirect, another worker): one-off crawls do not fetch it again.
    if (job.prev?.state === 'fetched' && !this.d.refetch && !entry.refetch) return 'done';
    job.startedAt = Date.now();
    const conditional = job.prev?.checksum ? { etag: job.prev.etag, lastModified: job.prev.lastModified } : undefined;
    const outcome = (job.outcome = await this.d.fetcher.fetch(entry.url, conditional, this.d.signal, entry.variant ? { accept: entry.variant.accept } : undefined));
    this.sent(job, outcome);
    if (outcome.error?.code === 'blocked-address') {
      // A policy (no --allow-private), not the server's failure: nothing was sent, so the origin
      // neither waits its delay nor backs off, and a crawl with --allow-private takes the URL up again.
      job.startedAt = undefined;
      await this.d.fates.record(entry.url, 'refused-address', outcome.error.message, 'skipped');
      return 'done';
    }
    if (outcome.retryAfter) {
      const until = outcome.retryAfter.getTime();
      if (!this.d.frontier.acceptsWait(until, Date.now())) {
        // Waiting that long would hold the crawl: give the URL up for now, queued for a resume or the next cycle.
        const asked = Number.isFinite(until) ? `until ${new Date(until).toISOString()}` : 'for an unreadable time';
        job.ok = false;
        this.d.counts.errors++;
        await this.d.fates.record(entry.url, 'wait-too-long', `wait-too-long: the server (${outcome.response?.status ?? 'no answer'}) asked to wait ${asked}`, 'queued');
        return 'done';
      }
      job.notBefore = until;
      job.waitReason = `Retry-After on ${outcome.response?.status ?? 'an answer'}`;
      if (this.d.retryLater(entry)) {
        job.requeued = true;
        await this.tryLogged(job, `tried again after its Retry-After, ${new Date(until).toISOString()}`);
        return 'done';
      }
    }
    if ((outcome.response?.status ?? 0) >= 500 && this.d.retryLater(entry)) {
      job.ok = false;
      job.requeued = true;
      await this.tryLogged(job, `tried again after the origin's ${formatDuration(this.d.frontier.backoffAfterFailure(entry.origin))} back-off`);
      return 'done';
    }
    if (!outcome.response && outcome.error && isTransientFetchError(outcome.error)) return this.networkFailure(job, outcome.error);
    return 'continue';
  }

  /**
   * A reset, a refusal or a timeout: the URL goes back to its origin's queue for another try after
   * the origin's back-off, with a crawl-log row saying what this try met (the URL stays `queued`).
   * The last try, or one whose back-off would be too long, goes on down the chain, which records the
   * failure with how many tries it took.
   */
  private async networkFailure(job: Job, error: FetchError): Promise<Next> {
    const { entry } = job;
    const attempt = (entry.retries ?? 0) + 1;
    // Politeness backs the origin off whatever happens to the URL (capture says so too for the last try).
    job.ok = false;
    const backoff = this.d.frontier.backoffAfterFailure(entry.origin);
    if (backoff <= this.d.maxRetryBackoffMs && this.d.retryLater(entry)) {
      job.requeued = true;
      await this.d.fates.record(entry.url, reasonOfFetchError(error), `${error.code}: ${error.message} (try ${attempt} of ${this.d.maxTries}: tried again after the origin's ${formatDuration(backoff)} back-off)`, 'queued');
      return 'done';
    }
    const why = attempt >= this.d.maxTries ? '' : `, not tried again: the origin's back-off would be ${formatDuration(backoff)}`;
    if (attempt > 1 || why) job.outcome = { ...job.outcome!, error: { ...error, message: `${error.message} (try ${attempt} of ${this.d.maxTries}${why})` } };
    return 'continue';
  }

  /**
   * A row for an answer that is tried again (a 5xx, a 429 or 503 with Retry-After), as a network failure's
   * try gets one: the log shows every request the crawl made, not only the one that ended it. The URL stays
   * `queued`; the answer's bytes are not archived (the try that ends it is).
   */
  private async tryLogged(job: Job, then: string): Promise<void> {
    const r = job.outcome?.response;
    if (!r) return;
    await this.d.fates.record(job.entry.url, reasonOfCapture({ status: r.status, change: 'error' }), `HTTP ${r.status} (try ${(job.entry.retries ?? 0) + 1} of ${this.d.maxTries}: ${then})`, 'queued', r.status);
  }

  /**
   * The hostname's next request is spaced from when this one went out, from now on: a JSON-LD context the
   * document's parse asks for on its host (prerequisites.ts FrontierClock) must not start before that.
   */
  private sent(job: Job, outcome: FetchOutcome): void {
    job.startedAt = spacedFrom(job.startedAt, outcome);
    if (job.startedAt !== undefined && outcome.error?.code !== 'blocked-address') this.d.frontier.noteRequest(job.entry.origin, job.startedAt);
  }

  /**
   * A prerequisite (an origin's robots.txt): asked for as its kind asks, never conditional, never retried
   * here (the robots.txt cache defers its origin and asks again itself); the next stage archives it.
   */
  private async prerequisite(job: Job): Promise<Next> {
    job.startedAt = Date.now();
    const outcome = (job.outcome = await this.d.prerequisites.fetch(job.entry.url, undefined, this.d.signal, { accept: ROBOTS_ACCEPT }));
    this.sent(job, outcome);
    if (outcome.error?.code === 'blocked-address') job.startedAt = undefined;
    // An origin that cannot serve at all (robotsNoService) counts the robots.txt failure as a page's:
    // otherwise each prerequisite's turn would clear the count of the failing pages between them, and an
    // origin whose name does not resolve would be asked for every queued URL, twice. Timeouts and server
    // errors stay the robots.txt cache's to defer and retry.
    job.ok = !robotsNoService(outcome);
    return 'continue';
  }

  /**
   * A document's own URL asked again for another media type (`crawl --variants`): not conditional, never
   * retried, and nothing recorded against the document's row (the variant stage records the answer). A
   * Retry-After still holds the origin, as for any request.
   */
  private async negotiate(job: Job): Promise<Next> {
    const { entry } = job;
    job.startedAt = Date.now();
    const outcome = (job.outcome = await this.d.fetcher.fetch(entry.url, undefined, this.d.signal, { accept: entry.variant!.accept }));
    this.sent(job, outcome);
    if (outcome.error?.code === 'blocked-address') job.startedAt = undefined;
    if (outcome.retryAfter && this.d.frontier.acceptsWait(outcome.retryAfter.getTime(), Date.now())) {
      job.notBefore = outcome.retryAfter.getTime();
      job.waitReason = `Retry-After on ${outcome.response?.status ?? 'an answer'}`;
    }
    return 'continue';
  }
}
