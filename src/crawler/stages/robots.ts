import type { RobotsCache, RobotsVerdict } from '../../fetch/robots.ts';
import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import type { Fates } from './fates.ts';
import type { Job, Next, Stage } from './types.ts';

export interface RobotsStageDeps {
  robots: RobotsCache;
  fates: Fates;
  frontier: Frontier;
  /** robots.txt asked for a Crawl-delay on the entry's origin. */
  onCrawlDelay(entry: FrontierEntry, delayMs: number): void;
  counts: { skipped: { robots: number }; errors: number };
}

type Counts = RobotsStageDeps['counts'];

/** A URL given up without a fetch by its origin's robots.txt: disallowed, or unavailable after its tries. */
export async function robotsFate(fates: Fates, counts: Counts, entry: FrontierEntry, verdict: RobotsVerdict): Promise<void> {
  // A document's own URL asked for another representation (--variants): the document's row is not this request's to change.
  if (entry.variant?.negotiated) return;
  if ('unavailable' in verdict) {
    counts.errors++;
    await fates.record(entry.url, 'robots-unavailable', `robots-unavailable: ${verdict.reason}`, 'failed');
  } else {
    counts.skipped.robots++;
    await fates.record(entry.url, 'robots-disallowed', 'robots.txt: disallowed', 'skipped');
  }
}

/**
 * robots.txt (RFC 9309), per origin. The cache bounds its own tries at an unavailable robots.txt
 * (then every URL of the origin fails with `robots-unavailable`), so a deferred URL goes back to the
 * frontier without using one of its own retries; a deferral longer than the frontier takes gives the
 * URL up at once. The origin's robots.txt was fetched before the URL was handed out (its prerequisite
 * entry, prerequisite.ts), or is being fetched (the check waits for it); one this check had to fetch
 * itself was a request to the origin: the page waits its turn after it.
 */
export class RobotsStage implements Stage {
  readonly name = 'robots';
  constructor(private readonly d: RobotsStageDeps) {}

  shouldProcess(job: Job): boolean {
    return !job.entry.prerequisite;
  }

  async process(job: Job): Promise<Next> {
    const { entry } = job;
    const known = this.d.robots.peek(entry.url) !== undefined;
    const asked = Date.now();
    const verdict = await this.d.robots.check(entry.url);
    if ('deferUntil' in verdict) {
      if (!this.d.frontier.acceptsWait(verdict.deferUntil.getTime(), Date.now())) {
        await robotsFate(this.d.fates, this.d.counts, entry, { unavailable: true, reason: verdict.reason });
        return 'done';
      }
      job.notBefore = verdict.deferUntil.getTime();
      job.waitReason = verdict.reason;
      this.d.frontier.push(entry);
      job.requeued = true;
      return 'done';
    }
    if ('allowed' in verdict && verdict.crawlDelayMs) this.d.onCrawlDelay(entry, verdict.crawlDelayMs);
    if ('unavailable' in verdict || !verdict.allowed) {
      await robotsFate(this.d.fates, this.d.counts, entry, verdict);
      return 'done';
    }
    if (!known && this.d.robots.peek(entry.url) !== undefined) {
      // (An answer that is not cached, e.g. a refused address, lets the page fetch report its reason.)
      job.startedAt = asked;
      this.d.frontier.push(entry);
      job.requeued = true;
      return 'done';
    }
    return 'continue';
  }
}
