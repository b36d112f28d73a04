import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { CrawlSitemaps, MAX_SITEMAP_NESTING } from '../../src/crawler/sitemaps.ts';
import { isSitemapXml, parseSitemap } from '../../src/extract/sitemap.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

const page = (base: string, path: string) => `<${base}${path}> <http://example.org/title> "${path}" .\n`;

// A site whose pages are reachable only through its sitemaps (nothing links to them).
function sitemapSite(withRobotsLine: boolean): Promise<TestServer> {
  let base = '';
  const p = startServer((_req, res, url) => {
    const xml = (body: string) => (res.writeHead(200, { 'content-type': 'application/xml' }), res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`));
    switch (url.pathname) {
      case '/robots.txt':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(withRobotsLine ? `User-agent: *\nDisallow: /private/\nSitemap: ${base}/maps/index.xml\n` : 'User-agent: *\nDisallow: /private/\n');
      case '/':
        res.writeHead(200, { 'content-type': 'text/turtle' });
        return res.end(page(base, '/'));
      case '/maps/index.xml':
        return xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/maps/a.xml</loc></sitemap><sitemap><loc>${base}/maps/b.xml.gz</loc></sitemap></sitemapindex>`);
      case '/maps/a.xml':
        return xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>${base}/orphan/1</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod></url>
          <url><loc>${base}/orphan/2?a=1&amp;b=2</loc></url>
          <url><loc>${base}/private/3</loc></url>
          <url><loc>http://other.example/elsewhere</loc></url>
        </urlset>`);
      case '/maps/b.xml.gz':
        res.writeHead(200, { 'content-type': 'application/gzip' });
        return res.end(zlib.gzipSync(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/orphan/4</loc></url></urlset>`));
      case '/sitemap.xml':
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`${base}/orphan/1\n${base}/orphan/5\n`);
    }
    if (url.pathname.startsWith('/orphan/') || url.pathname.startsWith('/private/')) {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      return res.end(page(base, url.pathname + url.search));
    }
    res.writeHead(404).end();
  });
  return p.then((s) => ((base = s.url), s));
}

const fetched = (site: TestServer) => site.requests.map((r) => r.path).filter((p) => p !== '/robots.txt').sort();

describe('sitemaps', () => {
  let site: TestServer;
  let summary: Awaited<ReturnType<ReturnType<typeof crawl>['run']>>;
  const dataDir = tempDir();

  beforeAll(async () => {
    site = await sitemapSite(true);
    summary = await crawl({ seeds: [`${site.url}/`], dataDir, depth: 0, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], sitemaps: true }).run();
  });
  afterAll(() => site.close());

  it('follows the robots.txt Sitemap line, a sitemap index and a gzipped sitemap to pages nothing links to', () => {
    expect(fetched(site)).toEqual(['/', '/maps/a.xml', '/maps/b.xml.gz', '/maps/index.xml', '/orphan/1', '/orphan/2?a=1&b=2', '/orphan/4']);
    expect(summary.sitemaps).toEqual({ read: 3, urls: 4 }); // /private/3 is listed (and in scope) but robots.txt forbids it
    expect(summary.skipped.robots).toBe(1);
  });

  it('archives the sitemaps like any document, and never leaves the host', () => {
    const urls = crawlLog(dataDir).map((e) => e.url);
    expect(urls).toContain(`${site.url}/maps/index.xml`);
    expect(urls).toContain(`${site.url}/maps/b.xml.gz`);
    expect(urls.some((u) => u.includes('other.example'))).toBe(false);
  });

  it('without a Sitemap line reads /sitemap.xml (here a text sitemap); --sitemap names one directly', async () => {
    const plain = await sitemapSite(false);
    try {
      const s = await crawl({ seeds: [`${plain.url}/`], dataDir: tempDir(), depth: 0, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], sitemaps: true }).run();
      expect(fetched(plain)).toEqual(['/', '/orphan/1', '/orphan/5', '/sitemap.xml']);
      expect(s.sitemaps).toEqual({ read: 1, urls: 2 });
      plain.requests.length = 0;
      await crawl({ seeds: [`${plain.url}/`], dataDir: tempDir(), depth: 0, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], sitemapUrls: [`${plain.url}/maps/a.xml`] }).run();
      expect(fetched(plain)).toEqual(['/', '/maps/a.xml', '/orphan/1', '/orphan/2?a=1&b=2']); // /private/3: robots.txt
    } finally {
      await plain.close();
    }
  });
});

