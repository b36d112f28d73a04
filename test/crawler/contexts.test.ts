import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetcher, RobotsCache } from '../../src/fetch/index.ts';
import type { Fetcher } from '../../src/fetch/types.ts';
import { ArchivedContexts, ContextLoader } from '../../src/crawler/contexts.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { importWarcs } from '../../src/crawler/import-warc.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { withStore } from '../../src/store/index.ts';
import { startServer, type Route, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, documents, tempDir, warcFiles } from '../helpers.ts';

const UA = 'datamonitor-test (contexts)';
const context = (n: number) => JSON.stringify({ '@context': { [`p${n}`]: `http://example.org/p${n}` } });

function fetcherFor(): Fetcher {
  return createHttpFetcher({ userAgent: UA, allowPrivate: true, connectTimeoutMs: 5_000, headersTimeoutMs: 5_000, totalTimeoutMs: 10_000 });
}

const nquads = (dir: string) => withStore(dir, undefined, async (store) => {
  let out = '';
  await exportArchive(store, dir, 'nquads', (s) => (out += s));
  return out.split('\n').filter(Boolean).sort();
}, { readonly: true });

describe('ContextLoader: remote JSON-LD contexts fetched like documents', () => {
  let server: TestServer;
  let route: Route = () => undefined;
  let fetcher: Fetcher;
  beforeAll(async () => {
    server = await startServer((req, res, url) => route(req, res, url));
    fetcher = fetcherFor();
  });
  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });
  afterEach(() => void server.requests.splice(0));

  it('waits for its origin\'s politeness turn: four contexts of one host are spaced by the crawl delay', async () => {
    route = (_req, res, url) => {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(context(Number(url.pathname.slice(2))));
    };
    const loader = new ContextLoader({ fetcher, delayMs: 200 });
    const loaded = await Promise.all([1, 2, 3, 4].map((n) => loader.load(`${server.url}/c${n}`)));
    expect(loaded).toHaveLength(4);
    const times = server.requests.map((r) => r.time);
    expect(times).toHaveLength(4);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(190);
    // Cached for the crawl: asking again costs no request.
    await loader.load(`${server.url}/c1`);
    expect(server.requests).toHaveLength(4);
  });

  it('bounds the contexts of each origin, not of the crawl: a third one of one origin is refused, another origin still loads', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(context(1));
    };
    const loader = new ContextLoader({ fetcher, limits: { maxPerOrigin: 2 } });
    await loader.load(`${server.url}/a`);
    await loader.load(`${server.url}/b`);
    await expect(loader.load(`${server.url}/c`)).rejects.toThrow(/more than 2 distinct JSON-LD contexts from http:\/\/127\.0\.0\.1:\d+/);
    await expect(loader.load(`http://localhost:${server.port}/c`)).resolves.toBeTypeOf('object');
    await loader.load(`${server.url}/a`); // a known one is still served
  });

  it('retries a failing context with back-off, fails fast during the back-off, and tries again after it', async () => {
    let failures = 3;
    route = (_req, res) => {
      if (failures-- > 0) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('down');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(context(1));
    };
    const loader = new ContextLoader({ fetcher, limits: { attempts: 2, retryBaseMs: 20, failureTtlMs: 300 } });
    await expect(loader.load(`${server.url}/flaky`)).rejects.toThrow(/HTTP 500/);
    expect(server.requests).toHaveLength(2);
    await expect(loader.load(`${server.url}/flaky`)).rejects.toThrow(/not asked again before/);
    expect(server.requests).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 350));
    // Third request fails, the retry after the back-off succeeds: the document after it gets its context.
    await expect(loader.load(`${server.url}/flaky`)).resolves.toEqual(JSON.parse(context(1)));
    expect(server.requests).toHaveLength(4);
  });

  it('a long Retry-After fails the load at once (no document waits an hour) and is remembered until then', async () => {
    route = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '3600' });
      res.end('later');
    };
    const loader = new ContextLoader({ fetcher, limits: { retryBaseMs: 20 } });
    const t0 = Date.now();
    await expect(loader.load(`${server.url}/busy`)).rejects.toThrow(/HTTP 503/);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const again = loader.load(`${server.url}/busy`);
    await expect(again).rejects.toThrow(/not asked again before/);
    await again.catch((e: Error) => {
      const until = Date.parse(/before (\S+)\)/.exec(e.message)![1]);
      expect(until - Date.now()).toBeGreaterThan(3_000_000);
    });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a 100 MB context as too-large, without waiting for all of it', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < 100 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.write('{"@context": {"a": "http://example.org/a"}, "pad": "');
      more();
    };
    const loader = new ContextLoader({ fetcher, limits: { attempts: 1 } });
    await expect(loader.load(`${server.url}/huge`)).rejects.toThrow(/too-large/);
  }, 20_000);

  it('obeys robots.txt: a disallowed context is not requested', async () => {
    route = (_req, res, url) => {
      if (url.pathname === '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('User-agent: *\nDisallow: /private/\n');
      }
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      res.end(context(1));
    };
    const robots = new RobotsCache(fetcher, { userAgent: UA });
    const loader = new ContextLoader({ fetcher, robots });
    await expect(loader.load(`${server.url}/private/c`)).rejects.toThrow(/robots.txt disallows/);
    await expect(loader.load(`${server.url}/public/c`)).resolves.toBeTypeOf('object');
    expect(server.requests.map((r) => r.path)).toEqual(['/robots.txt', '/public/c']);
  });
});

