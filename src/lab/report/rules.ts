/**
 * Every lab claim's test, declared once and before the figures it judges: the seed's sentence, the
 * quantity measured, the threshold (the seed's own where its wording gives one) and the setting the
 * seed measured in. Providers compute the quantities and the lab's setting and ask the rule for the
 * verdict; where the lab's setting differs materially from the seed's the verdict is "not testable
 * here", the figures stay in `measured` as an observation, and `testableWhen` says what data would
 * make the claim testable (a run with such data then gives a verdict under the same rule).
 */
import type { Outcome } from './types.ts';

/** What the lab measured in: only the fields a rule reads need be set. */
export interface LabSetting {
  /** Pages of the site a virtual crawl ran over. */
  pages?: number;
  /** Requests of a cache trace, and its hosts; generated: drawn from statistics, not a crawl's log. */
  requests?: number;
  hosts?: number;
  generated?: boolean;
  distinct?: number;
  /** Longest crawl timed, seconds. */
  crawlSeconds?: number;
  /** Documents in a change-frequency band (the file with the most). */
  bandDocuments?: number;
}

export interface Rule {
  /** The report's claim id, without its per-data suffix (`-pg`, `-multihost`, `-minutes`). */
  id: string;
  seed: string;
  /** The seed's sentence, in its words. */
  sentence: string;
  quantity: string;
  /** The threshold, and where its number comes from. */
  threshold: string;
  /** Size, duration, load and protocol the seed measured in. */
  seedSetting: string;
  /** The setting that makes the claim testable here. */
  testableWhen: string;
  /** Why `lab` is not that setting; undefined when it is. */
  gap(lab: LabSetting): string | undefined;
}

/** "Close to gold" in a band: within this distance in (recall, precision), as a fraction. */
export const BAND_NEAR = 0.05;

/** Seed 002's cache size, in entries: "a cache of about 50,000 entries". */
export const SEED_CACHE_ENTRIES = 50_000;

const always = () => undefined;
const PAGES_001 = 100_000;
const REQUESTS_002 = 1_000_000;
const CRAWL_000_S = 30 * 60;
const BAND_DOCS_000 = 300;

const largeSite = (lab: LabSetting) =>
  lab.pages === undefined || lab.pages < PAGES_001 ? `the site has ${lab.pages?.toLocaleString('en') ?? 'an unknown number of'} pages; the seed's repository had 179,000 (testable from ${PAGES_001.toLocaleString('en')})` : undefined;
const crawlTrace = (real: boolean) => (lab: LabSetting) => {
  const why: string[] = [];
  if ((lab.requests ?? 0) < REQUESTS_002) why.push(`${lab.requests?.toLocaleString('en') ?? '?'} requests (testable from ${REQUESTS_002.toLocaleString('en')}; the seed's trace had over 1,000,000,000)`);
  if ((lab.hosts ?? 0) < 2) why.push('one host (the seed crawled the Web)');
  if (real && lab.generated) why.push("a generated trace: the hit rates depend on a real crawl's URL distribution");
  return why.length ? why.join('; ') : undefined;
};
const longCrawls = (lab: LabSetting) =>
  (lab.crawlSeconds ?? 0) < CRAWL_000_S ? `the lab's crawls last at most ${(lab.crawlSeconds ?? 0).toFixed(0)} s on a shared machine; the seed's 1,388 crawls lasted 30 min to 2 h (testable with crawls of ≥ 30 min)` : undefined;
const bandSize = (lab: LabSetting) =>
  (lab.bandDocuments ?? 0) < BAND_DOCS_000 ? `at most ${lab.bandDocuments ?? 0} documents in the band on any file; the seed grouped about 300 per band (testable from ${BAND_DOCS_000})` : undefined;

const STANFORD = "virtual crawls over 179,000 Stanford pages (WebBase, 1998), threshold, crawl-and-stop and buffer models";
const TRACE_002 = 'a 33-day crawl of the Web: over 1,000,000,000 HTTP requests on many hosts';
const WIKI_000 = "2,660 Wikipedia articles' revision histories, the first 3 years, re-crawl intervals 1 day–6 months";

