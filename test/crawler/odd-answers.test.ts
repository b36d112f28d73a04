import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

// Answers a first week of real crawling met (#31): each gets the reason that says what happened.
describe('answers that are not what they look like', () => {
  let site: TestServer;
  let dataDir: string;
  const gz = zlib.gzipSync(Buffer.from(`<urn:x:doc> <http://example.org/p> "${'a long literal '.repeat(2000)}" .\n`));

  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404, { 'content-type': 'text/plain' }).end();
      // A gzip file cut short (a half-written cache entry): its Content-Length is what is sent, the stream has no end.
      if (url.pathname === '/cut.ttl') return res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' }).end(gz.subarray(0, gz.length >> 1));
      // A 304 to a request that asked nothing conditional (a misconfigured cache in front of the server).
      if (url.pathname === '/not-modified') return res.writeHead(304).end();
      res.writeHead(404).end();
    });
    dataDir = tempDir();
    await crawl({ seeds: [`${site.url}/cut.ttl`, `${site.url}/not-modified`], dataDir, delayMs: 0, perHost: 1, concurrency: 1, allowPrivate: true, vocabularies: false }).run();
  });
  afterAll(() => site.close());

  const rowOf = (p: string) => crawlLog(dataDir).filter((e) => e.url === `${site.url}${p}`);

  it('a gzip body cut short is a decode error that says so, not a parse error without a word', () => {
    expect(rowOf('/cut.ttl')).toMatchObject([{ status: 200, reason: 'decode-error', error: expect.stringMatching(/gzip: the compressed body stops before its end .*cut short in transfer/) }]);
  });

  it('a 304 to a request without validators is a protocol error, not unchanged', () => {
    expect(site.requests.find((r) => r.path === '/not-modified')!.headers).not.toHaveProperty('if-none-match');
    expect(rowOf('/not-modified')).toMatchObject([{ status: 304, reason: 'protocol-error', change: 'error', error: expect.stringMatching(/304 .*no validator/) }]);
  });

  it('asks for robots.txt as text/plain, not with the RDF Accept header', () => {
    expect(site.requests.filter((r) => r.path === '/robots.txt').map((r) => r.headers.accept)).toEqual(['text/plain']);
  });
});
