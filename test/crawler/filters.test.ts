import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { normalizeUrl, hostOf } from '../../src/frontier/normalize.ts';
import { rejectReason, compilePatterns, mimeAccepted } from '../../src/frontier/filters.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

describe('URL normalisation for the seen test', () => {
  it('meets two spellings of one URL and keeps different URLs apart', () => {
    expect(normalizeUrl('HTTP://Example.ORG:80/a/./b/../c?x=%7e#frag')).toBe('http://example.org/a/c?x=~');
    expect(normalizeUrl('https://example.org:443/%7Euser/%2f')).toBe('https://example.org/~user/%2F');
    expect(normalizeUrl('http://example.org/a%3Ab')).toBe('http://example.org/a%3Ab');
    expect(normalizeUrl('http://example.org/x', undefined)).not.toBe(normalizeUrl('http://example.org/X'));
    expect(normalizeUrl('mailto:a@b.org')).toBeUndefined();
    expect(normalizeUrl('http://')).toBeUndefined();
    expect(normalizeUrl('not a url')).toBeUndefined();
    expect(hostOf('http://user@example.org:8080/x')).toBe('example.org:8080');
  });
});

describe('filtering conditions', () => {
  const f = { maxDepth: 2, include: compilePatterns(['^https?://([^/]*\\.)?example\\.org/'], '--include'), exclude: compilePatterns(['\\.pdf$'], '--exclude'), domains: ['example.org'] };
  it('rejects by depth, domain, include and exclude, and lets vocabularies past the depth', () => {
    expect(rejectReason('http://example.org/a', 'example.org', 3, f)).toBe('depth');
    expect(rejectReason('http://example.org/a', 'example.org', 3, f, true)).toBeUndefined();
    expect(rejectReason('http://other.net/a', 'other.net', 1, f)).toBe('domain');
    expect(rejectReason('http://sub.example.org/a.pdf', 'sub.example.org', 1, f)).toBe('exclude');
    expect(rejectReason('http://sub.example.org/a', 'sub.example.org:8080', 1, f)).toBeUndefined();
  });
  it('says which pattern is broken', () => {
    expect(() => compilePatterns(['(unclosed'], '--include')).toThrow(/--include '\(unclosed'/);
  });
  it('accepts media types exactly or by family', () => {
    expect(mimeAccepted('text/turtle', ['text/*'])).toBe(true);
    expect(mimeAccepted('application/rdf+xml', ['text/turtle'])).toBe(false);
    expect(mimeAccepted('anything', [])).toBe(true);
  });
});

describe('traffic limits and filters in a crawl', () => {
  let server: TestServer;
  beforeAll(async () => {
    // An endless chain: page n links to n+1 and to a PDF.
    server = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      const n = Number(url.pathname.slice(1).replace('.pdf', '')) || 0;
      if (url.pathname.endsWith('.pdf')) return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4');
      res.writeHead(200, { 'content-type': 'text/turtle' });
      res.end(`<${url.origin}/${n}> <http://e.org/next> <${url.origin}/${n + 1}> , <${url.origin}/${n}.pdf> .\n`);
    });
  });
  afterAll(() => server.close());
  const base = { delayMs: 0, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] };

  it('stops cleanly at --max-docs and says so', async () => {
    const s = await crawl({ ...base, seeds: [`${server.url}/0`], dataDir: tempDir(), depth: 1000, maxDocs: 5, concurrency: 1 }).run();
    expect(s.documents).toBe(5);
    expect(s.stoppedBy).toBe('max-docs');
  });

  it('stops at --max-triples and --max-bytes', async () => {
    expect((await crawl({ ...base, seeds: [`${server.url}/0`], dataDir: tempDir(), depth: 1000, maxTriples: 6, concurrency: 1 }).run()).stoppedBy).toBe('max-triples');
    expect((await crawl({ ...base, seeds: [`${server.url}/0`], dataDir: tempDir(), depth: 1000, maxBytes: 300, concurrency: 1 }).run()).stoppedBy).toBe('max-bytes');
  });

  it('stops at --max-time', async () => {
    const s = await crawl({ ...base, delayMs: 100, seeds: [`${server.url}/0`], dataDir: tempDir(), depth: 1000, maxTimeMs: 600 }).run();
    expect(s.stoppedBy).toBe('max-time');
    expect(s.documents).toBeLessThan(10);
  });

  it('follows links only to --depth, and --exclude keeps the PDFs out', async () => {
    const dataDir = tempDir();
    const s = await crawl({ ...base, seeds: [`${server.url}/0`], dataDir, depth: 3, exclude: ['\\.pdf$'] }).run();
    expect(crawlLog(dataDir).map((e) => new URL(e.url).pathname).sort()).toEqual(['/0', '/1', '/2', '/3', '/robots.txt']);
    expect(s.stoppedBy).toBeUndefined();
  });

  it('archives but does not parse media types outside --mime', async () => {
    const dataDir = tempDir();
    await crawl({ ...base, seeds: [`${server.url}/0`], dataDir, depth: 1, mime: ['application/pdf'] }).run();
    const first = crawlLog(dataDir).find((e) => e.url.endsWith('/0'))!;
    expect(first.triples).toBe(0);
    expect(first.warc_file).toBeTruthy();
  });
});

describe('normalizeUrl on fragments', () => {
  it('drops an empty fragment too, and leaves a URL without one untouched', () => {
    expect(normalizeUrl('http://h.example/p#')).toBe('http://h.example/p');
    expect(normalizeUrl('http://h.example/p#x')).toBe('http://h.example/p');
    expect(normalizeUrl('http://h.example/a%7eb?q=%7e')).toBe('http://h.example/a~b?q=~');
    expect(normalizeUrl('http://h.example/plain?x=1')).toBe('http://h.example/plain?x=1');
  });
});