/** Seed 001: the Stanford claims, one rule each; the report's ids add the hot share or site. */
const ORDERING: Rule[] = [
  { id: '001-pagerank-best-backlink', sentence: 'PageRank ordering finds backlink-hot pages earliest (hot = the top 45 %, 10 %, 0.8 % by backlinks).', quantity: "the curve mean (share of the hot pages found, averaged over the crawl), PageRank's minus each other ordering's, paired over the hot pages", threshold: 'every difference above 0 with its Holm-corrected 95 % interval over the hot pages (a tie is a tie, not a win)' },
  { id: '001-hot-early', sentence: 'With a good ordering (PageRank) a crawler gets a significant portion of the hot pages relatively early.', quantity: 'share of the top-10 % backlink-hot pages found after 25 % of the crawl', threshold: 'at least half (random finds about a quarter)' },
  { id: '001-pagerank-best-pagerank-g13', sentence: 'PageRank ordering finds PageRank-hot pages (G = 13) earliest.', quantity: "curve mean, PageRank's minus each other ordering's, paired over the hot pages", threshold: 'every difference above 0, Holm-corrected 95 % intervals; at least 3 hot pages' },
  { id: '001-pagerank-best-crawl-and-stop', sentence: 'The PageRank result holds for crawl and stop (P_CS).', quantity: 'P_CS curve mean of each ordering', threshold: "PageRank's strictly above every other's (no tie tolerance; this curve is not a mean over pages, so no interval)" },
  { id: '001-pagerank-best-buffer', sentence: 'The PageRank result holds for the limited-buffer model (P_BC).', quantity: 'P_BC when the crawl ends', threshold: "PageRank's strictly above every other's (no tie tolerance)" },
  { id: '001-keyword-only-bfs', sentence: 'Similarity-hot pages: backlink and PageRank orderings are no better than random; only breadth-first gives a reasonable result.', quantity: "curve mean of each ordering against random's (5 seeds)", threshold: 'bfs more than 0.05 above random, backlink and PageRank not; at least 5 hot pages' },
].map((r) => ({ ...r, seed: '001', seedSetting: STANFORD, testableWhen: `a site of at least ${PAGES_001.toLocaleString('en')} pages`, gap: largeSite }));

