import { describe, it, expect } from 'vitest';
import {
  BacklinkPolicy,
  createOrderingPolicy,
  locationScore,
  PageRankPolicy,
  PriorityFrontier,
  SimilarityPolicy,
  type CrawledPage,
} from '../../src/frontier/order/index.ts';

const page = (url: string, ...links: string[]): CrawledPage => ({ url, links: links.map((u) => ({ url: u })) });

describe('ordering policies', () => {
  it('backlink counts distinct crawled pages linking to a URL', () => {
    const p = new BacklinkPolicy();
    p.onPageCrawled(page('http://a/1', 'http://a/hub', 'http://a/hub', 'http://a/x'));
    p.onPageCrawled(page('http://a/2', 'http://a/hub'));
    expect(p.priority('http://a/hub')).toBe(2);
    expect(p.priority('http://a/x')).toBe(1);
    expect(p.priority('http://a/never')).toBe(0);
    expect(p.takeChanged()).toEqual(['http://a/hub', 'http://a/x', 'http://a/hub']);
    expect(p.takeChanged()).toEqual([]);
  });

  it('similarity prefers the link whose anchor text matches the driving query', () => {
    const p = new SimilarityPolicy({ query: 'vacuum tuning' });
    p.onPageCrawled({
      url: 'http://a/',
      text: 'welcome to the manual about vacuum and indexes and tuning and more',
      links: [
        { url: 'http://a/x.html', anchorText: 'Routine vacuuming and vacuum tuning', context: 'see the chapter' },
        { url: 'http://a/y.html', anchorText: 'Index types', context: 'see the chapter' },
        { url: 'http://a/z.html', anchorText: 'Backup', context: 'before you vacuum read this' },
      ],
    });
    const x = p.priority('http://a/x.html');
    const y = p.priority('http://a/y.html');
    const z = p.priority('http://a/z.html');
    expect(x).toBeGreaterThan(z);
    expect(z).toBeGreaterThan(y);
    // y's only credit is its linking page's own similarity (about vacuum and tuning)...
    expect(y).toBeGreaterThan(0);
    // ...which a page about something else does not give.
    p.onPageCrawled({ url: 'http://a/other', text: 'backup and restore', links: [{ url: 'http://a/w.html', anchorText: 'Index types' }] });
    expect(p.priority('http://a/w.html')).toBe(0);
    expect(() => new SimilarityPolicy({ query: ' the ' })).toThrow(/--query/);
  });

  it('location prefers shallow URLs and home pages', () => {
    expect(locationScore('http://a.org/')).toBeGreaterThan(locationScore('http://a.org/x/y.html'));
    expect(locationScore('http://a.org/x.html')).toBeGreaterThan(locationScore('http://a.org/x/y/z.html'));
    expect(locationScore('http://a.org/x/index.html')).toBeGreaterThan(locationScore('http://a.org/x/other.html'));
    expect(locationScore('http://a.com/x.html')).toBeGreaterThan(locationScore('http://a.org/x.html'));
  });

  it('random is reproducible for a seed and differs between seeds', () => {
    const a = createOrderingPolicy('random', { seed: 1 });
    const b = createOrderingPolicy('random', { seed: 2 });
    const urls = Array.from({ length: 50 }, (_, i) => `http://h/${i}`);
    expect(urls.map((u) => a.priority(u))).toEqual(urls.map((u) => createOrderingPolicy('random', { seed: 1 }).priority(u)));
    expect(urls.map((u) => a.priority(u))).not.toEqual(urls.map((u) => b.priority(u)));
  });

  it('pagerank ranks a URL many crawled pages link to above one linked once, before and after a recomputation', async () => {
    const p = new PageRankPolicy({ refreshEvery: 3, refreshGrowth: 0, background: true });
    p.onPageCrawled(page('http://a/1', 'http://a/hub', 'http://a/lone'));
    expect(p.priority('http://a/hub')).toBeCloseTo(p.priority('http://a/lone'), 12);
    p.onPageCrawled(page('http://a/2', 'http://a/hub'));
    // The push estimate ranks the hub first at once, without waiting for the power iteration.
    expect(p.priority('http://a/hub')).toBeGreaterThan(p.priority('http://a/lone'));
    p.onPageCrawled(page('http://a/3', 'http://a/hub'));
    await p.idle();
    expect(p.refreshes).toBe(1);
    expect(p.takeChanged()).toBe('all');
    expect(p.priority('http://a/hub')).toBeGreaterThan(p.priority('http://a/lone'));
  });
});

describe('PriorityFrontier', () => {
  it('follows discovery order for a constant priority (BFS) and ignores duplicates', () => {
    const f = new PriorityFrontier(createOrderingPolicy('bfs'));
    for (const u of ['http://a/1', 'http://b/1', 'http://a/2', 'http://a/1']) f.add(u);
    expect(f.size).toBe(3);
    expect([f.pop(), f.pop(), f.pop(), f.pop()]).toEqual(['http://a/1', 'http://b/1', 'http://a/2', undefined]);
  });

  it('takes the best URL among the hosts that are ready, leaving the others queued', () => {
    const policy = new BacklinkPolicy();
    const f = new PriorityFrontier(policy);
    policy.onPageCrawled(page('http://seed/', 'http://a/top', 'http://b/mid'));
    policy.onPageCrawled(page('http://seed/2', 'http://a/top', 'http://b/mid'));
    policy.onPageCrawled(page('http://seed/3', 'http://a/top', 'http://b/low'));
    for (const u of ['http://b/low', 'http://b/mid', 'http://a/top', 'http://a/other']) f.add(u);
    expect(f.bestForHost('b')).toEqual({ url: 'http://b/mid', priority: 2 });
    expect(f.pop((h) => h !== 'a')).toBe('http://b/mid');
    expect(f.pop((h) => h === 'nobody')).toBeUndefined();
    expect(f.size).toBe(3);
    expect(f.pop()).toBe('http://a/top');
    expect(f.popFromHost('b')).toBe('http://b/low');
    expect(f.pop()).toBe('http://a/other');
    expect(f.hostCount).toBe(0);
  });

  it('re-prioritises queued URLs as their backlinks grow', () => {
    const policy = new BacklinkPolicy();
    const f = new PriorityFrontier(policy);
    policy.onPageCrawled(page('http://s/0', 'http://s/a', 'http://s/b', 'http://s/c'));
    for (const u of ['http://s/a', 'http://s/b', 'http://s/c']) f.add(u);
    expect(f.pop()).toBe('http://s/a');
    policy.onPageCrawled(page('http://s/a', 'http://s/c'));
    expect(f.priorityOf('http://s/c')).toBe(2);
    expect(f.pop()).toBe('http://s/c');
    expect(f.pop()).toBe('http://s/b');
  });

  it('drops the lowest-priority URL for a bounded buffer and can remove a URL', () => {
    const policy = new BacklinkPolicy();
    const f = new PriorityFrontier(policy);
    policy.onPageCrawled(page('http://s/0', 'http://s/a', 'http://s/a2', 'http://t/b'));
    policy.onPageCrawled(page('http://s/1', 'http://s/a', 'http://t/b'));
    for (const u of ['http://s/a', 'http://s/a2', 'http://t/b', 'http://t/c']) f.add(u);
    expect(f.dropLowest()).toBe('http://t/c');
    expect(f.dropLowest()).toBe('http://s/a2');
    expect(f.remove('http://s/a')).toBe(true);
    expect(f.remove('http://s/a')).toBe(false);
    expect(f.pop()).toBe('http://t/b');
    expect(f.size).toBe(0);
  });
});
