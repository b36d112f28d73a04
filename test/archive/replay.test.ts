import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { latestResponses, replayDocument } from '../../src/archive/replay.ts';
import { openStore } from '../../src/store/index.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { tempDir } from '../helpers.ts';

// A Latin-1 Turtle document whose Content-Type spaces its charset parameter out: the crawler reads the
// charset with parseContentType; a replay that read it with a regex of its own fell back to UTF-8.
const TURTLE = '<http://example.org/cafe> <http://www.w3.org/2000/01/rdf-schema#label> "Café Müller" .\n';

describe('replayDocument reads an archived response as the crawl did', () => {
  let origin: TestServer;
  const dataDir = tempDir('dm-replay-');

  beforeAll(async () => {
    origin = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle ; Charset = "ISO-8859-1"' }).end(Buffer.from(TURTLE, 'latin1'));
    });
    await crawl({ seeds: [`${origin.url}/cafe.ttl`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, noFollow: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(async () => {
    await origin?.close();
  });

  it('decodes the body with the charset of the archived Content-Type, as the crawl decoded it', async () => {
    const store = await openStore(dataDir);
    try {
      const [entry] = await latestResponses(store);
      expect(entry?.triples).toBe(1);
      const { result } = await replayDocument(dataDir, entry!);
      expect(result.quads.map((q) => q.object.value)).toEqual(['Café Müller']);
      expect(result.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
