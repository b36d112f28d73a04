import type { RobotsCache } from '../../fetch/robots.ts';
import type { FetchOutcome } from '../../fetch/types.ts';
import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import { archiveSideFetch, robotsProblem, ROBOTS_DIAGNOSTIC, type SideArchive } from '../prerequisites.ts';
import type { Job, Next, Stage } from './types.ts';
import type { CrawlSitemaps, RobotsSitemaps } from '../sitemaps.ts';
import type { ScopeStage } from './scope.ts';
import type { DocumentStore } from '../../store/types.ts';

export interface PrerequisiteStageDeps {
  robots: RobotsCache;
  archive: SideArchive;
  frontier: Frontier;
  /** robots.txt asked for a Crawl-delay on the entry's origin. */
  onCrawlDelay(entry: FrontierEntry, delayMs: number): void;
  /** `crawl --sitemaps`: the seed origins whose robots.txt names the sitemaps to read, and where they are queued. */
  sitemaps?: {
    fromRobots: RobotsSitemaps;
    asked: Pick<CrawlSitemaps, 'ask'>;
    scope: Pick<ScopeStage, 'offer' | 'flush'>;
    store: DocumentStore;
    refetch: boolean;
  };
}

/** What a prerequisite's chain ended with when it ended without an answer (an internal error): tried again later. */
const NO_ANSWER: FetchOutcome = { error: { code: 'protocol', message: 'the robots.txt request ended without an answer' } };

/**
 * A prerequisite the fetch stage fetched (an origin's robots.txt, `FrontierEntry.prerequisite`) is
 * archived as a WARC response record with a crawl-log row of reason `prerequisite`, and its policy goes to
 * the robots.txt cache, which the URLs waiting behind it read: a Crawl-delay spaces them from now on, an
 * unavailable robots.txt defers its origin. Nothing goes further down the chain: it is not a document.
 */
export class PrerequisiteStage implements Stage {
  readonly name = 'prerequisite';
  constructor(private readonly d: PrerequisiteStageDeps) {}

  shouldProcess(job: Job): boolean {
    return Boolean(job.entry.prerequisite);
  }

  async process(job: Job): Promise<Next> {
    const { entry } = job;
    const outcome = job.outcome ?? NO_ANSWER;
    const r = outcome.response;
    if (r) await archiveSideFetch(this.d.archive, entry.url, r, robotsProblem(r.status), ROBOTS_DIAGNOSTIC, 'robots');
    this.d.robots.settle(entry.url, outcome);
    const record = this.d.robots.get(entry.url);
    if (record?.crawlDelayMs) this.d.onCrawlDelay(entry, record.crawlDelayMs);
    if (record?.deferUntil && this.d.frontier.acceptsWait(record.deferUntil.getTime(), Date.now())) {
      job.notBefore = record.deferUntil.getTime();
      job.waitReason = record.reason;
    }
    await this.queueSitemaps(entry);
    return 'done';
  }

  /** A seed origin's sitemaps (`crawl --sitemaps`), named by the robots.txt just read, go to the frontier as URLs of the crawl. */
  private async queueSitemaps(entry: FrontierEntry): Promise<void> {
    const sm = this.d.sitemaps;
    if (!sm) return;
    const found = sm.fromRobots.take(entry.origin, this.d.robots.sitemaps(entry.url));
    for (const { href, hostWide } of found) {
      sm.asked.ask(href, hostWide);
      sm.scope.offer(href, 0, false, sm.refetch);
    }
    if (found.length) await sm.scope.flush(sm.store);
  }

}

/**
 * The prerequisite to hand out instead of `entry` (Heritrix's PreconditionEnforcer): its origin's robots.txt
 * when that is not known, has expired, and is not being fetched. `entry` goes back to the frontier, to
 * follow it; the turn the frontier gave `entry` is the robots.txt's.
 */
export function prerequisiteOf(entry: FrontierEntry, robots: RobotsCache | undefined, frontier: Frontier): FrontierEntry | undefined {
  const url = robots?.prerequisite(entry.url);
  if (!url) return undefined;
  frontier.push(entry);
  return { url, host: entry.host, origin: entry.origin, depth: entry.depth, key: entry.key, prerequisite: 'robots' };
}

/**
 * Once a prerequisite's chain is over, however it ended (an internal error in any stage), the URLs waiting
 * on the robots.txt are answered: by what the prerequisite stage read, else as an answer that never came.
 */
export function settlePrerequisite(entry: FrontierEntry, robots: RobotsCache | undefined): void {
  if (entry.prerequisite) robots?.settle(entry.url, NO_ANSWER);
}
