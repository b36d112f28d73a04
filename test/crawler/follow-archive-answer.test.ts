import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlOptions, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { refetchDueAt } from '../../src/crawler/follow/index.ts';
import { linkedDataWeb, startLinkedDataWeb, type LinkedDataWeb } from '../../src/testkit/linked-data-web.ts';
import { startForwardProxy, type ForwardProxy } from '../../src/testkit/forward-proxy.ts';
import { withStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';

/**
 * A second `crawl --answer` on an archive that holds the documents (issue #17): it is answered from
 * the archived versions, and re-fetches only what the re-crawl policy says is stale. The server's hit
 * counts say what was fetched.
 */

const DOCS = 40;
const V = 'http://vocab.lod.test/ns#';
const PREFIXES = `PREFIX v: <${V}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>`;
const DAY = 86_400_000;

const docNumber = (url: string) => Number(/\/(?:doc|id)\/(\d+)$/.exec(url)?.[1]);

describe('crawl --answer a second time: answered from the archive', () => {
  let web: LinkedDataWeb;
  let proxy: ForwardProxy;
  const gen = linkedDataWeb({ documents: DOCS, hosts: 5 });

  beforeAll(async () => {
    web = await startLinkedDataWeb({ documents: DOCS, hosts: 5 });
    proxy = await startForwardProxy((hostname) => (hostname.endsWith('.lod.test') ? web.port : undefined));
  });
  afterAll(async () => {
    await proxy?.close();
    await web?.close();
  });

  const options = (dataDir: string, answer: string): CrawlOptions => ({
    seeds: [], dataDir, proxy: proxy.url, resolve: {}, allowPrivate: true, delayMs: 0, perHost: 2, domains: ['lod.test'], depth: 50, answer,
  });

  /** Requests for documents and resources (not robots.txt) since `before`, by host + path. */
  const fetchedSince = (before: Map<string, number>): string[] =>
    [...web.hits].filter(([k, n]) => /\/(doc|id)\/\d+$/.test(k) && n > (before.get(k) ?? 0)).map(([k]) => k).sort();
  const rowsOf = (s: CrawlSummary) => s.query!.answer!.rows.map((r) => `${JSON.stringify(r.binding)} ${r.documents.join(' ')}`).sort();

  it('fetches nothing when nothing is stale, and only the stale documents when some are; the answer stays the same', async () => {
    const related = [...gen.turtle(0).matchAll(/v:related <([^>]+)>/g)].map((m) => docNumber(m[1]));
    expect(related.length).toBeGreaterThan(2);
    // Two hops: the related resources' own related resources' labels, so the traversal goes through redirects and documents.
    const q = `${PREFIXES} SELECT ?x ?y ?label WHERE { <${web.resource(0)}> v:related ?x . ?x v:related ?y . ?y rdfs:label ?label FILTER(lang(?label) = "en") }`;
    const dataDir = tempDir();

    let before = new Map(web.hits);
    const first = await crawl(options(dataDir, q)).run();
    const firstFetched = fetchedSince(before);
    expect(first.query!.answer!.rows.length).toBeGreaterThan(0);
    expect(first.query!.archive?.documents ?? 0).toBe(0);
    expect(firstFetched.length).toBeGreaterThan(related.length);

    // Second run, nothing stale: not one request, the same answer with the same documents.
    before = new Map(web.hits);
    const second = await crawl(options(dataDir, q)).run();
    expect(fetchedSince(before)).toEqual([]);
    expect(rowsOf(second)).toEqual(rowsOf(first));
    expect(second.query!.archive).toEqual({ documents: first.query!.learnt.documents, stale: 0 });
    expect(second.documents).toBe(0);

    // Make two documents of the answer stale, each by one rule of the re-crawl policy: a monitored URL
    // whose next fetch has come, and a URL only crawled, last fetched longer ago than the start interval.
    const [a, b] = [web.document(related[0]!), web.document(related[1]!)];
    await withStore(dataDir, undefined, async (store) => {
      const rowA = (await store.getDocument(a))!;
      expect(refetchDueAt(rowA)).toBeGreaterThan(Date.now()); // fresh after the first run
      await store.updateDocument(a, { monitored: true, strategy: 'poisson', nextFetch: Date.now() - 1000 });
      await store.updateDocument(b, { lastFetched: Date.now() - 8 * DAY });
      await store.flush();
    });
    before = new Map(web.hits);
    const third = await crawl(options(dataDir, q)).run();
    const hostPath = (u: string) => new URL(u).host + new URL(u).pathname;
    expect(fetchedSince(before)).toEqual([hostPath(a), hostPath(b)].sort());
    expect(third.query!.archive!.stale).toBe(2);
    expect(rowsOf(third)).toEqual(rowsOf(first));
  }, 300_000);
});
