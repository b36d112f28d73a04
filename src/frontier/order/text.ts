/**
 * Words and TF-IDF for the similarity metric IS (seed 001): a document and the driving query are
 * term vectors weighted by count × IDF, compared by cosine. The IDF is whatever collection the
 * caller has seen: the pages crawled so far in a live crawl (IS'), the whole repository in the lab.
 */

/** Words too common to say anything about a page's topic. */
const STOPWORDS = new Set(
  ('a an and are as at be by for from has have in is it its of on or that the this to was were will with ' +
    'which can not no if into than then there these they you your we our all any also may must such').split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of two characters or more, stopwords removed. */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const w = match[0];
    if (w.length > 1 && !STOPWORDS.has(w)) words.push(w);
  }
  return words;
}

export type TermCounts = Map<string, number>;

/** Adds the words to the counts, each `weight` times (e.g. to count anchor words more than context). */
export function addTerms(counts: TermCounts, words: readonly string[], weight = 1): TermCounts {
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + weight);
  return counts;
}

export function termCounts(text: string): TermCounts {
  return addTerms(new Map(), tokenize(text));
}

/** Document frequencies of a growing collection. */
export class DocumentFrequencies {
  private readonly df = new Map<string, number>();
  private docs = 0;

  get documentCount(): number {
    return this.docs;
  }

  addDocument(terms: Iterable<string>): void {
    this.docs++;
    for (const t of new Set(terms)) this.df.set(t, (this.df.get(t) ?? 0) + 1);
  }

  /**
   * Smoothed IDF, ln((1 + N) / (1 + df)) + 1: the seed's 1/df would let one rare word swamp a
   * vector, and the smoothing keeps words never seen yet (an early crawl) finite and highest.
   */
  idf(term: string): number {
    return Math.log((1 + this.docs) / (1 + (this.df.get(term) ?? 0))) + 1;
  }
}

/**
 * Cosine between a document's and the query's TF-IDF vectors. Only the query's terms contribute to
 * the inner product, but the document's norm needs all its terms: O(document terms).
 */
export function cosineSimilarity(doc: TermCounts, query: TermCounts, idf: (term: string) => number): number {
  if (doc.size === 0 || query.size === 0) return 0;
  let dot = 0;
  let queryNorm = 0;
  for (const [term, count] of query) {
    const w = idf(term);
    const q = count * w;
    queryNorm += q * q;
    const d = doc.get(term);
    if (d !== undefined) dot += q * d * w;
  }
  if (dot === 0) return 0;
  let docNorm = 0;
  for (const [term, count] of doc) {
    const x = count * idf(term);
    docNorm += x * x;
  }
  return dot / Math.sqrt(docNorm * queryNorm);
}
