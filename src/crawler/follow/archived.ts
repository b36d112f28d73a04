import type { Quad } from '@rdfjs/types';
import { versionQuads } from '../../archive/export.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { DEFAULT_BOUNDS, startInterval } from '../../schedule/bounds.ts';
import type { StrategyBounds } from '../../schedule/types.ts';
import type { CrawlLog, DocumentRow, DocumentStore } from '../../store/types.ts';
import { redirectTarget } from '../../util/headers.ts';

/**
 * When the re-crawl policy (src/schedule/) wants a URL fetched again. A monitored URL has its
 * strategy's next fetch; a URL a crawl only fetched has the one the default strategy would give it
 * after a first download (its start interval, a week; a failed fetch is tried again after the
 * shortest interval, a day, as `reschedule` does); a URL never fetched is due now.
 */
export function refetchDueAt(row: DocumentRow, bounds: StrategyBounds = DEFAULT_BOUNDS): number {
  if (row.monitored && row.nextFetch !== undefined) return row.nextFetch;
  if (row.lastFetched === undefined) return Number.NEGATIVE_INFINITY;
  return row.lastFetched + (row.state === 'failed' ? bounds.minIntervalMs : startInterval({ bounds }));
}

/** What the archive holds of a URL for a traversal that meets it again. */
export type Recalled =
  /** Not archived as RDF yet, or queued: the crawl fetches it (or already does). */
  | { kind: 'absent' }
  /** The policy says it is stale: fetch it again. */
  | { kind: 'stale' }
  /** Its latest archived graph, under the URL its body came from. */
  | { kind: 'version'; url: string; quads: Quad[] }
  /** Its latest capture is a redirect: the target is where its data is. */
  | { kind: 'redirect'; target: string }
  /** Archived, fresh, and with no graph (gone, a failure, not RDF): nothing to learn. */
  | { kind: 'empty' };

/**
 * The archive as a second `crawl --answer` reads it (issue #17): a document the crawl meets again is
 * answered from its latest archived version unless the re-crawl policy says it is stale.
 */
export class ArchiveRecall {
  private blank = 0;

  constructor(private readonly store: Pick<DocumentStore, 'getDocument'> & Pick<CrawlLog, 'versions'>, private readonly dataDir: string, private readonly now: () => number = Date.now) {}

  async recall(url: string, opts: { ignoreStaleness?: boolean } = {}): Promise<Recalled> {
    const row = await this.store.getDocument(url);
    if (!row || row.state === 'queued') return { kind: 'absent' };
    if (!opts.ignoreStaleness && refetchDueAt(row) <= this.now()) return { kind: 'stale' };
    const captures = await this.store.versions(url);
    for (let i = captures.length - 1; i >= 0; i--) {
      const e = captures[i]!;
      if (e.rdfOffset !== undefined && e.rdfOffset !== null && e.warcFile) {
        // Blank nodes get labels of their own per version read, as the crawl's own documents do.
        return { kind: 'version', url: e.finalUrl ?? e.url, quads: versionQuads(this.dataDir, e, `r${this.blank++}_`) };
      }
      if (e.status === 404 || e.status === 410) return { kind: 'empty' };
      if (e.url === url && e.status >= 300 && e.status < 400 && e.status !== 304) {
        const to = redirectTarget(e.status, e.headers, url)?.url;
        const target = to && normalizeUrl(to.href);
        return target ? { kind: 'redirect', target } : { kind: 'empty' };
      }
    }
    return { kind: 'empty' };
  }
}