export const RULES: Rule[] = [
  ...ORDERING,
  {
    id: '001-small-site-worse-than-random', seed: '001', sentence: 'On a small site (~1,100 pages) every ordering does worse than a random crawler.', quantity: 'curve mean of each ordering against random over 5 seeds (backlink-hot, top 10 %)', threshold: 'no ordering more than 0.005 above random',
    seedSetting: '1,100 pages of the Stanford Database Group', testableWhen: 'a site of 500–3,000 pages',
    gap: (lab) => ((lab.pages ?? 0) < 500 || (lab.pages ?? 0) > 3000 ? `${lab.pages ?? 0} pages, not the seed's ~1,100` : undefined),
  },
  {
    id: '001-scale', seed: '001', sentence: 'Ordering pays less on a small site than on a large one (better than random on 179,000 pages, worse on 1,100).', quantity: "PageRank's curve mean minus random's on the smallest and the largest site", threshold: 'below 0 on the small site, above 0 on the large one',
    seedSetting: '179,000 and 1,100 pages (a factor of 160)', testableWhen: `two sites at least 10 times apart, the larger of at least ${PAGES_001.toLocaleString('en')} pages`, gap: largeSite,
  },
  {
    id: '002-small-cache-80', seed: '002', sentence: 'A cache of about 50,000 entries can achieve a hit rate of almost 80 %.', quantity: 'hit rate of the better of LRU and CLOCK with 50,000 entries (the seed\'s number, not scaled: the seed gives it as a count of entries, not a share of the URLs)', threshold: "at least 75 % (\"almost 80 %\")",
    seedSetting: TRACE_002, testableWhen: `a real multi-host crawl trace of at least ${REQUESTS_002.toLocaleString('en')} requests and more than ${SEED_CACHE_ENTRIES.toLocaleString('en')} distinct URLs`,
    gap: (lab) => [crawlTrace(true)(lab), (lab.distinct ?? 0) <= SEED_CACHE_ENTRIES ? `${lab.distinct?.toLocaleString('en') ?? '?'} distinct URLs: a cache of ${SEED_CACHE_ENTRIES.toLocaleString('en')} would hold them all` : undefined].filter(Boolean).join('; ') || undefined,
  },
  {
    id: '002-knee', seed: '002', sentence: 'The cache size falls on a critical point: a smaller cache is much less effective, a larger one brings little more.', quantity: "LRU's share of the way from 1 entry to the infinite cache", threshold: '80 % of it reached at ≤ a quarter of the distinct URLs and under 60 % at a quarter of that size (the seed gives no number)',
    seedSetting: TRACE_002, testableWhen: `a real multi-host crawl trace of at least ${REQUESTS_002.toLocaleString('en')} requests`, gap: crawlTrace(true),
  },
  ...[
    { id: '002-clock-like-lru', sentence: 'CLOCK performs about as well as LRU.', quantity: 'largest miss-ratio gap over the sizes simulated', threshold: 'at most 0.03' },
    { id: '002-random-close', sentence: 'Random replacement is not far behind LRU and CLOCK.', quantity: "random's miss ratio minus LRU's, largest over the sizes", threshold: 'at most 0.1' },
  ].map((r) => ({ ...r, seed: '002', seedSetting: TRACE_002, testableWhen: `a multi-host trace of at least ${REQUESTS_002.toLocaleString('en')} requests (generated from published statistics or a real crawl's)`, gap: crawlTrace(false) })),
  { id: '002-min-floor', seed: '002', sentence: 'The clairvoyant cache (MIN) bounds every practical policy.', quantity: 'sizes where a practical policy misses less than MIN', threshold: 'none (a theorem: any trace tests it)', seedSetting: TRACE_002, testableWhen: 'any trace', gap: always },
  ...[
    { id: '000-heuristic-overestimates', sentence: 'Our current heuristic tends to overestimate the crawls by a large factor.', quantity: 'crawls over- and underestimated; median estimate ÷ actual', threshold: 'more over than under and a median ratio above 1.5 ("a large factor")' },
    { id: '000-underestimation-small', sentence: 'The underestimation is very small considering the overall crawl times.', quantity: 'mean underestimation over the underestimated crawls', threshold: 'at most 20 % (the seed: about 10 minutes on 60)' },
    { id: '000-heuristic-overestimates-real-per-host', sentence: "The heuristic overestimates by a large factor (given the fetcher's real requests in flight per host).", quantity: 'as 000-heuristic-overestimates', threshold: 'as 000-heuristic-overestimates' },
  ].map((r) => ({ ...r, seed: '000', seedSetting: "1,388 crawls of 30 min to 2 h on the Web (Table 3)", testableWhen: 'crawls of at least 30 minutes each', gap: longCrawls })),
  ...[
    { id: '000-band-2d-1w-state-near-gold', sentence: 'Figure 5 (2 days–1 week): the probabilistic strategies (state-*) are close to the performance of the actual change frequency (gold).', expect: 'state-1 or state-2' },
    { id: '000-band-4-6m-window-near-gold', sentence: 'Figure 6 (4–6 months): the window strategy performs very similar to the actual change frequency.', expect: 'window' },
  ].map(({ expect, ...r }) => ({
    ...r, seed: '000', quantity: 'distance from gold in (micro recall, micro precision), in points, of each seed strategy on the band\'s documents', threshold: `${expect} the closest of the seed strategies AND within ${BAND_NEAR * 100} points of gold ("close", "very similar": the seed gives no number; ${BAND_NEAR * 100} points is a twentieth of the scale)`,
    seedSetting: `${WIKI_000}; about 300 documents per band`, testableWhen: `at least ${BAND_DOCS_000} documents in the band`, gap: bandSize,
  })),
  ...[
    { id: '000-week-best-recall-worst-precision', sentence: 'The week strategy performs overall the best in terms of recall and worst in terms of precision.', quantity: 'rank of week among fix, dyn, window, state-1, state-2, gold, week by micro recall and by micro precision, per file', threshold: "week's micro recall minus each other's, and each other's micro precision minus week's: all 12 Holm-corrected 95 % intervals over documents above 0 (a tie is not a win), on every file (mixed: on some)" },
    { id: '000-state-second-recall', sentence: 'The probabilistic strategies state-1 state-2 are the second best in terms of recall.', quantity: 'rank of the better of state-1/state-2 by micro recall, week left out', threshold: 'the better of state-1/state-2 (chosen in each resample) above each of fix, dyn, window, gold, Holm-corrected 95 % intervals over documents, on every file (mixed: on some)' },
    { id: '000-window-very-low-recall', sentence: 'The window strategy should not be considered due to its very low recall values.', quantity: "window's micro recall minus the median of fix, dyn, state-1, state-2, gold", threshold: 'more than 10 points under ("very low": the seed gives no number), the 95 % interval over documents of the shortfall past 10 points above 0' },
  ].map((r) => ({ ...r, seed: '000', seedSetting: `${WIKI_000}; Figure 4: all documents`, testableWhen: "real change histories under the seed's protocol (the lab's files are other sites' histories: the same kind of data)", gap: always })),
  {
    id: '000-estimator-datamonitor', seed: '000', sentence: "(datamonitor's own) The politeness-aware estimator is more accurate than the seed's heuristic.", quantity: "the seed heuristic's |estimate − actual| / actual minus datamonitor's, per crawl, mean over the crawls", threshold: 'its 95 % bootstrap interval over the crawls above 0 (a lower mean error alone is not a win)',
    seedSetting: "the lab's own claim, on the lab's crawls (the seed timed crawls of 30 min–2 h)", testableWhen: 'any batch of timed crawls', gap: always,
  },
  {
    id: '000-datamonitor-beats-seed-heldout', seed: '000', sentence: "A datamonitor strategy, tuned leaving the file out, catches more changes than the best live seed strategy at equal downloads (1.25, 1.5 and 2 × gold's).", quantity: 'micro recall difference at each budget, paired bootstrap over documents', threshold: "each budget's Holm-corrected 95 % interval above 0, the family being every held-out file × budget of one protocol; a budget a curve does not reach is stated, not dropped",
    seedSetting: 'the lab\'s own claim (the seed proposes state-* as the way forward)', testableWhen: 'at least two history files', gap: always,
  },
];

export function rule(id: string): Rule {
  const r = RULES.find((x) => x.id === id);
  if (!r) throw new Error(`no rule declared for claim ${id}`);
  return r;
}

/**
 * The verdict of claim `id` in `lab`'s setting: "not testable here" with the figures kept as an
 * observation when the setting differs materially from the seed's, else what `outcome` concludes.
 */
export function judge(id: string, lab: LabSetting, measured: string, outcome: () => Outcome): { verdict: Outcome; measured: string } {
  const why = rule(id).gap(lab);
  if (why) return { verdict: 'not testable here', measured: `observed, not judged: ${measured}. Not the seed's setting: ${why}` };
  return { verdict: outcome(), measured };
}
