import { crawl } from '../../src/crawler/crawl.ts';
import { indexVersions } from '../query/helpers.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

export const BODY_A = '@prefix ex: <http://example.org/> .\nex:alice a ex:Person ; ex:name "Alice" .\n';
export const BODY_B = '@prefix ex: <http://example.org/> .\nex:alice a ex:Person ; ex:name "Alice B." .\nex:bob a ex:Person .\n';
export const OTHER = '<http://example.org/carol> <http://example.org/name> "Carol" .\n';

export interface ArchiveFixture {
  dataDir: string;
  origin: TestServer;
  doc: string;
  other: string;
  gone: string;
  /** Capture times of `doc`, oldest first, and the bytes the origin served at each (a 304 serves none). */
  times: number[];
  served: string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A small archive made by crawling a site on 127.0.0.1 four times: `doc.ttl` is new (A), changed (B),
 * fetched again with the same bytes (a revisit record) and answered 304 (a server-not-modified revisit);
 * `other.ttl` is captured once; `gone.ttl` is captured, then 404. The first captures are `spacingMs`
 * apart so that second-precision Accept-Datetime values can tell them apart.
 */
export async function buildArchive(opts: { spacingMs?: number } = {}): Promise<ArchiveFixture> {
  const spacing = opts.spacingMs ?? 2100;
  const dataDir = tempDir('dm-server-');
  let body = BODY_A;
  let etag: string | undefined;
  let goneStatus = 200;
  const origin = await startServer((req, res, url) => {
    if (url.pathname === '/doc.ttl') {
      if (etag && req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
      res.writeHead(200, { 'content-type': 'text/turtle', 'x-origin': 'yes', ...(etag ? { etag } : {}) });
      return res.end(body);
    }
    if (url.pathname === '/other.ttl') return res.writeHead(200, { 'content-type': 'application/n-triples' }).end(OTHER);
    if (url.pathname === '/gone.ttl' && goneStatus === 200) return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/gone> a <http://example.org/Thing> .\n');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const run = (paths: string[]) =>
    crawl({
      seeds: paths.map((p) => `${origin.url}${p}`), dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true,
      // The routes' tests count the documents' captures: no robots.txt capture among them (test/crawler/robots-archived.test.ts).
      domains: ['127.0.0.1'], robots: false,
    }).run();
  await run(['/doc.ttl', '/other.ttl', '/gone.ttl']);
  await sleep(spacing);
  body = BODY_B;
  goneStatus = 404;
  await run(['/doc.ttl', '/gone.ttl']);
  await sleep(spacing);
  etag = '"b"';
  await run(['/doc.ttl']); // same bytes: a revisit record
  await run(['/doc.ttl']); // If-None-Match answered 304
  // What `query` does first: index the versions from the archive into versions.sqlite.
  await (await indexVersions(dataDir)).close();
  const doc = `${origin.url}/doc.ttl`;
  const times = crawlLog(dataDir).filter((e) => e.url === doc).map((e) => Number(e.time));
  return {
    dataDir, origin, doc, other: `${origin.url}/other.ttl`, gone: `${origin.url}/gone.ttl`, times, served: [BODY_A, BODY_B, BODY_B, BODY_B],
    close: () => origin.close(),
  };
}
