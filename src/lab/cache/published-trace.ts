/**
 * A seen-test trace of a crawl over many hosts, generated with the parameters published for real
 * crawls (each one says where it comes from), so that seed 002's claims can be tested where the
 * cache is small against the distinct URLs (the seed's trace: 33 days, over a billion requests). The
 * crawl parses pages one after the other and every link it extracts is one request to the cache.
 *
 * Published:
 * - 7.2 distinct links per page: Broder et al., "Graph structure in the Web" (WWW9, 2000): AltaVista's
 *   May 1999 crawl, 203.5 million pages, 1,466 million links.
 * - In-degree P(k) ∝ k^−2.1, same source: a page's share of the links is then Zipf-like in its rank
 *   with exponent 1/(2.1 − 1) ≈ 0.91.
 * - About 30 % of the links on a page repeat another link of the same page: seed 002, section 3
 *   (Broder, Najork, Wiener, "Efficient URL caching for World Wide Web crawling", WWW 2003).
 * - Pages per site follow a power law: Huberman and Adamic, "Growth dynamics of the World-Wide Web"
 *   (Nature 401, 1999); the exponent used here (host size ∝ 1/rank) is our choice.
 * Our choices, not published: 75 % of a page's links stay on its host; the crawler takes hosts in
 * proportion to their size and each host's pages in order of popularity (breadth-first finds popular
 * pages first).
 */
import { rng, skewed } from './synthetic-trace.ts';

export const CRAWL_STATISTICS = {
  distinctLinksPerPage: 7.2,
  inDegreeExponent: 2.1,
  inPageDuplicateShare: 0.3,
  sameHostShare: 0.75,
} as const;

export interface PublishedTraceOptions {
  /** Hosts of the generated Web (default 1,000). */
  hosts?: number;
  /** Pages of all hosts together (default 5,000,000); host h holds about a 1/(h+1) share, at least 50. */
  pages?: number;
  seed?: number;
}

/**
 * A rank in [0, m) with P(rank r) ≈ ∝ (r + 1)^−s: the continuous density x^−s on [0.5, m + 0.5)
 * rounded to the nearest integer (centred bins keep the head's weight close to the discrete law's).
 */
export function zipf(random: () => number, m: number, s: number): number {
  if (Math.abs(s - 1) < 1e-9) return skewed(random, m);
  const a = 1 - s;
  const lo = 0.5 ** a, hi = (m + 0.5) ** a;
  const x = ((hi - lo) * random() + lo) ** (1 / a);
  return Math.min(m - 1, Math.max(0, Math.round(x) - 1));
}

/** The URL of page `page` of host `host` (directories as real sites have them). */
export function crawlUrl(host: number, page: number): string {
  if (page === 0) return `http://www.host${host}.example/`;
  return `http://www.host${host}.example/${['docs', 'news', 'products', 'about'][page % 4]}/${page % 53}/item-${page}.html`;
}

/** `n` requests of the seen test, in crawl order. */
export function* publishedStatsTrace(n: number, o: PublishedTraceOptions = {}): Generator<string> {
  const hosts = o.hosts ?? 1000;
  const total = o.pages ?? 5_000_000;
  const random = rng(o.seed ?? 1);
  let harmonic = 0;
  for (let h = 0; h < hosts; h++) harmonic += 1 / (h + 1);
  const size = Array.from({ length: hosts }, (_, h) => Math.max(50, Math.round(total / harmonic / (h + 1))));
  const parsed = new Int32Array(hosts); // next page of each host the crawler parses
  const s = 1 / (CRAWL_STATISTICS.inDegreeExponent - 1);
  const emittedPerPage = CRAWL_STATISTICS.distinctLinksPerPage / (1 - CRAWL_STATISTICS.inPageDuplicateShare);
  const onPage: string[] = [];
  let emitted = 0;
  while (emitted < n) {
    let host = skewed(random, hosts); // ∝ 1/rank, as the sizes: hosts are crawled in proportion to their pages
    if (parsed[host] >= size[host]) host = Math.floor(random() * hosts);
    parsed[host] = Math.min(size[host], parsed[host] + 1);
    onPage.length = 0;
    // Links per page vary widely; an exponential around the mean keeps the published mean.
    const links = Math.max(1, Math.round(-emittedPerPage * Math.log(1 - random())));
    for (let l = 0; l < links && emitted < n; l++, emitted++) {
      let url: string;
      if (onPage.length > 0 && random() < CRAWL_STATISTICS.inPageDuplicateShare) url = onPage[Math.floor(random() * onPage.length)];
      else {
        const h = random() < CRAWL_STATISTICS.sameHostShare ? host : skewed(random, hosts);
        url = crawlUrl(h, zipf(random, size[h], s));
      }
      onPage.push(url);
      yield url;
    }
  }
}

/** Counts a trace's requests, distinct URLs and hosts as its URLs stream by. */
export class TraceCounter {
  private readonly seen = new Set<string>();
  private readonly hostSet = new Set<string>();
  private requests = 0;
  add(u: string): void {
    this.requests++;
    if (!this.seen.has(u)) {
      // A copy: a line read from a file is a slice of its whole chunk, which the set would keep alive.
      const own = Buffer.from(u).toString();
      this.seen.add(own);
      this.hostSet.add(own.slice(0, own.indexOf('/', 8)));
    }
  }
  result(): { requests: number; distinct: number; hosts: number } {
    return { requests: this.requests, distinct: this.seen.size, hosts: this.hostSet.size };
  }
}

/** What a trace is made of: requests, distinct URLs, hosts. */
export function describeTrace(urls: Iterable<string>): { requests: number; distinct: number; hosts: number } {
  const c = new TraceCounter();
  for (const u of urls) c.add(u);
  return c.result();
}