describe('parseSitemap', () => {
  it('keeps what is in scope, with lastmod, and says what it dropped', () => {
    const xml = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> http://h.example/a/x </loc><lastmod>2024-05-01</lastmod></url><url><loc>http://h.example/b/y</loc></url><url><loc>not a url</loc></url></urlset>';
    const inDir = parseSitemap(Buffer.from(xml), { url: 'http://h.example/a/sitemap.xml' });
    expect(inDir.urls).toEqual([{ loc: 'http://h.example/a/x', lastmod: Date.parse('2024-05-01') }]);
    expect(inDir.diagnostics.join('\n')).toMatch(/outside the sitemap's scope http:\/\/h\.example\/a\/: http:\/\/h\.example\/b\/y/);
    expect(inDir.diagnostics.join('\n')).toMatch(/not a URL/);
    // robots.txt vouches for the whole host
    expect(parseSitemap(Buffer.from(xml), { url: 'http://h.example/a/sitemap.xml', hostWide: true }).urls.map((u) => u.loc)).toEqual(['http://h.example/a/x', 'http://h.example/b/y']);
  });

  it('stops at the protocol limit, and reads neither a gzip bomb nor broken gzip past its bound', () => {
    const many = `<urlset>${Array.from({ length: 30 }, (_, i) => `<url><loc>http://h.example/${i}</loc></url>`).join('')}</urlset>`;
    const cut = parseSitemap(Buffer.from(many), { url: 'http://h.example/sitemap.xml', maxUrls: 10 });
    expect(cut.urls).toHaveLength(10);
    expect(cut.diagnostics).toContain('more than 10 URLs: the rest dropped (the protocol\'s limit)');
    const bomb = zlib.gzipSync(Buffer.alloc(2_000_000, 0x20));
    expect(parseSitemap(bomb, { url: 'http://h.example/sitemap.xml', maxBytes: 1_000_000 }).diagnostics.join()).toMatch(/sitemap not read: gzip/);
    expect(parseSitemap(Buffer.from([0x1f, 0x8b, 1, 2, 3]), { url: 'http://h.example/sitemap.xml' }).diagnostics.join()).toMatch(/sitemap not read: gzip/);
  });
});

describe('a crawl stopped before it read its sitemap', () => {
  it('reads it on the resume, although the store does not say it is a sitemap', async () => {
    const site = await sitemapSite(true);
    const dataDir = tempDir();
    try {
      const options = { seeds: [`${site.url}/`], dataDir, depth: 0, delayMs: 0, perHost: 1, concurrency: 1, allowPrivate: true, domains: ['127.0.0.1'], sitemaps: true };
      const first = await crawl({ ...options, maxDocs: 1 }).run();
      expect(first.stoppedBy).toBe('max-docs');
      expect(fetched(site)).toEqual(['/']);
      const second = await crawl(options).run();
      expect(second.resumed).toBe(true);
      expect(fetched(site)).toEqual(['/', '/maps/a.xml', '/maps/b.xml.gz', '/maps/index.xml', '/orphan/1', '/orphan/2?a=1&b=2', '/orphan/4']);
    } finally {
      await site.close();
    }
  });

  it('stopped after the sitemap index: the children it queued keep the scope robots.txt gave them', async () => {
    const site = await sitemapSite(true);
    const dataDir = tempDir();
    try {
      const options = { seeds: [`${site.url}/`], dataDir, depth: 0, delayMs: 0, perHost: 1, concurrency: 1, allowPrivate: true, domains: ['127.0.0.1'], sitemaps: true };
      await crawl({ ...options, maxDocs: 2 }).run();
      expect(fetched(site)).toEqual(['/', '/maps/index.xml']);
      await crawl(options).run();
      // The children live in /maps/ and list pages outside it: only the robots.txt line makes those in scope.
      expect(fetched(site)).toEqual(['/', '/maps/a.xml', '/maps/b.xml.gz', '/maps/index.xml', '/orphan/1', '/orphan/2?a=1&b=2', '/orphan/4']);
    } finally {
      await site.close();
    }
  });

  it('isSitemapXml knows a sitemap by its root element, gzipped or not', () => {
    const doc = '<?xml version="1.0"?>\n<!-- made by hand -->\n<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:url><sm:loc>http://h/</sm:loc></sm:url></sm:urlset>';
    expect(isSitemapXml(Buffer.from(doc))).toBe(true);
    expect(isSitemapXml(zlib.gzipSync(doc + ' '.repeat(100_000)))).toBe(true);
    expect(isSitemapXml(Buffer.from('<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>'))).toBe(false);
    expect(isSitemapXml(Buffer.from('http://h/a\nhttp://h/b\n'))).toBe(false);
  });
});

describe('bounded sitemap discovery', () => {
  // robots.txt names /idx/0; every index lists one page and the next index, without end (a generator
  // gone wrong); /self lists itself and a page. Each index is 'nested' one deeper than the one before.
  function endlessIndexes(): Promise<TestServer> {
    let base = '';
    const p = startServer((_req, res, url) => {
      const xml = (body: string) => (res.writeHead(200, { 'content-type': 'application/xml' }), res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`));
      if (url.pathname === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end(`User-agent: *\nSitemap: ${base}/idx/0\nSitemap: ${base}/self\n`);
      }
      const index = /^\/idx\/(\d+)$/.exec(url.pathname);
      if (index) {
        const n = Number(index[1]);
        return xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/idx/${n + 1}</loc></sitemap><sitemap><loc>${base}/map/${n}</loc></sitemap></sitemapindex>`);
      }
      const map = /^\/map\/(\d+)$/.exec(url.pathname);
      if (map) return xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/page/${map[1]}</loc></url></urlset>`);
      if (url.pathname === '/self') return xml(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/self</loc></sitemap><sitemap><loc>${base}/map/self</loc></sitemap></sitemapindex>`);
      if (url.pathname === '/map/self') return xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/page/self</loc></url></urlset>`);
      res.writeHead(200, { 'content-type': 'text/turtle' });
      return res.end(page(base, url.pathname));
    });
    return p.then((s) => ((base = s.url), s));
  }

  it(`reads indexes ${MAX_SITEMAP_NESTING} deep at most, and an index that lists itself once, then the crawl ends`, async () => {
    const site = await endlessIndexes();
    try {
      const summary = await crawl({ seeds: [`${site.url}/`], dataDir: tempDir(), depth: 0, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], sitemaps: true, maxTimeMs: 30_000 }).run();
      expect(summary.stoppedBy).not.toBe('max-time');
      // /idx/0 (nesting 0) lists /idx/1 (1), which lists /idx/2 (2): /idx/2's children would be 3 deep.
      expect(fetched(site)).toEqual([
        '/', '/idx/0', '/idx/1', '/idx/2', '/map/0', '/map/1', '/map/self', '/page/0', '/page/1', '/page/self', '/self',
      ]);
      expect(site.requests.filter((r) => r.path === '/self')).toHaveLength(1);
    } finally {
      await site.close();
    }
  });

  it('says why it stopped: the index past the limit and the index that lists itself', () => {
    const sitemaps = new CrawlSitemaps(true);
    const index = (self: string, ...children: string[]) => Buffer.from(`<sitemapindex>${[self, ...children].map((c) => `<sitemap><loc>${c}</loc></sitemap>`).join('')}</sitemapindex>`);
    sitemaps.ask('http://h.example/idx/0', true);
    expect(sitemaps.read('http://h.example/idx/0', 'http://h.example/idx/0', index('http://h.example/idx/0', 'http://h.example/idx/1'), 'application/xml').diagnostics)
      .toEqual(['the sitemap index lists itself: not read again']);
    expect(sitemaps.nestingOf('http://h.example/idx/1')).toBe(1);
    sitemaps.read('http://h.example/idx/1', 'http://h.example/idx/1', index('http://h.example/idx/2'), 'application/xml');
    const deep = sitemaps.read('http://h.example/idx/2', 'http://h.example/idx/2', index('http://h.example/idx/3', 'http://h.example/idx/4'), 'application/xml');
    expect(deep.sitemaps).toEqual([]);
    expect(deep.diagnostics).toEqual([`sitemap index nested ${MAX_SITEMAP_NESTING + 1} deep (the limit is ${MAX_SITEMAP_NESTING}): its 2 sitemaps not read`]);
  });
});
