import { describe, it, expect } from 'vitest';
import { runOrderingLab } from '../../src/lab/ordering/run.ts';
import type { RepositoryGraph } from '../../src/lab/ordering/graph.ts';

const u = (p: string) => `http://s.test/${p}.html`;
const page = (name: string, links: string[], title = name, text = 'words') => ({ url: u(name), title, text, links: links.map((l) => ({ url: u(l) })) });

describe("seed 001's definitions in the ordering lab", () => {
  it('keyword-hot: the word in the title, or more than 10 times in the body (10 is not enough)', () => {
    const g: RepositoryGraph = {
      start: u('home'),
      pages: [
        page('home', ['a', 'b', 'c', 'd']),
        page('a', [], 'All about Vacuum'),
        page('b', [], 'b', Array(11).fill('vacuum').join(' ')),
        page('c', [], 'c', Array(10).fill('vacuum').join(' ')),
        page('d', []),
      ],
    };
    const r = runOrderingLab(g, { hot: 'keyword', query: 'vacuum', orderings: ['bfs'] });
    expect(r.hot).toMatchObject({ metric: 'keyword', count: 2 });
    expect(() => runOrderingLab(g, { hot: 'keyword', orderings: ['bfs'] })).toThrow(/--query/);
  });

  it('limited buffer: B pages kept, the least important by the ordering estimate flushed; P_BC scores the pages kept', () => {
    // home → a, b, c, hub; a, b, c → hub: the hub has the most backlinks and is the one hot page (B = 1).
    const g: RepositoryGraph = { start: u('home'), pages: [page('home', ['a', 'b', 'c', 'hub']), page('a', ['hub']), page('b', ['hub']), page('c', ['hub']), page('hub', [])] };
    const r = runOrderingLab(g, { hot: 'backlink', model: 'buffer', buffer: 1, orderings: ['backlink', 'bfs'] });
    expect(r.hot.count).toBe(1);
    const [backlink, bfs] = r.orderings;
    // Every page is still crawled: the buffer bounds what is kept, not the frontier.
    expect(backlink.crawled).toBe(5);
    expect(backlink.pbc).toBe(1); // keeps the hub, its IB' estimate is the highest
    expect(bfs.pbc).toBe(0); // no estimate: keeps the first page it crawled
  });

  it('the older bounded-frontier variant is still there as --model frontier', () => {
    const g: RepositoryGraph = { start: u('home'), pages: [page('home', ['a', 'b', 'c']), page('a', []), page('b', []), page('c', [])] };
    const r = runOrderingLab(g, { model: 'frontier', buffer: 1, orderings: ['bfs'] });
    expect(r.orderings[0].dropped).toBe(2);
    expect(r.orderings[0].crawled).toBe(2);
  });
});
