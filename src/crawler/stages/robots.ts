import type { RobotsCache } from '../../fetch/robots.ts';
import type { FrontierEntry } from '../../frontier/types.ts';
import type { Fates } from './fates.ts';
import type { Job, Next, Stage } from './types.ts';

export interface RobotsStageDeps {
  robots: RobotsCache;
  fates: Fates;
  /** Puts the entry back for a later try; false when its tries are used up. */
  retryLater(entry: FrontierEntry): boolean;
  /** robots.txt asked for a Crawl-delay on this host. */
  onCrawlDelay(host: string, delayMs: number): void;
  counts: { skipped: { robots: number }; errors: number };
}

/** robots.txt: a disallowed URL is skipped; an unavailable robots.txt defers the URL, a bounded number of times. */
export class RobotsStage implements Stage {
  readonly name = 'robots';
  constructor(private readonly d: RobotsStageDeps) {}

  async process(job: Job): Promise<Next> {
    const { entry } = job;
    const verdict = await this.d.robots.check(entry.url);
    if ('deferUntil' in verdict) {
      job.notBefore = verdict.deferUntil.getTime();
      if (!this.d.retryLater(entry)) {
        await this.d.fates.record(entry.url, 'robots-unavailable', `robots.txt unavailable: ${verdict.reason}`, 'failed');
        this.d.counts.errors++;
      }
      return 'done';
    }
    if (verdict.crawlDelayMs) this.d.onCrawlDelay(entry.host, verdict.crawlDelayMs);
    if (!verdict.allowed) {
      this.d.counts.skipped.robots++;
      await this.d.fates.record(entry.url, 'robots-disallowed', 'robots.txt: disallowed', 'skipped');
      return 'done';
    }
    return 'continue';
  }
}
