/**
 * The importance metrics of seed 001 over the whole repository (what the virtual crawler is scored
 * against, unlike the estimates it orders by): IS similarity to the driving query, IB backlinks,
 * IR PageRank, IF forward links, IL location, and the seed's own similarity rule (keyword: a query
 * word in the title or more than 10 times in the body). And the hot pages by threshold G or top K.
 */

/** Seed 001's similarity experiment: hot if the word is in the title or "more than 10 occurrences" in the body. */
export const KEYWORD_BODY_MIN = 11;
import { OptionError, UserError } from '../../util/errors.ts';
import { LinkGraph } from '../../frontier/order/link-graph.ts';
import { locationScore } from '../../frontier/order/location.ts';
import { pageRank } from '../../frontier/order/pagerank.ts';
import { cosineSimilarity, DocumentFrequencies, termCounts, tokenize } from '../../frontier/order/text.ts';
import type { IndexedRepository } from './graph.ts';

export const IMPORTANCE_NAMES = ['backlink', 'pagerank', 'similarity', 'keyword', 'forward', 'location'] as const;
export type ImportanceName = (typeof IMPORTANCE_NAMES)[number];

export function pageText(page: { title?: string; text?: string }): string {
  return page.title ? `${page.title} ${page.text ?? ''}` : page.text ?? '';
}

export function importanceOf(repo: IndexedRepository, metric: ImportanceName, query?: string): Float64Array {
  const n = repo.pages.length;
  const values = new Float64Array(n);
  switch (metric) {
    case 'backlink':
      for (const targets of repo.out) for (const t of targets) values[t]++;
      return values;
    case 'forward':
      repo.out.forEach((targets, i) => (values[i] = targets.length));
      return values;
    case 'location':
      repo.pages.forEach((p, i) => (values[i] = locationScore(p.url)));
      return values;
    case 'pagerank': {
      const g = new LinkGraph();
      // Interning every page first makes the graph's ids the page indexes.
      for (const p of repo.pages) g.intern(p.url);
      repo.out.forEach((targets, i) => g.addPage(repo.pages[i].url, targets.map((t) => repo.pages[t].url)));
      return pageRank(g.toCsr()).rank;
    }
    case 'keyword': {
      const words = [...new Set(tokenize(query ?? ''))];
      if (words.length === 0) throw new UserError('keyword importance needs a word: give --query WORD');
      repo.pages.forEach((p, i) => {
        const title = new Set(tokenize(p.title ?? ''));
        const body = termCounts(p.text ?? '');
        values[i] = words.some((w) => title.has(w) || (body.get(w) ?? 0) >= KEYWORD_BODY_MIN) ? 1 : 0;
      });
      return values;
    }
    case 'similarity': {
      const q = termCounts(query ?? '');
      if (q.size === 0) throw new UserError('similarity importance needs a driving query: give --query "some words"');
      const df = new DocumentFrequencies();
      const docs = repo.pages.map((p) => termCounts(pageText(p)));
      for (const d of docs) df.addDocument(d.keys());
      const idf = (t: string) => df.idf(t);
      docs.forEach((d, i) => (values[i] = cosineSimilarity(d, q, idf)));
      return values;
    }
  }
}

export type HotRule = { top: number } | { threshold: number };

export interface HotSet {
  hot: Uint8Array;
  count: number;
  /** The importance a page needs to be hot (G, or the K-th highest value). */
  threshold: number;
}

/** Hot pages: I(p) ≥ G, or the top K (with every page tied with the K-th: the seed's I(p) ≥ I(r_K)). */
export function hotPages(importance: Float64Array, rule: HotRule): HotSet {
  let threshold: number;
  if ('top' in rule) {
    if (!Number.isInteger(rule.top) || rule.top < 1) throw new OptionError('top', 'must be a positive whole number');
    const sorted = Float64Array.from(importance).sort().reverse();
    threshold = sorted[Math.min(rule.top, sorted.length) - 1];
  } else threshold = rule.threshold;
  // A value every page reaches (similarity 0 when fewer than K pages match the query) marks
  // nothing: those pages are not hot, else a short list of matches would make every page hot.
  const floor = importance.reduce((m, v) => Math.min(m, v), Infinity);
  const strict = 'top' in rule && threshold === floor && importance.some((v) => v > floor);
  const hot = new Uint8Array(importance.length);
  let count = 0;
  importance.forEach((v, i) => {
    if (strict ? v > threshold : v >= threshold) {
      hot[i] = 1;
      count++;
    }
  });
  return { hot, count, threshold };
}

/**
 * P_CS(K) for every K at once (crawl and stop): the share of the first K pages crawled whose
 * importance is at least the K-th highest. A page p crawled at position i counts for every
 * K > max(i, above(p)), above(p) being how many pages are strictly more important, so one pass
 * over a histogram gives all K in O(N log N).
 */
export function crawlAndStopCurve(importance: Float64Array, order: ArrayLike<number>): Float64Array {
  const n = importance.length;
  const ranked = Array.from(importance.keys()).sort((a, b) => importance[b] - importance[a]);
  const above = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const v = importance[ranked[r]];
    above[ranked[r]] = r > 0 && importance[ranked[r - 1]] === v ? above[ranked[r - 1]] : r;
  }
  const countsFrom = new Int32Array(n + 1);
  for (let i = 0; i < order.length; i++) countsFrom[Math.max(i, above[order[i]]) + 1]++;
  const pcs = new Float64Array(order.length);
  let counted = 0;
  for (let k = 1; k <= order.length; k++) {
    counted += countsFrom[k];
    pcs[k - 1] = counted / k;
  }
  return pcs;
}
