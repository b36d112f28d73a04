import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions } from '../../src/crawler/crawl.ts';
import { linkedDataWeb, startLinkedDataWeb, type LinkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { OptionError } from '../../src/util/errors.ts';
import { crawlLog, LOADED_TIMEOUT_MS, runMain, tempDir } from '../helpers.ts';

/**
 * Query-driven crawling (issue #17) on a generated multi-host Web of Linked Data, reached through a
 * forward proxy that knows only the Web's hosts: --follow fetches exactly what its query binds,
 * depth still applies, --until stops once its question is answered, --answer fetches what its
 * query's patterns lead to and says where each answer came from, and a broken query fails first.
 */

const DOCS = 60;
const V = 'http://vocab.lod.test/ns#';
const PREFIXES = `PREFIX v: <${V}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>`;

/** The IRIs document i gives for a property, read from the document the Web serves (not from the generator's internals). */
function objects(gen: ReturnType<typeof linkedDataWeb>, i: number, property: string): string[] {
  const re = new RegExp(`${property} <([^>]+)>`, 'g');
  return [...gen.turtle(i).matchAll(re)].map((m) => m[1]);
}

const docNumber = (url: string) => Number(/\/(?:doc|id)\/(\d+)$/.exec(url)?.[1]);

describe('query-driven crawling on a generated Web of Linked Data', () => {
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  const gen = linkedDataWeb({ documents: DOCS, hosts: 6 });

  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: DOCS, hosts: 6 });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  const options = (o: Partial<CrawlOptions>): CrawlOptions => ({
    seeds: [web.seed], dataDir: tempDir(), proxy: proxy.url, resolve: {}, allowPrivate: true,
    delayMs: 0, perHost: 2, domains: ['lod.test'], depth: 50, ...o,
  });

  /** The documents whose body was fetched and archived (200), by number. */
  const fetchedDocs = (dataDir: string) => new Set(crawlLog(dataDir).filter((e) => e.status === 200 && /\/doc\/\d+$/.test(e.url)).map((e) => docNumber(e.url)));

  it('--follow fetches exactly the documents its query binds, and nothing the documents merely link to', async () => {
    // The seeAlso closure of the active resources from document 0, worked out from the served documents.
    const expected = new Set([0]);
    for (const queue = [0]; queue.length;) {
      const i = queue.shift()!;
      if (!gen.turtle(i).includes('v:active true')) continue;
      for (const u of objects(gen, i, 'rdfs:seeAlso')) {
        const j = docNumber(u);
        if (!expected.has(j)) (expected.add(j), queue.push(j));
      }
    }
    expect(expected.size).toBeLessThan(DOCS); // else the test could not tell following from crawling
    const o = options({ follow: `${PREFIXES} SELECT ?next WHERE { ?r v:active true ; rdfs:seeAlso ?next }` });
    const summary = await crawl(o).run();
    expect(fetchedDocs(o.dataDir)).toEqual(expected);
    const asked = crawlLog(o.dataDir).map((e) => e.url as string);
    // Linked but not bound: the v:related resources (other than via the seed), homepages, vocabularies.
    expect(asked.filter((u) => /\/page\/|terms\.ttl|\/ns$/.test(u))).toEqual([]);
    expect(asked.filter((u) => /\/id\//.test(u))).toEqual([web.seed]);
    // Every document but the seed's was fetched because the query bound it.
    expect(summary.query?.bindings).toBeGreaterThanOrEqual(expected.size - 1);
    expect(summary.query?.learnt.documents).toBe(expected.size);
  }, 180_000);

  it('--follow runs its query in batches that grow with what was learnt, not once per document', async () => {
    const q = `${PREFIXES} SELECT ?next WHERE { ?r v:related ?next }`;
    const auto = await crawl(options({ follow: q })).run();
    const every = await crawl(options({ follow: q, followBatch: 'every' })).run();
    // The same documents either way (every one is some resource's v:related, through its 303)...
    expect(auto.query!.learnt.documents).toBe(DOCS);
    expect(every.query!.learnt.documents).toBe(DOCS);
    // ...for one query run per document, or a few.
    expect(every.query!.evaluations).toBe(DOCS);
    expect(auto.query!.evaluations).toBeLessThan(DOCS / 2);
  }, 180_000);

  it('--follow keeps --depth: bindings learnt from the seed are depth 1, theirs depth 2', async () => {
    const o = options({ follow: `${PREFIXES} SELECT ?next WHERE { ?r rdfs:seeAlso ?next }`, depth: 1 });
    const summary = await crawl(o).run();
    const expected = new Set([0, ...objects(gen, 0, 'rdfs:seeAlso').map(docNumber)]);
    expect(fetchedDocs(o.dataDir)).toEqual(expected);
    expect(summary.reasons['filtered-depth']).toBeGreaterThan(0);
  }, 180_000);

  it('--follow-archive: a second crawl\'s query also sees what the archive learnt before', async () => {
    const dataDir = tempDir();
    // First crawl: the seed's document only.
    await crawl(options({ dataDir, depth: 0 })).run();
    // The follow query needs the seed's v:related links, which only the archive knows (the seed is not fetched again).
    const q = `${PREFIXES} SELECT ?next WHERE { <${web.resource(0)}> v:related ?next }`;
    const without = await crawl(options({ dataDir, seeds: [web.seed], follow: q })).run();
    expect(without.query?.bindings).toBe(0);
    const withArchive = await crawl(options({ dataDir, seeds: [web.seed], follow: q, followArchive: true })).run();
    const related = objects(gen, 0, 'v:related').map(docNumber);
    expect(withArchive.query?.bindings).toBe(related.length);
    for (const j of related) expect(fetchedDocs(dataDir)).toContain(j);
  }, 180_000);

  it('--until stops the crawl once its question is answered, and says so', async () => {
    const target = objects(gen, objects(gen, 0, 'v:related').map(docNumber)[3], 'v:related').map(docNumber)[5];
    const o = options({ until: `${PREFIXES} ASK { ?r v:identifier ${target} }`, followBatch: 'every', concurrency: 1, perHost: 1 });
    const summary = await crawl(o).run();
    expect(summary.stoppedBy).toBe('answered');
    expect(summary.stopMessage).toMatch(/--until question was answered/);
    expect(summary.query?.answered).toBe(true);
    expect(fetchedDocs(o.dataDir)).toContain(target);
    // A whole crawl would have fetched every document; this one stopped early.
    expect(fetchedDocs(o.dataDir).size).toBeLessThan(DOCS);
  }, 180_000);

  it('--until that is never true lets the crawl end normally, saying it was not answered', async () => {
    const o = options({ until: `${PREFIXES} ASK { ?r v:identifier ${DOCS + 5} }`, depth: 1 });
    const summary = await crawl(o).run();
    expect(summary.stoppedBy).toBeUndefined();
    expect(summary.query?.answered).toBe(false);
  }, 180_000);

  it('--answer fetches what the query\'s patterns lead to and gives each answer with its documents', async () => {
    const related = objects(gen, 0, 'v:related').map(docNumber);
    const q = `${PREFIXES} SELECT ?x ?label WHERE { <${web.resource(0)}> v:related ?x . ?x rdfs:label ?label FILTER(lang(?label) = "en") }`;
    const o = options({ seeds: [], answer: q });
    const summary = await crawl(o).run();
    const rows = summary.query!.answer!.rows;
    expect(rows.map((r) => r.binding.label.value).sort()).toEqual(related.map((j) => `Resource ${j}`).sort());
    for (const r of rows) {
      const j = docNumber(r.binding.x.value as string);
      expect(r.documents).toEqual([web.document(0), web.document(j)].sort());
    }
    // Exactly the seed's document and the related ones: no seeAlso, homepage or vocabulary.
    expect(fetchedDocs(o.dataDir)).toEqual(new Set([0, ...related]));
    expect(crawlLog(o.dataDir).filter((e) => /\/page\/|terms\.ttl|\/ns$/.test(e.url))).toEqual([]);
  }, 180_000);

  it('on the command line, --answer prints the answer and its documents, and --json carries both', async () => {
    const related = objects(gen, 0, 'v:related').map(docNumber);
    const q = `${PREFIXES} SELECT ?label WHERE { <${web.resource(0)}> v:related ?x . ?x rdfs:label ?label FILTER(lang(?label) = "en") }`;
    const flags = ['--proxy', proxy.url, '--allow-private', '--delay', '0', '--domain', 'lod.test', '--answer', q];
    // The command's output is the point, not a process start-up (tens of seconds under load, #14): in this process.
    const text = await runMain(['crawl', '--data', tempDir(), ...flags]);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(/query-driven: learnt \d+ documents/);
    for (const j of related) expect(text.out).toContain(`"Resource ${j}"@en`);
    expect(text.out).toContain('documents of each result:');
    expect(text.out).toContain(web.document(0));
    const json = await runMain(['crawl', '--data', tempDir(), ...flags, '--json']);
    const answer = JSON.parse(json.out).query.answer;
    expect(answer.vars).toEqual(['label']);
    expect(answer.rows).toHaveLength(related.length);
    for (const r of answer.rows) expect(r.documents).toContain(web.document(0));
  }, LOADED_TIMEOUT_MS);

  it('on the command line, a broken query names its flag and exits 64 before fetching', async () => {
    const before = web.requests.length;
    const r = await runMain(['crawl', web.seed, '--data', tempDir(), '--proxy', proxy.url, '--allow-private', '--follow', 'SELECT ?next WHERE { ?a ?b']);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/--follow is not a query that can run: SPARQL syntax error at line 1, column \d+/);
    expect(web.requests.length).toBe(before);
  });

  it('a broken or wrong-form query is an OptionError before anything is fetched', async () => {
    const before = web.requests.length;
    const cases: Array<[Partial<CrawlOptions>, string, RegExp]> = [
      [{ follow: 'SELECT ?next WHERE { ?a ?b ' }, 'follow', /not a query that can run/],
      [{ follow: 'ASK { ?a ?b ?c }' }, 'follow', /must be a SPARQL SELECT/],
      [{ until: 'SELECT * WHERE { ?a ?b ?c }' }, 'until', /must be a SPARQL ASK/],
      [{ until: 'ASK { ?a nope:p ?c }' }, 'until', /unknown prefix 'nope:'/],
      [{ answer: 'SELECT ?x WHERE { ?x a ?c }', seeds: [] }, 'answer', /no http\(s\) resource to start from/],
      [{ follow: 'SELECT ?x WHERE { ?x ?p ?o }', followBatch: 'often' }, 'followBatch', /auto, every, or a number/],
    ];
    for (const [o, option, message] of cases) {
      const err = await crawl(options(o)).run().then(() => undefined, (e: unknown) => e);
      expect(err, JSON.stringify(o)).toBeInstanceOf(OptionError);
      expect((err as OptionError).option).toBe(option);
      expect((err as OptionError).message).toMatch(message);
    }
    expect(web.requests.length).toBe(before);
  });
});
