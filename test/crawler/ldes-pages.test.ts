import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlLog, runMain, LOADED_TIMEOUT_MS, tempDir } from '../helpers.ts';
import { startLdesFixture, type LdesFixture } from './ldes-fixture.ts';

/**
 * A stream's pages are the feed, not the publisher's data: `crawl --ldes` archives them (WARC, crawl log) but
 * a query of the archive sees the members as versions of their documents, not the pages' own triples (the
 * tree:relation nodes, the member lists, a second copy of every member's data in each page's graph).
 */
describe('crawl --ldes: the pages are archived, not queried as data', () => {
  let stream: LdesFixture;
  const data = tempDir('dm-ldes-pages-');
  beforeAll(async () => {
    stream = await startLdesFixture();
    const r = await runMain(['crawl', '--data', data, '--ldes', stream.stream, '--delay', '0', '--timeout', '1s', '--allow-private', '--json']);
    expect(r.code, r.err).toBe(0);
  }, LOADED_TIMEOUT_MS);
  afterAll(async () => {
    await stream?.close();
  });

  const select = async (query: string) => {
    const r = await runMain(['query', '--data', data, '--json', query]);
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out).results.bindings as Array<Record<string, { value: string }>>;
  };

  it('the graphs a query sees are the buildings the members are versions of', async () => {
    const graphs = (await select('SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }')).map((b) => b.g!.value).sort();
    expect(graphs).toEqual([1, 2, 3].map((n) => stream.entity(n)).sort());
    expect(await select('SELECT ?s WHERE { ?s <https://w3id.org/tree#relation> ?r }')).toEqual([]);
    expect(await select('SELECT ?m WHERE { ?stream <https://w3id.org/tree#member> ?m }')).toEqual([]);
  });

  it('the pages are still in the archive, byte for byte, with their log rows', async () => {
    const pages = crawlLog(data).filter((e) => String(e.url).includes('/ldes/') && e.status === 200);
    expect(pages.length).toBeGreaterThanOrEqual(3);
    for (const p of pages) {
      expect(p.warc_file).toBeTruthy();
      // Compared by their graph, as any document, but given no version: no N-Quads record for the index to read.
      expect(p.graph_hash).toBeTruthy();
      expect(p.rdf_offset).toBeNull();
    }
  });
});
