import type { ArchivedExchange, ArchiveWriter } from '../../archive/warc-writer.ts';
import { sha1Digest } from '../../archive/warc-record.ts';
import { normalizeUrl } from '../../frontier/normalize.ts';
import { isRedirect, redirectTarget } from '../../util/headers.ts';
import type { CrawlLog, CrawlLogEntry, DocumentRow } from '../../store/types.ts';
import type { FetchResponse } from '../../fetch/types.ts';
import type { Fates } from './fates.ts';
import type { ScopeStage } from './scope.ts';
import type { Job, Next, Stage } from './types.ts';

/**
 * The crawl-log row of a redirect hop archived at `archived`, and the document's new state: what the crawl
 * logs, and an import (or a rebuild) of its WARC files logs the same. `prev`: the URL's row before the fetch.
 */
export function redirectRow(url: string, r: FetchResponse, prev: { checksum?: string } | undefined, archived: ArchivedExchange, error: string | undefined, cycleId?: number): [CrawlLogEntry, Partial<DocumentRow>] {
  const checksum = sha1Digest(r.rawBody);
  return [{
    url, time: r.startedAt.getTime(), status: r.status, headers: r.headers, durationMs: r.durationMs,
    bytes: r.rawBody.length, mediaType: r.mediaType, checksum, change: prev?.checksum === checksum ? 'unchanged' : prev ? 'changed' : 'new',
    error, reason: 'redirected', triples: 0, warcFile: archived.file, warcOffset: archived.offset, warcLength: archived.length, cycleId,
  }, { state: 'fetched', lastFetched: r.startedAt.getTime(), checksum }];
}

/** Redirects followed from a URL found otherwise before the chain is cut (what the fetcher followed itself before). */
export const MAX_REDIRECT_HOPS = 5;

export interface RedirectStageDeps {
  warc: ArchiveWriter;
  /** The store that gives each log row its reason and counts it (Fates.store). */
  store: CrawlLog;
  fates: Fates;
  scope: Pick<ScopeStage, 'offer' | 'offerRequisite'>;
  /** A re-crawl fetches again what the store knows: a redirect's target too, once per crawl. */
  refetch: boolean;
  maxHops?: number;
  cycleId?: number;
}

/**
 * A redirect is a capture of its own: the 3xx response is archived under the URL that gave it and
 * logged as `redirected`, and its target is offered to the scope like a link at the same depth, so
 * the seen test lets a document that many IRIs redirect to (303 See Other) be fetched once, under
 * its own URL. Chains are bounded by the hop count the frontier entry carries; loops end at the seen test.
 */
export class RedirectStage implements Stage {
  readonly name = 'redirect';
  private readonly refetched = new Set<string>();
  constructor(private readonly d: RedirectStageDeps) {}

  shouldProcess(job: Job): boolean {
    // Another representation asked of a document's own URL is no page: its redirect is the variant stage's to note.
    if (job.entry.variant?.negotiated) return false;
    const r = job.outcome?.response;
    return r !== undefined && isRedirect(r);
  }

  async process(job: Job): Promise<Next> {
    const r = job.outcome!.response!;
    const { entry } = job;
    const to = redirectTarget(r.status, r.headers, entry.url)!;
    const target = to.url && normalizeUrl(to.url.href);
    const checksum = sha1Digest(r.rawBody);
    const archived = await this.d.warc.writeExchange({ response: r, payloadDigest: checksum });
    const chain = [...(entry.via ?? []), entry.url];
    const hops = chain.length;
    // A loop is a target already on its own chain.
    const loop = target && chain.includes(target) ? chain.slice(chain.indexOf(target)) : undefined;
    const error = !target
      ? `redirected (${r.status}) to ${JSON.stringify(to.text)}, which is not an http(s) URL`
      : loop ? `redirect loop: ${[...loop, target].join(' -> ')}`
      : hops > (this.d.maxHops ?? MAX_REDIRECT_HOPS) ? `more than ${this.d.maxHops ?? MAX_REDIRECT_HOPS} redirects in a row: ${target} is not followed` : undefined;
    await this.d.store.logFetch(...redirectRow(entry.url, r, job.prev, archived, error, this.d.cycleId));
    if (!target) this.d.fates.count('bad-url');
    else if (loop) this.d.fates.count('redirect-loop');
    else if (error) this.d.fates.count('too-many-redirects');
    else {
      const force = this.d.refetch && !this.refetched.has(target);
      if (force) this.refetched.add(target);
      // A requisite's target is the requisite (an image moved to a CDN): still outside the scope filters.
      if (entry.requisite) this.d.scope.offerRequisite(target, entry.depth, entry.requisite, force, chain);
      else this.d.scope.offer(target, entry.depth, Boolean(entry.vocabulary), force, chain);
    }
    job.redirected = true;
    return 'continue';
  }
}
