import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import type { Fates } from './fates.ts';
import type { Job, Next, Stage } from './types.ts';

export interface PolitenessDeps {
  frontier: Frontier;
  fates: Fates;
  /** Consecutive failures after which an origin's queued URLs are dropped. */
  maxFailures: number;
  counts: { skipped: { hostFailing: number } };
  /** An entry dropped with its failing origin (the variants of a document move on without it). */
  onDropped?: (entry: FrontierEntry) => void;
}

/**
 * The frontier spaced the job's origin before handing it out; when the job ends, its origin is released
 * with the outcome (delay, back-off, Retry-After), and an origin that keeps failing has its queue dropped.
 */
export class PolitenessStage implements Stage {
  readonly name = 'politeness';
  constructor(private readonly d: PolitenessDeps) {}

  async process(): Promise<Next> {
    return 'continue';
  }

  async finish(job: Job): Promise<void> {
    const { origin } = job.entry;
    // The stages checked every wait they set against the frontier's bound (acceptsWait), so the release takes it.
    this.d.frontier.release(origin, Date.now(), { ok: job.ok, notBefore: job.notBefore, reason: job.waitReason, startedAt: job.startedAt });
    if (job.ok || this.d.frontier.failures(origin) < this.d.maxFailures) return;
    for (const dropped of this.d.frontier.drain(origin)) {
      this.d.onDropped?.(dropped);
      // A document's own URL asked for another representation: the document's row is not this request's to change.
      if (dropped.variant?.negotiated) continue;
      this.d.counts.skipped.hostFailing++;
      await this.d.fates.record(dropped.url, 'failing-origin', `failing-origin: ${origin} failed ${this.d.maxFailures} times in a row: skipped`, 'skipped').catch(() => undefined);
    }
  }
}
