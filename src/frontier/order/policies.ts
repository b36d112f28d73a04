/**
 * The ordering metrics of seed 001 for a crawler that only knows what it has crawled so far:
 * BFS, backlink count IB', PageRank IR', location IL, similarity to a driving query IS' (anchor
 * text and the words around the link, IDF from the crawled pages), and random.
 */
import { UserError } from '../../util/errors.ts';
import { LinkGraph } from './link-graph.ts';
import { locationScore } from './location.ts';
import { pageRank, pageRankAsync, SEED_DAMPING, type PageRankResult } from './pagerank.ts';
import type { CrawledPage, OrderingName, OrderingPolicy } from './policy.ts';
import { addTerms, cosineSimilarity, DocumentFrequencies, termCounts, tokenize, type TermCounts } from './text.ts';

export interface OrderingOptions {
  /** The driving query (similarity). */
  query?: string;
  /** Seed of the random order. */
  seed?: number;
  /** PageRank damping, 0.9 by default (seed 001). */
  damping?: number;
  /**
   * Global refreshes (PageRank recomputation, IDF re-weighting) happen when at least this many
   * pages were crawled since the last one and the crawl grew by `refreshGrowth` since: a fixed
   * period alone would make a long crawl quadratic.
   */
  refreshEvery?: number;
  refreshGrowth?: number;
  /** Recompute PageRank in event-loop slices (live crawler) instead of inline (lab). */
  background?: boolean;
}

/** When a growing crawl is due for a global refresh. */
class RefreshClock {
  private since = 0;
  private total = 0;
  constructor(private readonly every: number, private readonly growth: number) {}

  /** Counts one page; true when a refresh is due (the caller then calls reset()). */
  tick(): boolean {
    this.since++;
    this.total++;
    return this.since >= this.every && this.since >= this.growth * (this.total - this.since);
  }

  reset(): void {
    this.since = 0;
  }
}

/** A set of changed URLs, or 'all' once a global refresh makes listing them pointless. */
class ChangeLog {
  private changed: string[] | 'all' = [];

  add(url: string): void {
    if (this.changed !== 'all') this.changed.push(url);
  }

  all(): void {
    this.changed = 'all';
  }

  take(): readonly string[] | 'all' {
    const c = this.changed;
    this.changed = [];
    return c;
  }
}

export class BfsPolicy implements OrderingPolicy {
  readonly name = 'bfs';
  onPageCrawled(): void {}
  priority(): number {
    return 0;
  }
}

