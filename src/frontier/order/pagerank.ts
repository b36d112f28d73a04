/**
 * PageRank over a CSR graph by power iteration, normalised so the ranks sum to 1:
 *   IR(p) = (1 − d)/N + d · (Σ_{t→p} IR(t)/c_t + Σ_{dangling t} IR(t)/N)
 * with d = 0.9 as in seed 001 (the seed's (1 − d) + d·Σ form is this one times N). Pages without
 * out-links, including every URL known but not crawled yet, spread their rank uniformly.
 *
 * The iteration is a generator that yields after about `sliceEdges` edge visits, so one function
 * serves both the lab (run to the end) and the live crawler (resume on the next event-loop turn).
 */
import type { CsrGraph } from './link-graph.ts';

export const SEED_DAMPING = 0.9;

export interface PageRankOptions {
  damping?: number;
  /** Stop when the L1 change of one iteration falls below this. */
  tolerance?: number;
  maxIterations?: number;
  /** Yield after about this many edge visits (only matters to pageRankAsync). */
  sliceEdges?: number;
}

export interface PageRankResult {
  rank: Float64Array;
  iterations: number;
}

/**
 * The iteration steps. `warm` (the previous vector, possibly shorter than the graph has nodes now)
 * starts the iteration near the answer; new nodes start at 1/N and the vector is renormalised.
 */
export function* pageRankSteps(graph: CsrGraph, options: PageRankOptions = {}, warm?: Float64Array): Generator<void, PageRankResult> {
  const n = graph.nodeCount;
  const d = options.damping ?? SEED_DAMPING;
  const tolerance = options.tolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 200;
  const sliceEdges = options.sliceEdges ?? 200_000;
  if (n === 0) return { rank: new Float64Array(0), iterations: 0 };
  const { inStart, inSrc, outDegree } = graph;

  let rank = new Float64Array(n);
  let total = 0;
  for (let v = 0; v < n; v++) {
    rank[v] = warm && v < warm.length ? warm[v] : 1 / n;
    total += rank[v];
  }
  for (let v = 0; v < n; v++) rank[v] /= total;

  let next = new Float64Array(n);
  const share = new Float64Array(n);
  let budget = sliceEdges;
  let iterations = 0;
  while (iterations < maxIterations) {
    let dangling = 0;
    for (let u = 0; u < n; u++) {
      const c = outDegree[u];
      if (c === 0) {
        dangling += rank[u];
        share[u] = 0;
      } else share[u] = rank[u] / c;
    }
    const base = (1 - d) / n + (d * dangling) / n;
    let delta = 0;
    for (let v = 0; v < n; v++) {
      let sum = 0;
      const end = inStart[v + 1];
      for (let j = inStart[v]; j < end; j++) sum += share[inSrc[j]];
      const x = base + d * sum;
      delta += Math.abs(x - rank[v]);
      next[v] = x;
      budget -= end - inStart[v] + 1;
      if (budget <= 0) {
        budget = sliceEdges;
        yield;
      }
    }
    [rank, next] = [next, rank];
    iterations++;
    if (delta < tolerance) break;
  }
  return { rank, iterations };
}

/** Runs to convergence without yielding (the lab, tests, small graphs). */
export function pageRank(graph: CsrGraph, options: PageRankOptions = {}, warm?: Float64Array): PageRankResult {
  const steps = pageRankSteps(graph, options, warm);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs in slices, giving the event loop a turn between them (the live crawler: fetches keep going). */
export async function pageRankAsync(graph: CsrGraph, options: PageRankOptions = {}, warm?: Float64Array): Promise<PageRankResult> {
  const steps = pageRankSteps(graph, options, warm);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
