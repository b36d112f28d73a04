import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { Knowledge } from '../../src/crawler/follow/knowledge.ts';
import { analyseQuery } from '../../src/query/sparql-text.ts';
import { startScholarlyWeb, type ScholarlyWeb } from '../../src/testkit/scholarly-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { tempDir } from '../helpers.ts';

/**
 * Seed 003's Erdős-number benchmark on the generated scholarly Web: a query-driven crawl from Erdős's
 * page (following only authors and their papers) learns enough to compute every researcher's Erdős
 * number with SPARQL, and the numbers are the generator's ground truth.
 */
describe('Erdős numbers from a query-driven crawl of a scholarly Web', () => {
  let site: ScholarlyWeb;
  let proxy: ForwardProxy;
  beforeAll(async () => {
    site = await startScholarlyWeb({ papers: 60, hosts: 5 });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.scholar.test') ? site.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await site?.close();
  });

  it('the generator mixes RDFa, JSON-LD and microdata, 303s and a connected co-authorship graph', () => {
    const html = site.web.papers.map((_p, i) => site.web.paperHtml(i));
    expect(html.some((h) => h.includes('typeof="ScholarlyArticle"'))).toBe(true);
    expect(html.some((h) => h.includes('application/ld+json'))).toBe(true);
    expect(html.some((h) => h.includes('itemscope'))).toBe(true);
    expect(html.some((h) => h.includes('/id/'))).toBe(true);
    const truth = site.web.erdosNumbers();
    expect(Math.max(...truth.values())).toBeGreaterThanOrEqual(2);
  });

  it('computes every reachable researcher\'s Erdős number by SPARQL over what the crawl learnt, as the ground truth says', async () => {
    const k = new Knowledge();
    const follow = 'SELECT ?next WHERE { { ?p schema:author ?next } UNION { ?a schema:subjectOf ?next } }';
    const c = crawl({ seeds: [site.seed], dataDir: tempDir(), proxy: proxy.url, resolve: {}, allowPrivate: true, delayMs: 0, perHost: 2, domains: ['scholar.test'], depth: 100, follow });
    for await (const doc of c) if (doc.status === 200) k.add(doc.finalUrl ?? doc.url, doc.quads);
    // Level by level: the co-authors of level n not numbered yet are level n + 1.
    const numbers = new Map<string, number>([[site.web.person(0), 0]]);
    for (let level = [site.web.person(0)], n = 1; level.length; n++) {
      const q = analyseQuery(`SELECT DISTINCT ?b WHERE { VALUES ?a { ${level.map((a) => `<${a}>`).join(' ')} } ?p schema:author ?a , ?b }`);
      level = [...k.boundIris(q)].filter((b) => !numbers.has(b));
      for (const b of level) numbers.set(b, n);
    }
    k.close();
    const truth = new Map([...site.web.erdosNumbers()].map(([a, n]) => [site.web.person(a), n]));
    expect(numbers).toEqual(truth);
    expect(c.summary!.query!.bindings).toBeGreaterThan(0);
  }, 120_000);
});
