import type { Frontier } from '../../frontier/types.ts';
import type { Fates } from './fates.ts';
import type { Job, Next, Stage } from './types.ts';

export interface PolitenessDeps {
  frontier: Frontier;
  fates: Fates;
  /** Consecutive failures after which an origin's queued URLs are dropped. */
  maxFailures: number;
  counts: { skipped: { hostFailing: number } };
}

/**
 * The frontier spaced the job's host before handing it out; when the job ends, its host is released
 * with the outcome (delay, back-off, Retry-After), and a host that keeps failing has its queue dropped.
 */
export class PolitenessStage implements Stage {
  readonly name = 'politeness';
  constructor(private readonly d: PolitenessDeps) {}

  async process(): Promise<Next> {
    return 'continue';
  }

  async finish(job: Job): Promise<void> {
    const { host } = job.entry;
    this.d.frontier.release(host, Date.now(), { ok: job.ok, notBefore: job.notBefore, startedAt: job.startedAt });
    if (job.ok || this.d.frontier.failures(host) < this.d.maxFailures) return;
    for (const dropped of this.d.frontier.drain(host)) {
      this.d.counts.skipped.hostFailing++;
      await this.d.fates.record(dropped.url, 'failing-origin', `host ${host} failed ${this.d.maxFailures} times in a row: skipped`, 'skipped').catch(() => undefined);
    }
  }
}
