/**
 * Generated URL streams with the skew of real crawls, for benchmarks and tests:
 * a few hosts hold most links (host popularity ~ 1/rank), within a host a few
 * pages (home, navigation) are linked from everywhere (page popularity ~ 1/rank),
 * and about a third of the links on a page repeat links of the same page (seed
 * 002 found ~30 % in-page duplicates). Deterministic for a given seed.
 */

/** xorshift32 in [0, 1): fast and reproducible. */
export function rng(seed: number): () => number {
  let x = seed | 0 || 0x2545f491;
  return () => {
    x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

/** An index in [0, m) with P(i) ∝ log((i+2)/(i+1)) ≈ 1/i: log-uniform, a Zipf(1)-like skew. */
export function skewed(random: () => number, m: number): number {
  return Math.min(m - 1, Math.floor(Math.exp(random() * Math.log(m + 1))) - 1);
}

/** The URL of page `page` of host `host`: page 0 is the home page; deeper pages sit in directories. */
export function syntheticUrl(host: number, page: number): string {
  if (page === 0) return `http://www.site${host}.example/`;
  return `http://www.site${host}.example/${page % 7 === 0 ? 'news' : 'docs'}/s${page % 31}/page-${page}.html`;
}

export interface TraceShape {
  /** Hosts of the synthetic web (default 20,000). */
  hosts?: number;
  /** Pages of the largest host; host h has about pagesPerHost/(h+1) pages, at least 20 (default 200,000). */
  pagesPerHost?: number;
  /** Links per page (default 30). */
  linksPerPage?: number;
  seed?: number;
}

/** The stream of links a crawler's seen test would receive: `n` URLs. */
export function* syntheticTrace(n: number, shape: TraceShape = {}): Generator<string> {
  const hosts = shape.hosts ?? 20_000;
  const big = shape.pagesPerHost ?? 200_000;
  const perPage = shape.linksPerPage ?? 30;
  const random = rng(shape.seed ?? 1);
  const pagesOf = (h: number) => Math.max(20, Math.floor(big / (h + 1)));
  const onPage: string[] = [];
  let emitted = 0;
  while (emitted < n) {
    const host = skewed(random, hosts); // the page being parsed
    onPage.length = 0;
    for (let l = 0; l < perPage && emitted < n; l++, emitted++) {
      const r = random();
      let url: string;
      if (r < 0.3 && onPage.length > 0) url = onPage[Math.floor(random() * onPage.length)];
      else if (r < 0.8) url = syntheticUrl(host, skewed(random, pagesOf(host)));
      else { const h = skewed(random, hosts); url = syntheticUrl(h, skewed(random, pagesOf(h))); }
      onPage.push(url);
      yield url;
    }
  }
}
