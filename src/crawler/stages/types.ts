import type { FrontierEntry } from '../../frontier/types.ts';
import type { FetchOutcome } from '../../fetch/types.ts';
import type { DocumentRow } from '../../store/types.ts';
import type { CapturedDocument } from '../capture.ts';

/**
 * One URL on its way through the crawl's chain of stages (in the spirit of Heritrix's processor
 * chain): each stage reads what the stages before it left here and adds its own part.
 */
export interface Job {
  readonly entry: FrontierEntry;
  /** The store's row of the URL, read by the fetch stage. */
  prev?: DocumentRow;
  outcome?: FetchOutcome;
  doc?: CapturedDocument;
  /** The response was a redirect, archived as such: nothing to extract. */
  redirected?: boolean;
  /** What politeness is told when the job ends: whether the origin answered well, and how long to leave it alone. */
  ok: boolean;
  notBefore?: number;
  /** Why the origin must wait until `notBefore` (a Retry-After, a deferred robots.txt): for the progress line. */
  waitReason?: string;
  startedAt?: number;
  /** The entry went back to the frontier (a retry, a robots.txt deferral): its fate is still to come. */
  requeued?: boolean;
}

/** `done`: the URL's fate is settled (recorded, re-queued or skipped): later stages do not see it. */
export type Next = 'continue' | 'done';

export interface Stage {
  readonly name: string;
  /** Whether the stage has anything to do with this job; absent means always. */
  shouldProcess?(job: Job): boolean;
  process(job: Job): Promise<Next>;
  /** Runs for every job that reached this stage once the chain is over, also after a failure (releasing a host). */
  finish?(job: Job): Promise<void>;
}

export function newJob(entry: FrontierEntry): Job {
  return { entry, ok: true };
}

/**
 * Runs a job through the stages in order until one settles it. A stage's exception ends the chain and
 * goes to `onError` (which decides what it means for the URL) before every reached stage's `finish`.
 */
export async function runChain(stages: readonly Stage[], job: Job, onError: (job: Job, err: unknown) => Promise<void>): Promise<void> {
  const reached: Stage[] = [];
  try {
    for (const stage of stages) {
      if (stage.finish) reached.push(stage);
      if (stage.shouldProcess && !stage.shouldProcess(job)) continue;
      if ((await stage.process(job)) === 'done') return;
    }
  } catch (err) {
    await onError(job, err);
  } finally {
    for (const stage of reached.reverse()) await stage.finish!(job);
  }
}
