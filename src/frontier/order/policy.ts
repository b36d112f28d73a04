/** The ordering metrics of seed 001 as one interface the frontier (live or virtual) can drive. */

export interface CrawledLink {
  url: string;
  anchorText?: string;
  /** Words around the link on the page (a few either side). */
  context?: string;
}

export interface CrawledPage {
  url: string;
  links: readonly CrawledLink[];
  text?: string;
}

export const ORDERING_NAMES = ['bfs', 'backlink', 'pagerank', 'location', 'similarity', 'random'] as const;
export type OrderingName = (typeof ORDERING_NAMES)[number];

export interface OrderingPolicy {
  readonly name: string;
  /** Tells the policy what a fetched page links to (and its text, for the IDF of similarity). */
  onPageCrawled(page: CrawledPage): void;
  /** Higher is fetched first; ties go to the URL discovered first, so a constant priority is BFS. */
  priority(url: string): number;
  /**
   * URLs whose priority changed since the last call, or 'all' after a global refresh (PageRank,
   * IDF). Policies whose priorities never change leave it out.
   */
  takeChanged?(): readonly string[] | 'all';
  /** Settles background work (a PageRank refresh in flight): for tests, benchmarks and shutdown. */
  idle?(): Promise<void>;
}

export function isOrderingName(name: string): name is OrderingName {
  return (ORDERING_NAMES as readonly string[]).includes(name);
}
