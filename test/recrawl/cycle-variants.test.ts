import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVariantSite, type VariantSite } from '../../src/testkit/variant-site.ts';
import { crawlLog, runMain as cli, tempDir } from '../helpers.ts'; // in this process: each command line as a process cost a CPU-second of start-up

/**
 * `run --variants` and `daemon --variants`: a re-crawl cycle takes crawl's flag (one option definition,
 * src/cli/commands/crawl.ts addFetchFlags) and archives every representation each monitored document
 * offers, in that cycle, finding the one that disagrees.
 */
describe('re-crawl cycles with --variants', () => {
  let site: VariantSite;
  beforeAll(async () => {
    site = await startVariantSite({ documents: 2, kind: (i) => (i === 0 ? 'honest' : 'drops'), linksPerDocument: 1 });
  });
  afterAll(() => site.close());

  for (const command of [['run'], ['daemon', '--every', '1h', '--cycles', '1']]) {
    it(`${command[0]} archives the other representations of the documents it fetches`, async () => {
      const dataDir = tempDir();
      expect((await cli(['add', site.documentUrl(0), site.documentUrl(1), '--data', dataDir])).code).toBe(0);
      const r = await cli([...command, '--data', dataDir, '--allow-private', '--delay', '0', '--variants']);
      expect(r.code, r.err).toBe(0);
      // Two documents downloaded and rescheduled, whatever number of representations they had.
      if (command[0] === 'run') expect(r.out).toMatch(/: 2 due, 2 planned \(0 deferred to fit the cycle\), 2 downloaded \(2 new, /);
      const log = crawlLog(dataDir);
      const cycle = log.filter((e) => e.cycle_id !== null);
      expect(cycle.length).toBe(log.length); // every row belongs to the cycle
      // Document 0 negotiates: its JSON-LD, RDF/XML and HTML+RDFa archived beside the Turtle, all agreeing.
      const archived = (i: number) => cycle.filter((e) => e.url === site.documentUrl(i) && e.reason === 'variant' && e.warc_file).map((e) => e.media_type).sort();
      expect(archived(0)).toEqual(['application/ld+json', 'application/rdf+xml', 'text/html']);
      // Document 1's JSON-LD drops a triple: the cycle says so.
      const mismatch = cycle.filter((e) => e.reason === 'variant-mismatch');
      expect(mismatch.map((e) => [e.url, e.media_type])).toEqual([[site.documentUrl(1), 'application/ld+json']]);
    }, 120_000);
  }
});
