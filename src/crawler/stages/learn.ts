import type { QueryDriver, Offer } from '../follow/index.ts';
import type { Job, Next, Stage } from './types.ts';

/**
 * What a query-driven crawl learns (src/crawler/follow/): each captured document's triples go into the
 * crawl's one store, under the document's URL. Under --answer the document's matching triples are
 * offered as links here; --follow's and --until's queries run in batches (follow/schedule.ts).
 */
export class LearnStage implements Stage {
  readonly name = 'learn';
  constructor(private readonly driver: QueryDriver, private readonly scope: Offer) {}

  shouldProcess(job: Job): boolean {
    const doc = job.doc;
    // An unchanged document not parsed again has no triples here: what was learnt of it stays.
    return doc !== undefined && !job.entry.requisite && doc.status > 0 && doc.status < 400 && !(doc.change === 'unchanged' && doc.quads.length === 0 && !this.driver.readsArchive);
  }

  async process(job: Job): Promise<Next> {
    const doc = job.doc!;
    // A stale document fetched again by --answer that had not changed: its archived version is what it says.
    if (doc.change === 'unchanged' && doc.quads.length === 0) await this.driver.learnUnchanged(doc.finalUrl ?? doc.url, job.entry.depth, this.scope);
    else this.driver.learn(doc.finalUrl ?? doc.url, doc.quads, job.entry.depth, this.scope);
    // A batch that is full runs here, as its last document comes; the crawl's loop runs what is left when the frontier empties.
    if (this.driver.due(false)) this.driver.evaluate(this.scope);
    return 'continue';
  }
}
