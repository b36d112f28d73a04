import type { SeenSet } from '../../frontier/seen/index.ts';
import type { MetadataStore } from '../../store/types.ts';
import { hostOf, normalizeUrl } from '../../frontier/normalize.ts';
import type { Job, Next, Stage } from './types.ts';

/** The fetcher followed the redirects: their target is archived now, known, and not to be fetched again by this crawl. */
export class RedirectStage implements Stage {
  readonly name = 'redirect';
  constructor(private readonly store: MetadataStore, private readonly seen: SeenSet) {}

  shouldProcess(job: Job): boolean {
    return Boolean(job.doc?.finalUrl && job.doc.status > 0);
  }

  async process(job: Job): Promise<Next> {
    const doc = job.doc!;
    const fin = normalizeUrl(doc.finalUrl!);
    if (fin && fin !== job.entry.url) {
      this.seen.addIfNewSync(fin);
      await this.store.addDocuments([{ url: fin, host: hostOf(fin), depth: job.entry.depth }]);
      await this.store.updateDocument(fin, { state: 'fetched', lastFetched: doc.time });
    }
    return 'continue';
  }
}
