import { describe, it, expect } from 'vitest';
import { createOrderingPolicy } from '../../src/frontier/order/index.ts';
import { indexRepository, type RepositoryGraph } from '../../src/lab/ordering/graph.ts';
import { crawlAndStopCurve, hotPages, importanceOf } from '../../src/lab/ordering/importance.ts';
import { runOrderingLab } from '../../src/lab/ordering/run.ts';
import { virtualCrawl } from '../../src/lab/ordering/virtual-crawl.ts';

/**
 * S links to five pages x1..x5 that all link to the hub H, and to ten leaves y1..y10 listed first.
 * BFS reaches H only after all sixteen pages of the first level; backlink ordering as soon as two
 * crawled pages endorse it.
 */
function hubSite(): RepositoryGraph {
  const u = (p: string) => `http://s.test/${p}`;
  const leaves = Array.from({ length: 10 }, (_, i) => `y${i + 1}`);
  const xs = Array.from({ length: 5 }, (_, i) => `x${i + 1}`);
  const pages = [
    { url: u('S'), links: [...xs, ...leaves].map((p) => ({ url: u(p) })) },
    ...xs.map((x) => ({ url: u(x), links: [{ url: u('H') }, { url: 'http://elsewhere.test/' }] })),
    ...leaves.map((y) => ({ url: u(y), links: [] })),
    { url: u('H'), links: [{ url: u('S') }] },
  ];
  return { pages, start: u('S') };
}

const positionOf = (repo: ReturnType<typeof indexRepository>, order: Int32Array, url: string) => Array.from(order).indexOf(repo.index.get(url)!);

describe('virtual crawl', () => {
  it('backlink and PageRank ordering find the hub early, BFS late', () => {
    const repo = indexRepository(hubSite());
    expect(repo.externalLinks).toBe(5);
    const at = (name: 'bfs' | 'backlink' | 'pagerank') => positionOf(repo, virtualCrawl(repo, createOrderingPolicy(name, { refreshEvery: 1 })).order, 'http://s.test/H');
    expect(at('bfs')).toBe(16);
    expect(at('backlink')).toBe(3);
    expect(at('pagerank')).toBeLessThanOrEqual(3);
  });

  it('crawls every reachable page once', () => {
    const repo = indexRepository(hubSite());
    for (const name of ['bfs', 'backlink', 'pagerank', 'location', 'random'] as const) {
      const { order } = virtualCrawl(repo, createOrderingPolicy(name));
      expect(new Set(order).size).toBe(17);
      expect(order.length).toBe(17);
    }
  });

  it('forgets URLs when the buffer is full', () => {
    const repo = indexRepository(hubSite());
    const crawl = virtualCrawl(repo, createOrderingPolicy('bfs'), { buffer: 2 });
    expect(crawl.dropped).toBeGreaterThan(0);
    expect(crawl.order.length).toBeLessThan(17);
  });
});

describe('importance and hot pages', () => {
  it('counts backlinks and forward links over the whole repository', () => {
    const repo = indexRepository(hubSite());
    const ib = importanceOf(repo, 'backlink');
    const iF = importanceOf(repo, 'forward');
    expect(ib[repo.index.get('http://s.test/H')!]).toBe(5);
    expect(ib[repo.index.get('http://s.test/S')!]).toBe(1);
    expect(iF[repo.index.get('http://s.test/S')!]).toBe(15);
    const ir = importanceOf(repo, 'pagerank');
    expect(ir.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('takes the top K with ties, or a threshold G, and never makes a value every page shares hot', () => {
    const imp = Float64Array.from([5, 3, 3, 1, 0]);
    expect(hotPages(imp, { top: 2 })).toMatchObject({ count: 3, threshold: 3 });
    expect(hotPages(imp, { threshold: 1 }).count).toBe(4);
    expect(hotPages(Float64Array.from([0.4, 0, 0, 0]), { top: 3 }).count).toBe(1);
  });

  it('computes P_CS for every K', () => {
    // Importance 3, 2, 1 for pages 0, 1, 2; crawled 1, 0, 2: after 1 page the hot page (0) is
    // missing, after 2 both hot pages are in.
    expect(Array.from(crawlAndStopCurve(Float64Array.from([3, 2, 1]), [1, 0, 2]))).toEqual([0, 1, 1]);
    expect(Array.from(crawlAndStopCurve(Float64Array.from([3, 2, 1]), [0, 1, 2]))).toEqual([1, 1, 1]);
  });
});

describe('the ordering lab', () => {
  it('reports backlink ordering reaching the backlink-hot page before BFS, with curves that end at 1', () => {
    const r = runOrderingLab(hubSite(), { hot: 'backlink', rule: { top: 1 }, orderings: ['bfs', 'backlink', 'random'] });
    expect(r.hot.count).toBe(1);
    const by = Object.fromEntries(r.orderings.map((o) => [o.ordering, o]));
    expect(by.backlink.crawledFor!['0.5']).toBeCloseTo(4 / 17, 4);
    expect(by.bfs.crawledFor!['0.5']).toBeCloseTo(17 / 17, 4);
    expect(by.backlink.auc).toBeGreaterThan(by.bfs.auc);
    for (const o of r.orderings) expect(o.curve.at(-1)).toEqual([1, 1]);
  });

  it('skips the similarity ordering without a query, and ranks similarity-hot pages with one', () => {
    const g = hubSite();
    g.pages[1].links[0].anchorText = 'the postgres hub';
    g.pages.at(-1)!.text = 'postgres postgres hub';
    const without = runOrderingLab(g, { orderings: ['bfs', 'similarity'] });
    expect(without.skipped).toEqual([{ ordering: 'similarity', reason: 'no --query' }]);
    const r = runOrderingLab(g, { hot: 'similarity', query: 'postgres', rule: { top: 1 }, orderings: ['bfs', 'similarity'] });
    expect(r.hot.count).toBe(1);
    const by = Object.fromEntries(r.orderings.map((o) => [o.ordering, o]));
    expect(by.similarity.crawledFor!['0.5']).toBeLessThan(by.bfs.crawledFor!['0.5']!);
  });

  it('rejects a start page outside the repository', () => {
    expect(() => runOrderingLab({ pages: hubSite().pages, start: 'http://nowhere.test/' })).toThrow(/not in the repository/);
  });
});
