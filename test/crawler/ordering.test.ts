import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { tempDir } from '../helpers.ts';

/**
 * A site where one page ("hub") is linked from every leaf, and the root links to the leaves first
 * and to the hub last. Breadth-first fetches the hub after the leaves; backlink ordering, which
 * sees the hub's in-links grow, fetches it as soon as it has more than any other page.
 */
describe('crawl --order', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((_req, res, url) => {
      const o = url.origin;
      res.writeHead(200, { 'content-type': 'text/turtle' });
      if (url.pathname === '/robots.txt') return res.end('');
      if (url.pathname === '/') return res.end(Array.from({ length: 12 }, (_, i) => `<${o}/> <http://e.org/l> <${o}/leaf${i}> .`).join('\n') + `\n<${o}/> <http://e.org/l> <${o}/other> .\n`);
      if (url.pathname.startsWith('/leaf')) return res.end(`<${o}${url.pathname}> <http://e.org/l> <${o}/hub> , <${o}${url.pathname}/x> .\n`);
      res.end(`<${o}${url.pathname}> <http://e.org/p> "x" .\n`);
    });
  });
  afterAll(() => server.close());

  const order = async (name: string) => {
    const docs: string[] = [];
    for await (const d of crawl({ seeds: [`${server.url}/`], dataDir: tempDir(), delayMs: 0, concurrency: 1, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'], order: name, maxDocs: 20 })) docs.push(new URL(d.url).pathname);
    return docs;
  };

  it('breadth-first reaches the hub only after every leaf and the root\'s other link', async () => {
    const bfs = await order('bfs');
    expect(bfs.indexOf('/hub')).toBeGreaterThan(bfs.indexOf('/other'));
  });

  it('backlink ordering fetches the hub before the leaves are exhausted', async () => {
    const backlink = await order('backlink');
    expect(backlink.indexOf('/hub')).toBeGreaterThan(0);
    expect(backlink.indexOf('/hub')).toBeLessThan(backlink.indexOf('/leaf11'));
  });

  it('refuses an unknown ordering with the list of names', async () => {
    await expect(order('alphabetical')).rejects.toThrow(/bfs, backlink/);
  });
});
