import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

// A URL that was queued and then reached again as another URL's redirect target is fetched once:
// the redirect's target goes through the seen test like any link.
describe('a queued URL that another URL redirects to', () => {
  let site: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      const base = `http://127.0.0.1:${site.port}`;
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      if (url.pathname === '/') {
        // /old is listed first, so it is fetched (and redirected to /new) before /new comes up in the queue.
        res.writeHead(200, { 'content-type': 'text/turtle' });
        return res.end(`<${base}/> <http://example.org/links> <${base}/old>, <${base}/new> .\n`);
      }
      if (url.pathname === '/old') return res.writeHead(301, { location: '/new' }).end();
      if (url.pathname === '/new') {
        res.writeHead(200, { 'content-type': 'text/turtle' });
        return res.end(`<${base}/new> <http://example.org/title> "new" .\n`);
      }
      res.writeHead(404).end();
    });
    dataDir = tempDir();
    await crawl({ seeds: [`${site.url}/`], dataDir, depth: 2, delayMs: 0, perHost: 1, concurrency: 1, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => site.close());

  it('fetches the target once, archives it once under its own URL, and the redirect as a hop of its own', () => {
    expect(site.requests.filter((r) => r.path === '/old')).toHaveLength(1);
    expect(site.requests.filter((r) => r.path === '/new')).toHaveLength(1);
    const captures = crawlLog(dataDir).filter((e) => e.final_url === `${site.url}/new` || e.url === `${site.url}/new`);
    expect(captures).toHaveLength(1);
    expect(captures[0]).toMatchObject({ url: `${site.url}/new`, reason: 'fetched', triples: 1 });
    expect(crawlLog(dataDir).filter((e) => e.url === `${site.url}/old`)).toMatchObject([{ status: 301, reason: 'redirected', triples: 0 }]);
  });
});

// Servers that write a Location in raw UTF-8 are common; browsers and curl percent-encode its bytes as they are.
describe('a redirect whose Location is raw UTF-8', () => {
  it('leads to the percent-encoded UTF-8 path, not a double-encoded one', async () => {
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      // node:http writes a header string as latin1, one byte a character: these are the UTF-8 bytes of /café.ttl.
      if (url.pathname === '/moved') return res.writeHead(301, { location: Buffer.from('/café.ttl?q=ü', 'utf8').toString('latin1') }).end();
      if (url.pathname === '/caf%C3%A9.ttl' && url.search === '?q=%C3%BC') return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<urn:x:cafe> <http://example.org/p> "café" .\n');
      res.writeHead(404).end();
    });
    try {
      const dataDir = tempDir();
      await crawl({ seeds: [`${site.url}/moved`], dataDir, depth: 2, delayMs: 0, perHost: 1, concurrency: 1, allowPrivate: true, domains: ['127.0.0.1'] }).run();
      expect(site.requests.map((r) => r.path)).not.toContain('/caf%C3%83%C2%A9.ttl?q=%C3%83%C2%BC');
      expect(crawlLog(dataDir).filter((e) => e.url === `${site.url}/caf%C3%A9.ttl?q=%C3%BC`)).toMatchObject([{ status: 200, reason: 'fetched', triples: 1 }]);
    } finally {
      await site.close();
    }
  });
});

// The row's message quotes a Location that leads nowhere the crawl goes as the server wrote it: UTF-8, not latin1 mojibake.
describe('a redirect to a raw UTF-8 Location of another scheme', () => {
  it('is logged with the Location as written', async () => {
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      if (url.pathname === '/mail') return res.writeHead(302, { location: Buffer.from('mailto:café@example.org', 'utf8').toString('latin1') }).end();
      res.writeHead(404).end();
    });
    try {
      const dataDir = tempDir();
      await crawl({ seeds: [`${site.url}/mail`], dataDir, depth: 1, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
      const [row] = crawlLog(dataDir).filter((e) => e.url === `${site.url}/mail`);
      expect(row).toMatchObject({ status: 302, reason: 'redirected' });
      expect(row!.error).toBe('redirected (302) to "mailto:café@example.org", which is not an http(s) URL');
    } finally {
      await site.close();
    }
  });
});
