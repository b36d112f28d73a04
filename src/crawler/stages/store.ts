import type { DocumentStore } from '../../store/types.ts';
import type { CapturedDocument } from '../capture.ts';
import type { ScopeStage } from './scope.ts';
import type { Job, Next, Stage } from './types.ts';

/** The chain's end: the URLs this job discovered go to the store (where a resume finds them), and the document to the crawl's consumer. */
export class StoreStage implements Stage {
  readonly name = 'store';
  constructor(private readonly store: DocumentStore, private readonly scope: Pick<ScopeStage, 'flush'>, private readonly emit: (doc: CapturedDocument) => void) {}

  async process(job: Job): Promise<Next> {
    await this.scope.flush(this.store);
    if (job.doc) this.emit(job.doc);
    return 'done';
  }
}
