import type { DocumentState, MetadataStore } from '../../store/types.ts';
import type { Reason } from '../reasons.ts';

/**
 * The one place where a URL's fate that is not a capture (skipped, given up, failed before any
 * response) becomes a crawl-log row, so every stage records it the same way.
 */
export class Fates {
  constructor(private readonly store: MetadataStore, private readonly cycleId: number | undefined) {}

  async record(url: string, reason: Reason, error: string, state: DocumentState): Promise<void> {
    await this.store.logFetch({ url, time: Date.now(), status: 0, durationMs: 0, bytes: 0, change: 'error', error, triples: 0, cycleId: this.cycleId }, { state });
  }
}
