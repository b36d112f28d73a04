import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { MAX_URL_LENGTH, normalizeUrl } from '../../src/frontier/normalize.ts';
import { rejectReason, rejectionReason, type FilterOptions } from '../../src/frontier/filters.ts';
import { startServer } from '../../src/testkit/server.ts';
import { LOADED_TIMEOUT_MS, crawlLog, runMain, tempDir } from '../helpers.ts';

describe('session ids are not part of a URL', () => {
  it('strips the session parameters of Java, PHP, ASP, ColdFusion and the generic names, and keeps everything else as it was', () => {
    const cases: Array<[string, string]> = [
      ['http://shop.example/cart;jsessionid=0A1B2C3D4E5F60718293A4B5C6D7E8F9.node1?item=7', 'http://shop.example/cart?item=7'],
      ['http://shop.example/a;JSESSIONID=abc/b;type=x', 'http://shop.example/a/b;type=x'],
      ['http://forum.example/t.php?t=12&PHPSESSID=9f86d081884c7d659a2feaa0c55ad015&page=2', 'http://forum.example/t.php?t=12&page=2'],
      ['http://old.example/default.asp?ASPSESSIONIDQASDBTSR=FNHMCHPBMDNGHOFPEMOHPLAE', 'http://old.example/default.asp'],
      ['http://cf.example/index.cfm?CFID=123456&CFTOKEN=78901234&id=5', 'http://cf.example/index.cfm?id=5'],
      ['http://app.example/x?sessionid=s3cr3t&b=%20x+y', 'http://app.example/x?b=%20x+y'],
      ['http://app.example/x?sid=5f4dcc3b5aa765d61d8327deb882cf99', 'http://app.example/x'],
    ];
    for (const [raw, expected] of cases) expect(normalizeUrl(raw), raw).toBe(expected);
  });

  it('leaves look-alikes alone: a short sid is an ordinary id, names only containing "sid" are not sessions', () => {
    for (const url of ['http://radio.example/play?sid=42', 'http://a.example/x?side=left&inside=1', 'http://a.example/sess/ions?q=session', 'http://a.example/p;version=2']) {
      expect(normalizeUrl(url), url).toBe(url);
    }
  });
});

describe('the URL length limit', () => {
  const filters: FilterOptions = { maxDepth: 100, include: [], exclude: [], domains: [] };
  it(`rejects URLs longer than ${MAX_URL_LENGTH} characters as url-too-long, before the other filters`, () => {
    const base = 'http://trap.example/cal?d=';
    const atLimit = base + 'x'.repeat(MAX_URL_LENGTH - base.length);
    expect(rejectReason(atLimit, 'trap.example', 0, filters)).toBeUndefined();
    expect(rejectReason(atLimit + 'x', 'trap.example', 0, filters)).toBe('url-too-long');
    expect(rejectReason(atLimit + 'x', 'trap.example', 0, { ...filters, maxUrlLength: 10_000 })).toBeUndefined();
    expect(rejectReason(atLimit + 'x', 'trap.example', 500, { ...filters, domains: ['other.example'] })).toBe('url-too-long');
    expect(rejectionReason('url-too-long')).toBe('url-too-long');
    expect(rejectionReason('domain')).toBe('filtered-domain');
  });
});

describe('URL traps in a crawl', () => {
  it('a query string that doubles on every hop and a new session id on every link: the crawl ends, no long URL is fetched', async () => {
    let base = '';
    const site = await startServer((_req, res, url) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      if (url.pathname === '/grow') {
        const q = url.searchParams.get('q') ?? 'a';
        return res.end(`<a href="/grow?q=${q}${q}">deeper</a> <a href="/session;jsessionid=${Math.random().toString(16).slice(2).padEnd(32, '0')}">shop</a>`);
      }
      if (url.pathname.startsWith('/session')) return res.end(`<a href="/session;jsessionid=${Math.random().toString(16).slice(2)}?PHPSESSID=${Math.random().toString(36).slice(2)}">again</a>`);
      return res.end('<a href="/grow?q=a">start</a>');
    });
    base = site.url;
    try {
      const dataDir = tempDir();
      const summary = await crawl({ seeds: [`${base}/`], dataDir, depth: 100, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], maxTimeMs: 30_000 }).run();
      expect(summary.stoppedBy).not.toBe('max-time');
      const paths = site.requests.map((r) => r.path).filter((p) => p !== '/robots.txt');
      expect(Math.max(...paths.map((p) => (base + p).length))).toBeLessThanOrEqual(MAX_URL_LENGTH);
      // 2^k characters of q: 2,048 still fits with the ~30 characters before it, 4,096 does not.
      expect(paths.filter((p) => p.startsWith('/grow'))).toHaveLength(12);
      // The session page is one page, whatever session id each link carries.
      expect(paths.filter((p) => p.startsWith('/session'))).toHaveLength(1);
      expect(crawlLog(dataDir).filter((e) => e.url.includes('/session'))).toHaveLength(1);
    } finally {
      await site.close();
    }
  });
});

describe('user info is not part of a URL', () => {
  it('drops user and password from a URL; the rest is as it was', () => {
    expect(normalizeUrl('http://user:pw@h.example/x?q=1')).toBe('http://h.example/x?q=1');
    expect(normalizeUrl('https://user@h.example:8443/')).toBe('https://h.example:8443/');
    expect(normalizeUrl('x', 'http://u:p@h.example/a/')).toBe('http://h.example/a/x');
  });

  it('a seed with a password and the same seed without are one URL, and the password is nowhere in the data, the log or the summary', async () => {
    const SECRET = 'pw-c0rrect-h0rse';
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc> <http://example.org/p> "a page" .\n`);
    });
    try {
      const dataDir = tempDir();
      const withPw = `http://user:${SECRET}@127.0.0.1:${site.port}/doc`;
      const crawlRun = await runMain(['crawl', withPw, `${site.url}/doc`, `http://${SECRET}@127.0.0.1:${site.port}/doc`, '--data', dataDir, '--allow-private', '--delay', '0', '--no-vocabularies', '--json']);
      expect(crawlRun.code, crawlRun.err).toBe(0);
      expect(site.requests.filter((r) => r.path === '/doc')).toHaveLength(1);
      expect(site.requests.some((r) => r.headers.authorization !== undefined)).toBe(false);
      const logRun = await runMain(['log', '--data', dataDir, '--url', withPw, '--json']);
      const stats = await runMain(['stats', '--data', dataDir]);
      const printed = [crawlRun.out, crawlRun.err, logRun.out, logRun.err, stats.out, stats.err].join('\n');
      expect(printed).not.toContain(SECRET);
      // Every file of the data directory, WARC files read inflated (gunzip reads all their members).
      for (const f of fs.readdirSync(dataDir, { recursive: true }) as string[]) {
        const file = path.join(dataDir, f);
        if (!fs.statSync(file).isFile()) continue;
        const bytes = f.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(file)) : fs.readFileSync(file);
        expect(bytes.includes(SECRET), f).toBe(false);
      }
      expect(crawlLog(dataDir).map((e) => e.url)).toContain(`${site.url}/doc`);
    } finally {
      await site.close();
    }
  }, LOADED_TIMEOUT_MS);
});
