/**
 * Requests the crawl makes for its policy or for a document rather than as documents (Heritrix's
 * prerequisites): robots.txt, a JSON-LD context, a detached proof. They are spaced by the frontier's clock
 * of their origin, fetched by the crawl's fetcher, and archived here: a WARC response record that says
 * what each was fetched for, and a crawl-log row of reason `prerequisite`.
 */
import type { ArchiveWriter, FetchedFor } from '../archive/warc-writer.ts';
import { sha1Digest } from '../archive/warc-record.ts';
import { robotsDeferred } from '../fetch/robots.ts';
import type { FetchResponse } from '../fetch/types.ts';
import type { CrawlLog } from '../store/types.ts';

/** The diagnostic line of a robots.txt's crawl-log row: the row is not a document of the crawl. */
export const ROBOTS_DIAGNOSTIC = 'info: robots.txt, fetched for the crawl\'s politeness (not a document of the crawl)';

/** What keeps a robots.txt answer from serving, in its row's error: the answers RobotsCache defers on. */
export function robotsProblem(status: number): string | undefined {
  return robotsDeferred(status) ? `HTTP ${status}: robots.txt unavailable, asked again later` : undefined;
}

/** Where a side request is archived. */
export interface SideArchive {
  warc: ArchiveWriter;
  store: CrawlLog;
  cycleId?: number;
}

/**
 * Archives a request the crawl made for its policy or for a document rather than as one (robots.txt, a
 * JSON-LD context, a detached proof): a WARC response record that says what it was fetched for, and a
 * crawl-log row with the reason `prerequisite`, marked by `diagnostic` (`problem`: why it could not serve,
 * in the row's error). The row's patch is empty: no documents row, never queued, no version.
 */
export async function archiveSideFetch(to: SideArchive, url: string, r: FetchResponse, problem: string | undefined, diagnostic: string, fetchedFor: FetchedFor): Promise<void> {
  const payloadDigest = sha1Digest(r.rawBody);
  const archived = await to.warc.writeExchange({ response: r, payloadDigest, fetchedFor });
  await to.store.logFetch({
    url, finalUrl: r.finalUrl, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: r.durationMs,
    bytes: r.rawBody.length, mediaType: r.mediaType, checksum: payloadDigest, change: problem ? 'error' : 'new', error: problem,
    reason: 'prerequisite', triples: 0, truncated: r.truncated, diagnostics: [diagnostic],
    warcFile: archived.file, warcOffset: archived.offset, warcLength: archived.length, cycleId: to.cycleId,
  }, {});
}
