/** Frontier ordering by importance (seed 001): policies, the per-host priority frontier, and their parts. */
export type { CrawledLink, CrawledPage, OrderingName, OrderingPolicy } from './policy.ts';
export { ORDERING_NAMES, isOrderingName } from './policy.ts';
export {
  BacklinkPolicy,
  BfsPolicy,
  createOrderingPolicy,
  LocationPolicy,
  PageRankPolicy,
  RandomPolicy,
  SimilarityPolicy,
  type OrderingOptions,
} from './policies.ts';
export { PriorityFrontier, type FrontierPeek, type PriorityFrontierOptions } from './priority-frontier.ts';
export { LinkGraph, type CsrGraph } from './link-graph.ts';
export { pageRank, pageRankAsync, pageRankSteps, SEED_DAMPING, type PageRankOptions, type PageRankResult } from './pagerank.ts';
export { locationScore } from './location.ts';
export { addTerms, cosineSimilarity, DocumentFrequencies, termCounts, tokenize, type TermCounts } from './text.ts';
