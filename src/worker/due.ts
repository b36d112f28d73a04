/**
 * Monitored documents of the leased hosts that are due again: fetched like the re-crawl cycle's
 * downloader does (exactly these URLs, again), and each URL's strategy sets its next fetch.
 * The per-document update follows runCycle (src/schedule/cycle.ts) for one URL at a time.
 */
import { crawl, type CrawlOptions } from '../crawler/crawl.ts';
import type { CrawlSummary } from '../crawler/crawl.ts';
import type { DocumentRow, MetadataStore } from '../store/types.ts';
import { getStrategy } from '../schedule/strategies/index.ts';
import { DEFAULT_BOUNDS } from '../schedule/bounds.ts';
import { DEFAULT_STRATEGY } from '../schedule/cycle.ts';

export async function fetchDue(due: DocumentRow[], store: MetadataStore, options: CrawlOptions): Promise<CrawlSummary> {
  const byUrl = new Map(due.map((d) => [d.url, d]));
  const bounds = DEFAULT_BOUNDS;
  const downloader = crawl({ ...options, seeds: due.map((d) => d.url), refetch: true, noFollow: true });
  for await (const doc of downloader) {
    const row = byUrl.get(doc.url);
    if (!row) continue;
    const t = Date.now();
    if (doc.change === 'error') {
      await store.updateDocument(doc.url, { nextFetch: t + bounds.minIntervalMs });
      continue;
    }
    const strategy = getStrategy(row.strategy ?? DEFAULT_STRATEGY);
    const first = row.strategyState === undefined || row.strategyState === null;
    const state = first ? strategy.initial({ bounds }) : row.strategyState;
    const next = strategy.next(state, { time: t, changed: doc.change === 'changed', first }, { bounds });
    await store.updateDocument(doc.url, { strategyState: next.state, nextFetch: t + next.intervalMs });
  }
  return downloader.summary as CrawlSummary;
}