/** A fixed pseudo-random priority per URL (FNV-1a mixed with the seed): reproducible runs. */
export class RandomPolicy implements OrderingPolicy {
  readonly name = 'random';
  constructor(private readonly seed = 1) {}
  onPageCrawled(): void {}
  priority(url: string): number {
    let h = (0x811c9dc5 ^ Math.imul(this.seed, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < url.length; i++) h = Math.imul(h ^ url.charCodeAt(i), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    return (h >>> 0) / 4294967296;
  }
}

export class LocationPolicy implements OrderingPolicy {
  readonly name = 'location';
  onPageCrawled(): void {}
  priority(url: string): number {
    return locationScore(url);
  }
}

/** IB': the number of crawled pages that link to the URL. */
export class BacklinkPolicy implements OrderingPolicy {
  readonly name = 'backlink';
  readonly graph = new LinkGraph();
  private readonly changes = new ChangeLog();

  onPageCrawled(page: CrawledPage): void {
    for (const id of this.graph.addPage(page.url, page.links.map((l) => l.url))) this.changes.add(this.graph.urlOf(id));
  }

  priority(url: string): number {
    const id = this.graph.idOf(url);
    return id === undefined ? 0 : this.graph.inDegree(id);
  }

  takeChanged(): readonly string[] | 'all' {
    return this.changes.take();
  }
}

/**
 * IR': PageRank of the crawled graph. Between recomputations a newly crawled page pushes
 * d·score/outdegree to its targets, so fresh URLs are ranked at once without waiting for the next
 * power iteration; each recomputation is warm-started from the previous vector.
 */
export class PageRankPolicy implements OrderingPolicy {
  readonly name = 'pagerank';
  readonly graph = new LinkGraph();
  private score = new Float64Array(1024);
  private previous: Float64Array | undefined;
  private running: Promise<void> | undefined;
  private readonly changes = new ChangeLog();
  private readonly clock: RefreshClock;
  private readonly damping: number;
  private readonly background: boolean;
  /** Completed recomputations (for tests and reports). */
  refreshes = 0;

  constructor(options: OrderingOptions = {}) {
    this.damping = options.damping ?? SEED_DAMPING;
    this.background = options.background ?? false;
    this.clock = new RefreshClock(options.refreshEvery ?? 100, options.refreshGrowth ?? 0.1);
  }

  private ensureScores(): void {
    const n = this.graph.nodeCount;
    if (n <= this.score.length) return;
    const s = new Float64Array(Math.max(n, this.score.length * 2));
    s.set(this.score);
    this.score = s;
  }

  onPageCrawled(page: CrawledPage): void {
    const before = this.graph.nodeCount;
    const from = this.graph.intern(page.url);
    const targets = this.graph.addPage(page.url, page.links.map((l) => l.url));
    this.ensureScores();
    const n = this.graph.nodeCount;
    for (let v = before; v < n; v++) this.score[v] = (1 - this.damping) / n;
    if (targets.length > 0) {
      const push = (this.damping * this.score[from]) / targets.length;
      for (const t of targets) {
        this.score[t] += push;
        this.changes.add(this.graph.urlOf(t));
      }
    }
    if (this.clock.tick() && !this.running) {
      this.clock.reset();
      this.recompute();
    }
  }

  private recompute(): void {
    const csr = this.graph.toCsr();
    const options = { damping: this.damping, tolerance: 1e-8 };
    if (!this.background) return this.apply(pageRank(csr, options, this.previous));
    this.running = pageRankAsync(csr, options, this.previous).then((r) => {
      this.running = undefined;
      this.apply(r);
    });
  }

  private apply(result: PageRankResult): void {
    this.previous = result.rank;
    this.score.set(result.rank);
    this.refreshes++;
    this.changes.all();
  }

  /** Recomputes now, whatever the clock says (e.g. before reading final ranks). */
  async refreshNow(): Promise<void> {
    await this.idle();
    this.clock.reset();
    this.recompute();
    await this.idle();
  }

  priority(url: string): number {
    const id = this.graph.idOf(url);
    return id === undefined ? 0 : this.score[id];
  }

  takeChanged(): readonly string[] | 'all' {
    return this.changes.take();
  }

  async idle(): Promise<void> {
    while (this.running) await this.running;
  }
}

/**
 * IS': cosine between the driving query and the words that describe a URL before it is fetched:
 * its anchor texts (counted twice: they are written about the target), the words around the
 * links, and the words of the URL itself. IDF comes from the text of the pages crawled so far.
 */
export class SimilarityPolicy implements OrderingPolicy {
  readonly name = 'similarity';
  private readonly query: TermCounts;
  private readonly described = new Map<string, TermCounts>();
  /** The best similarity of a crawled page linking to the URL, weighted (topics cluster: seed 001). */
  private readonly parent = new Map<string, number>();
  private readonly df = new DocumentFrequencies();
  private readonly changes = new ChangeLog();
  private readonly clock: RefreshClock;
  private readonly idf = (term: string): number => this.df.idf(term);

  constructor(options: OrderingOptions = {}) {
    this.query = termCounts(options.query ?? '');
    if (this.query.size === 0) throw new UserError('the similarity ordering needs a driving query: give --query "some words"');
    this.clock = new RefreshClock(options.refreshEvery ?? 100, options.refreshGrowth ?? 0.1);
  }

  onPageCrawled(page: CrawledPage): void {
    let pageScore = 0;
    if (page.text !== undefined) {
      const words = tokenize(page.text);
      this.df.addDocument(words);
      pageScore = PARENT_WEIGHT * cosineSimilarity(addTerms(new Map(), words), this.query, this.idf);
    }
    for (const link of page.links) {
      if (pageScore > (this.parent.get(link.url) ?? 0)) this.parent.set(link.url, pageScore);
      let terms = this.described.get(link.url);
      if (!terms) {
        terms = addTerms(new Map(), tokenize(urlWords(link.url)));
        this.described.set(link.url, terms);
      }
      if (link.anchorText) addTerms(terms, tokenize(link.anchorText), 2);
      if (link.context) addTerms(terms, tokenize(link.context));
      this.changes.add(link.url);
    }
    // The IDF drifts for every URL as pages arrive; re-weigh them all now and then, not per page.
    if (this.clock.tick()) {
      this.clock.reset();
      this.changes.all();
    }
  }

  priority(url: string): number {
    const terms = this.described.get(url);
    return terms ? cosineSimilarity(terms, this.query, this.idf) + (this.parent.get(url) ?? 0) : 0;
  }

  takeChanged(): readonly string[] | 'all' {
    return this.changes.take();
  }
}

/** How much a linking page's own similarity counts next to the link's words. */
const PARENT_WEIGHT = 0.5;

function urlWords(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname} ${u.search}`;
  } catch {
    return url;
  }
}

export function createOrderingPolicy(name: OrderingName, options: OrderingOptions = {}): OrderingPolicy {
  switch (name) {
    case 'bfs':
      return new BfsPolicy();
    case 'random':
      return new RandomPolicy(options.seed);
    case 'location':
      return new LocationPolicy();
    case 'backlink':
      return new BacklinkPolicy();
    case 'pagerank':
      return new PageRankPolicy(options);
    case 'similarity':
      return new SimilarityPolicy(options);
  }
}