describe('a crawl\'s context fetches keep to the crawl\'s delay', () => {
  it('three contexts of one document, --delay 300ms: requested at least 300 ms apart', async () => {
    const server = await startServer((_req, res, url) => {
      res.writeHead(200, { 'content-type': 'application/ld+json' });
      if (url.pathname === '/doc.jsonld') {
        return res.end(JSON.stringify({ '@context': ['/c1', '/c2', '/c3'], '@id': 'http://example.org/x', p1: 'a', p2: 'b', p3: 'c' }));
      }
      res.end(context(Number(url.pathname.slice(2))));
    });
    try {
      const dir = tempDir();
      await crawl({ seeds: [`${server.url}/doc.jsonld`], dataDir: dir, depth: 0, delayMs: 300, allowPrivate: true, robots: false }).run();
      const times = server.requests.filter((r) => /^\/c\d$/.test(r.path)).map((r) => r.time);
      expect(times).toHaveLength(3);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(290);
      expect(await nquads(dir)).toHaveLength(3);
    } finally {
      await server.close();
    }
  }, 20_000);
});

describe('a crawl archives the contexts its JSON-LD documents needed, and an import of its WARC files uses them', () => {
  let server: TestServer;
  const dir = tempDir();
  beforeAll(async () => {
    const doc = (n: number, ctx: string) => JSON.stringify({ '@context': ctx, '@id': `http://example.org/thing${n}`, name: `thing ${n}`, knows: { '@id': `http://example.org/thing${n + 1}` } });
    const files: Record<string, { type: string; body: string }> = {
      '/': { type: 'text/html', body: '<a href="/d1.jsonld">1</a> <a href="/d2.jsonld">2</a> <a href="/loop.jsonld">loop</a>' },
      '/d1.jsonld': { type: 'application/ld+json', body: doc(1, '/ctx/schema.jsonld') },
      '/d2.jsonld': { type: 'application/ld+json', body: doc(2, '/ctx/schema.jsonld') },
      '/ctx/schema.jsonld': { type: 'application/ld+json', body: JSON.stringify({ '@context': { name: 'http://schema.org/name', knows: { '@id': 'http://schema.org/knows', '@type': '@id' } } }) },
      '/loop.jsonld': { type: 'application/ld+json', body: doc(9, '/ctx/a.jsonld') },
      '/ctx/a.jsonld': { type: 'application/ld+json', body: JSON.stringify({ '@context': '/ctx/b.jsonld' }) },
      '/ctx/b.jsonld': { type: 'application/ld+json', body: JSON.stringify({ '@context': '/ctx/a.jsonld' }) },
    };
    server = await startServer((_req, res, url) => {
      const f = files[url.pathname];
      res.writeHead(f ? 200 : 404, { 'content-type': f?.type ?? 'text/plain' });
      res.end(f?.body ?? 'not found');
    });
    await crawl({ seeds: [`${server.url}/`], dataDir: dir, depth: 2, delayMs: 0, allowPrivate: true, vocabularies: false }).run();
  }, 30_000);
  afterAll(() => server.close());

  it('fetches a shared context once, logs and archives it, and ends on a context loop with a diagnostic', async () => {
    const ctxPath = '/ctx/schema.jsonld';
    expect(server.requests.filter((r) => r.path === ctxPath)).toHaveLength(1);
    const log = crawlLog(dir);
    const row = log.find((r) => r.url === `${server.url}${ctxPath}`)!;
    expect(row).toBeDefined();
    expect(row.status).toBe(200);
    expect(row.warc_file).toBeTruthy();
    expect(String(row.diagnostics)).toMatch(/JSON-LD context/);
    // A context is not a document of the crawl.
    expect(documents(dir).map((d) => d.url)).not.toContain(`${server.url}${ctxPath}`);
    const loop = log.find((r) => r.url === `${server.url}/loop.jsonld`)!;
    expect(String(loop.diagnostics)).toMatch(/cyclic context inclusion/);
    const check = await withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true });
    expect(check.problemCount).toBe(0);
    const out = await nquads(dir);
    expect(out).toContain(`<http://example.org/thing1> <http://schema.org/name> "thing 1" <${server.url}/d1.jsonld> .`);
  });

  it('re-importing the crawl\'s WARC files into a fresh data directory gives the same N-Quads, offline', async () => {
    const fresh = tempDir();
    const before = server.requests.length;
    const s = await importWarcs(warcFiles(dir).sort(), { dataDir: fresh });
    expect(s.unreadable).toEqual([]);
    expect(server.requests.length).toBe(before);
    const imported = await nquads(fresh);
    expect(imported).toContain(`<http://example.org/thing2> <http://schema.org/knows> <http://example.org/thing3> <${server.url}/d2.jsonld> .`);
    expect(imported).toEqual(await nquads(dir));
  });
});

