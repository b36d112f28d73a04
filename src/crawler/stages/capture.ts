import type { HostRow } from '../../store/types.ts';
import { capture, type CaptureContext } from '../capture.ts';
import type { CrawlSummary } from '../crawl.ts';
import type { Job, Next, Stage } from './types.ts';
import { reasonOfCapture } from './fates.ts';

export interface CaptureStageDeps {
  ctx: CaptureContext;
  /** The per-host figures the crawl-time estimate reads next cycle. */
  hostRow(host: string): HostRow;
  counts: Pick<CrawlSummary, 'documents' | 'triples' | 'bytes' | 'errors' | 'new' | 'changed' | 'unchanged'>;
  /** Is this URL a page of a stream the crawl reads (CaptureAs.feed)? */
  isFeed?: (url: string) => boolean;
}

/** Extracts, compares, archives and logs the fetched response (src/crawler/capture.ts), and counts it. */
export class CaptureStage implements Stage {
  readonly name = 'capture';
  constructor(private readonly d: CaptureStageDeps) {}

  shouldProcess(job: Job): boolean {
    // A document's own URL asked for another media type (--variants) is archived by the variant stage, beside the document.
    return job.outcome !== undefined && !job.redirected && !job.entry.variant?.negotiated;
  }

  async process(job: Job): Promise<Next> {
    const doc = (job.doc = await capture(job.entry.url, job.outcome!, this.d.ctx, job.prev, { requisite: job.entry.requisite, alternateOf: job.entry.variant?.of, feed: this.d.isFeed?.(job.entry.url) }));
    job.ok = doc.status > 0 && doc.status < 500;
    const hs = this.d.hostRow(job.entry.host);
    hs.fetches++;
    if (!job.ok) hs.errors++;
    else hs.meanDownloadMs = hs.meanDownloadMs === undefined ? doc.durationMs : 0.8 * hs.meanDownloadMs + 0.2 * doc.durationMs;
    const c = this.d.counts;
    c.documents += doc.status > 0 ? 1 : 0;
    c.triples += doc.quads.length;
    c.bytes += doc.bytes;
    // An archived document its parser gave up on is an error, not a new version to count.
    const parseFailed = doc.diagnostics.some((d) => d.level === 'error');
    // The facts only: a spread of the document would read its lazily folded text (an HTML page's).
    if (doc.change === 'error' || reasonOfCapture({ status: doc.status, change: doc.change, error: doc.error, parseFailed }) === 'parse-error') c.errors++;
    else c[doc.change]++;
    return 'continue';
  }
}
