import { describe, it, expect } from 'vitest';
import { LinkGraph, pageRank, pageRankAsync, pageRankSteps } from '../../src/frontier/order/index.ts';

function graphOf(pages: Record<string, string[]>): LinkGraph {
  const g = new LinkGraph();
  for (const [url, links] of Object.entries(pages)) g.addPage(url, links);
  return g;
}

const sum = (a: Float64Array) => a.reduce((s, x) => s + x, 0);

describe('PageRank (d = 0.9)', () => {
  it('matches the hand computation on a 3-node graph and sums to 1', () => {
    // A→B, A→C, B→C, C→A. Solving IR = 0.1/3 + 0.9·Σ IR(t)/c_t by hand:
    // A = 542/1383, B = 290/1383, C = 551/1383.
    const g = graphOf({ A: ['B', 'C'], B: ['C'], C: ['A'] });
    const { rank } = pageRank(g.toCsr());
    expect(rank[g.idOf('A')!]).toBeCloseTo(542 / 1383, 9);
    expect(rank[g.idOf('B')!]).toBeCloseTo(290 / 1383, 9);
    expect(rank[g.idOf('C')!]).toBeCloseTo(551 / 1383, 9);
    expect(sum(rank)).toBeCloseTo(1, 12);
  });

  it('keeps the sum at 1 with dangling pages (uncrawled URLs) and ignores duplicate and self links', () => {
    const g = graphOf({ A: ['B', 'B', 'A', 'X'], B: ['Y', 'A'] });
    expect(g.edgeCount).toBe(4);
    expect(g.inDegree(g.idOf('B')!)).toBe(1);
    const { rank } = pageRank(g.toCsr());
    expect(sum(rank)).toBeCloseTo(1, 12);
    // A→B, A→X, B→A, B→Y: every page is linked once by a page of fan-out 2, so all four are equal
    // (and the dangling X and Y hand their rank back uniformly).
    for (const u of ['A', 'B', 'X', 'Y']) expect(rank[g.idOf(u)!]).toBeCloseTo(0.25, 12);
  });

  it('gives the same vector when run in slices, and warm-starting converges in fewer iterations', async () => {
    const pages: Record<string, string[]> = {};
    for (let i = 0; i < 300; i++) pages[`p${i}`] = [`p${(i * 7 + 1) % 300}`, `p${(i * 13 + 5) % 300}`, 'p0'];
    const csr = graphOf(pages).toCsr();
    const cold = pageRank(csr);
    let yields = 0;
    const steps = pageRankSteps(csr, { sliceEdges: 100 });
    while (!steps.next().done) yields++;
    expect(yields).toBeGreaterThan(10);
    const sliced = await pageRankAsync(csr, { sliceEdges: 100 });
    for (let v = 0; v < csr.nodeCount; v++) expect(sliced.rank[v]).toBeCloseTo(cold.rank[v], 12);
    const warm = pageRank(csr, {}, cold.rank);
    expect(warm.iterations).toBeLessThan(cold.iterations);
  });
});