describe('ArchivedContexts: an import\'s contexts, from the records of its WARC files', () => {
  it('serves a context at the URL it was asked for through archived redirect hops, and names a missing one', async () => {
    const c = new ArchivedContexts();
    c.offerRedirect('http://example.org/ctx', 302, [['location', '/ctx/v2']]);
    c.offerRedirect('http://example.org/bad', 301, [['location', 'http://[not a url']]);
    c.offer('http://example.org/ctx/v2', 200, 'application/ld+json', Buffer.from(context(7)));
    c.offer('http://example.org/page', 200, 'text/html', Buffer.from('<html>'));
    c.offer('http://example.org/array', 200, 'application/json', Buffer.from('[1]'));
    await expect(c.load('http://example.org/ctx')).resolves.toEqual(JSON.parse(context(7)));
    await expect(c.load('http://example.org/page')).rejects.toThrow(/not in the imported WARC files/);
    await expect(c.load('http://example.org/bad')).rejects.toThrow(/not in the imported WARC files/);
    expect(c.size).toBe(1);
    c.offerRedirect('http://example.org/loop1', 302, [['location', '/loop2']]);
    c.offerRedirect('http://example.org/loop2', 302, [['location', '/loop1']]);
    await expect(c.load('http://example.org/loop1')).rejects.toThrow(/not in the imported WARC files/);
  });
});
