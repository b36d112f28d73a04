import type { Frontier, FrontierEntry } from '../../frontier/types.ts';
import type { SeenSet } from '../../frontier/seen/index.ts';
import type { DocumentStore } from '../../store/types.ts';
import { rejectReason, type FilterOptions } from '../../frontier/filters.ts';
import type { Reason } from '../../vocabulary/reasons.ts';
import { hostOf, normalizeUrl, originOf } from '../../frontier/normalize.ts';
import { rejectionReason } from '../../frontier/filters.ts';

export interface ScopeOptions {
  filters: FilterOptions;
  /** Cooperating workers: whether this crawl fetches URLs of the host (others only go to the shared store). */
  queueHost?: (host: string) => boolean;
  /** Every candidate URL, for seed 002's traces. */
  trace?: (url: string) => void;
  /** A URL a filter keeps out, the first time it is met (each filtered URL is counted once, up to a bound). */
  onFiltered?: (url: string, reason: Reason) => void;
  /** A URL offered (not forced) that the seen test knows already: --answer may answer it from the archive. */
  onKnown?: (url: string, depth: number) => void;
}

/** Filtered URLs remembered to count each once; past this many, every further rejection counts (memory stays bounded). */
const FILTERED_REMEMBERED = 200_000;

/** What became of a candidate: queued, already known, not an http(s) URL, or kept out by a filter (which one). */
export type Admission = 'queued' | 'known' | 'invalid' | Extract<Reason, `filtered-${string}` | 'url-too-long'>;

/**
 * The chain's entrance: every candidate URL (seed, link, sitemap entry, redirect target) is
 * normalised, filtered, and put through the seen test here, then queued in the frontier and buffered
 * for the store (written in batches by the store stage).
 */
export class ScopeStage {
  readonly name = 'scope';
  private seq = 0;
  private pending: { url: string; host: string; depth: number }[] = [];
  private filteredSeen = new Set<string>();
  /** Distinct URLs the filters kept out (the summary's `skipped.filtered`). */
  filtered = 0;

  /**
   * A page requisite's filters: only --exclude and the URL length limit. The others say which pages
   * the crawl is about; what such a page loads to be shown is part of it wherever it is served from
   * (Heritrix's transclusion). --exclude still holds: it is how a user says "never fetch this".
   */
  private readonly requisiteFilters: FilterOptions;

  constructor(private readonly frontier: Frontier, private readonly seen: SeenSet, private readonly o: ScopeOptions) {
    this.requisiteFilters = { ...o.filters, domains: [], include: [] };
  }

  /** Queues an entry known to the store already (a resume, a worker's round) without the filters. */
  requeue(url: string, host: string, depth: number): void {
    this.seen.addIfNewSync(url);
    this.frontier.push({ url, host, origin: originOf(url), depth, key: this.seq++ });
  }

  /**
   * Puts a URL that was handed out back behind what its origin has queued now (a retry): its other
   * URLs go first, so one URL that keeps failing neither holds them nor uses up by itself the
   * failures in a row after which the origin is dropped, and the trouble has time to pass.
   */
  retry(entry: FrontierEntry): void {
    this.frontier.push({ ...entry, retries: (entry.retries ?? 0) + 1, key: this.seq++ });
  }

  /** `force`: queued even when seen (a re-crawl fetches its seeds again); `via`: the redirects that led to it. */
  offer(raw: string, depth: number, vocabulary: boolean, force = false, via?: readonly string[]): Admission {
    const admission = this.admit(raw, depth, force, this.o.filters, vocabulary, via ? { vocabulary, via } : { vocabulary });
    if (admission === 'known') this.o.onKnown?.(normalizeUrl(raw) as string, depth);
    return admission;
  }

  /**
   * A page requisite (--page-requisites) of a page at `depth`: queued at that depth (a requisite is
   * not a hop further), through the seen test (fetched once per crawl), outside the scope filters.
   */
  offerRequisite(raw: string, depth: number, level: 1 | 2, force = false, via?: readonly string[]): Admission {
    return this.admit(raw, depth, force, this.requisiteFilters, true, via ? { requisite: level, via } : { requisite: level });
  }

  /**
   * A representation a document advertises at another URL (`crawl --variants`): at the document's depth (it
   * is the same document, not a hop further), through the filters and the seen test (fetched once per
   * crawl), first of its origin's queue (`key`). A URL another worker's host owns is left to the links.
   */
  offerVariant(raw: string, depth: number, variant: NonNullable<FrontierEntry['variant']>, key: number, force = false): Admission {
    const url = normalizeUrl(raw);
    if (url && this.o.queueHost && !this.o.queueHost(hostOf(url))) return 'known';
    return this.admit(raw, depth, force, this.o.filters, true, { variant, key });
  }

  private admit(raw: string, depth: number, force: boolean, filters: FilterOptions, ignoreDepth: boolean, extra: Partial<FrontierEntry>): Admission {
    const url = normalizeUrl(raw);
    if (!url) return 'invalid';
    this.o.trace?.(url);
    const host = hostOf(url);
    const rejected = rejectReason(url, host, depth, filters, ignoreDepth);
    if (rejected) {
      const reason = rejectionReason(rejected) as Exclude<Admission, 'queued' | 'known' | 'invalid'>;
      // A URL known already (fetched at a lower depth, say) is not one the filter kept out.
      if (!this.filteredSeen.has(url) && !this.seen.has(url)) {
        if (this.filteredSeen.size < FILTERED_REMEMBERED) this.filteredSeen.add(url);
        this.filtered++;
        this.o.onFiltered?.(url, reason);
      }
      return reason;
    }
    if (!this.seen.addIfNewSync(url) && !force) return 'known';
    this.pending.push({ url, host, depth });
    // A forced entry is fetched again although the store says it was fetched (FetchStage).
    if (!this.o.queueHost || this.o.queueHost(host) || force) this.frontier.push({ url, host, origin: originOf(url), depth, key: this.seq++, ...extra, ...(force ? { refetch: true } : {}) });
    return 'queued';
  }

  /** Writes the URLs queued since the last call to the store, where a resume finds them. */
  async flush(store: DocumentStore): Promise<void> {
    if (this.pending.length) await store.addDocuments(this.pending.splice(0));
  }
}
