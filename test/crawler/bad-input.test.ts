import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { closedPort, startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir } from '../helpers.ts';

/**
 * Every kind of bad input in one crawl: each is logged with its reason, the good documents around
 * them are archived, and the crawl ends normally.
 */
describe('bad input never stops a crawl', () => {
  let server: TestServer;
  let deadPort: number;
  let dataDir: string;
  let log: Array<Record<string, any>>;
  let summary: Awaited<ReturnType<ReturnType<typeof crawl>['run']>>;
  const bomb = zlib.gzipSync(Buffer.alloc(64 * 1024 * 1024));

  beforeAll(async () => {
    deadPort = await closedPort();

    server = await startServer(async (req, res, url) => {
      const o = url.origin;
      switch (url.pathname) {
        case '/':
          res.writeHead(200, { 'content-type': 'text/turtle' });
          return res.end(['slow', 'reset', 'huge', 'bomb', 'loop', 'malformed', 'wrongtype', 'latin1', 'badiri', 'good', 'gone']
            .map((p) => `<${o}/> <http://example.org/link> <${o}/${p}> .`).join('\n') +
            `\n<${o}/> <http://example.org/link> <http://127.0.0.1:${deadPort}/unreachable> , <http://no-such-host.test/x> .\n`);
        case '/slow':
          await new Promise((r) => setTimeout(r, 3_000));
          res.writeHead(200, { 'content-type': 'text/turtle' });
          return res.end('');
        case '/reset':
          res.writeHead(200, { 'content-type': 'text/turtle', 'content-length': '1000' });
          res.write('<a:b> <a:c> ');
          return setTimeout(() => req.socket.destroy(), 20);
        case '/huge':
          res.writeHead(200, { 'content-type': 'text/turtle' });
          res.write(`<${o}/huge> <http://example.org/p> "start" .\n`);
          for (let i = 0; i < 40; i++) res.write(`<${o}/huge> <http://example.org/p> "${'x'.repeat(64 * 1024)}" .\n`);
          return res.end();
        case '/bomb':
          res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' });
          return res.end(bomb);
        case '/loop':
          res.writeHead(302, { location: '/loop2' });
          return res.end();
        case '/loop2':
          res.writeHead(302, { location: '/loop' });
          return res.end();
        case '/malformed':
          res.writeHead(200, { 'content-type': 'application/rdf+xml' });
          return res.end(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="${o}/m"><unclosed>`);
        case '/wrongtype':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(`@prefix ex: <http://example.org/> .\n<${o}/wrongtype> ex:p "sniffed as Turtle" .\n`);
        case '/latin1':
          res.writeHead(200, { 'content-type': 'text/turtle; charset=iso-8859-1' });
          return res.end(Buffer.from(`<${o}/latin1> <http://example.org/name> "Andr\xe9 G\xf6del" .\n`, 'latin1'));
        case '/badiri':
          res.writeHead(200, { 'content-type': 'text/turtle' });
          return res.end(`<${o}/badiri> <http://example.org/q> "kept" .\n<${o}/badiri> <http://example.org/p> <http://exa mple.org/x> .\n`);
        case '/good':
          res.writeHead(200, { 'content-type': 'text/turtle' });
          return res.end(`<${o}/good> <http://example.org/p> "fine" .\n`);
        default:
          res.writeHead(404, { 'content-type': 'text/plain' });
          return res.end('gone');
      }
    });
    dataDir = tempDir();
    summary = await crawl({
      seeds: [`${server.url}/`], dataDir, delayMs: 0, concurrency: 4, allowPrivate: true, vocabularies: false, robots: false,
      timeoutMs: 1_000, maxBodyBytes: 1024 * 1024, resolve: { 'localhost.test': '127.0.0.1' },
    }).run();
    log = crawlLog(dataDir);
  });
  afterAll(() => server.close());

  const entry = (p: string) => log.find((e) => e.url.endsWith(p))!;

  it('ends normally with every URL accounted for', () => {
    expect(summary.stoppedBy).toBeUndefined();
    expect(summary.queued).toBe(0);
    expect(entry('/good').triples).toBe(1);
  });

  it('records timeouts, resets, refused connections and DNS failures with a reason', () => {
    expect(entry('/slow').error).toMatch(/timeout/i);
    expect(entry('/reset').error ?? entry('/reset').diagnostics).toBeTruthy();
    expect(entry('/unreachable').error).toMatch(/connect|refused/i);
    expect(entry('no-such-host.test/x').error).toMatch(/dns|ENOTFOUND|resolve/i);
  });

  it('truncates huge bodies and bounds gzip bombs, keeping what it read', () => {
    expect(entry('/huge').truncated).toBe(1);
    expect(entry('/huge').triples).toBeGreaterThan(0);
    expect(entry('/bomb').truncated).toBe(1);
  });

  it('stops redirect loops', () => {
    // Each hop is archived once; the hop that closes the loop says so.
    expect(log.filter((e) => e.url.endsWith('/loop'))).toHaveLength(1);
    expect(entry('/loop2')).toMatchObject({ reason: 'redirected', error: expect.stringMatching(/^redirect loop: .*\/loop -> .*\/loop2 -> .*\/loop$/) });
  });

  it('records malformed RDF as a diagnostic and keeps going', () => {
    expect(JSON.parse(entry('/malformed').diagnostics ?? '[]').length).toBeGreaterThan(0);
  });

  it('sniffs a wrong media type and decodes a legacy charset', async () => {
    expect(entry('/wrongtype').triples).toBe(1);
    const { openStore } = await import('../../src/store/index.ts');
    const { exportArchive } = await import('../../src/archive/export.ts');
    const store = await openStore(dataDir);
    await store.init();
    let out = '';
    await exportArchive(store, dataDir, 'nquads', (s) => (out += s));
    await store.close();
    expect(out).toContain('"André Gödel"');
  });

  it('drops an invalid IRI with a diagnostic but keeps the valid triples of the document', () => {
    expect(entry('/badiri').triples).toBe(1);
    expect(JSON.parse(entry('/badiri').diagnostics ?? '[]').join(' ')).toMatch(/error/i);
  });
});
