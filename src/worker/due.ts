/**
 * Monitored documents of the leased hosts that are due again: fetched like the re-crawl cycle's
 * downloader does (exactly these URLs, again), and each URL's strategy sets its next fetch.
 * The per-document update is runCycle's own (`reschedule`).
 */
import { crawlRound, type CrawlSummary } from '../crawler/crawl.ts';
import type { RoundOptions } from '../crawler/options.ts';
import type { DocumentRow, DocumentStore } from '../store/types.ts';
import { DEFAULT_BOUNDS } from '../schedule/bounds.ts';
import { reschedule } from '../recrawl/cycle.ts';

export async function fetchDue(due: DocumentRow[], store: DocumentStore, options: RoundOptions): Promise<CrawlSummary> {
  const byUrl = new Map(due.map((d) => [d.url, d]));
  const bounds = DEFAULT_BOUNDS;
  const downloader = crawlRound({ ...options, seeds: due.map((d) => d.url), refetch: true, noFollow: true });
  for await (const doc of downloader) {
    const row = byUrl.get(doc.url);
    if (!row) continue;
    await reschedule(store, row, doc, Date.now(), bounds);
  }
  return downloader.summary as CrawlSummary;
}
