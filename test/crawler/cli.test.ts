import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { crawl } from '../../src/crawler/crawl.ts';
import { runMain as cli, crawlLog, tempDir } from '../helpers.ts'; // in this process: each command line as a process cost a CPU-second of start-up


describe('datamonitor crawl on the command line', () => {
  let web: WebOfData;
  beforeAll(async () => (web = await startWebOfData()));
  afterAll(() => web.close());

  it('crawls with an LRU seen cache, writes the seen-test trace and prints the JSON summary', async () => {
    const dataDir = tempDir();
    const trace = path.join(dataDir, 'seen.trace');
    const r = await cli(['crawl', web.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--domain', '127.0.0.1', '--seen-cache', 'lru', '--trace-out', trace, '--json']);
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.out);
    expect(summary).toMatchObject({ errors: expect.any(Number), triples: expect.any(Number) });
    expect(summary.documents).toBeGreaterThanOrEqual(13);
    const urls = fs.readFileSync(trace, 'utf8').trim().split('\n');
    expect(urls[0]).toBe(web.seed);
    expect(urls.length).toBeGreaterThan(new Set(urls).size); // every link the seen test received, repeats included
  });

  it('says which flag is wrong', async () => {
    const r = await cli(['crawl', web.seed, '--data', tempDir(), '--seen-cache', 'fifo']);
    expect(r.code).toBe(64);
    expect(r.err).toMatch(/--seen-cache 'fifo' is not one of clock, lru, random/);
  });
});

describe('an unresolvable host with robots.txt on', () => {
  it('fails its page at once with the DNS reason instead of deferring the host', async () => {
    const dataDir = tempDir();
    const s = await crawl({ seeds: ['http://no-such-host.test/doc'], dataDir, resolve: { 'other.test': '127.0.0.1' }, allowPrivate: true }).run();
    expect(s.errors).toBe(1);
    // A deferred host would log "robots.txt unavailable" after minutes (and this test would time out).
    expect(crawlLog(dataDir)[0].error).toMatch(/dns|ENOTFOUND/i);
  });
});

describe('crawl --refetch: capture a known page now', () => {
  it('fetches the seed again although the archive has it; a changed graph is a new version, other known pages are left alone', async () => {
    let title = 'one';
    const { startServer } = await import('../../src/testkit/server.ts');
    const site = await startServer((_req, res, url) => {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      if (url.pathname === '/doc') return res.end(`<${url.origin}/doc> <http://purl.org/dc/terms/title> "${title}" ; <http://www.w3.org/2000/01/rdf-schema#seeAlso> <${url.origin}/other> .\n`);
      res.end(`<${url.origin}/other> <http://purl.org/dc/terms/title> "other" .\n`);
    });
    const dataDir = tempDir();
    const base = ['--data', dataDir, '--allow-private', '--delay', '0', '--domain', '127.0.0.1', '--no-robots', '--no-vocabularies', '--json'];
    try {
      expect(JSON.parse((await cli(['crawl', `${site.url}/doc`, ...base])).out)).toMatchObject({ new: 2 });
      // Without --refetch the archive already has it: nothing is fetched.
      expect(JSON.parse((await cli(['crawl', `${site.url}/doc`, ...base])).out)).toMatchObject({ documents: 0 });
      title = 'two';
      const again = JSON.parse((await cli(['crawl', `${site.url}/doc`, '--refetch', ...base])).out);
      expect(again).toMatchObject({ documents: 1, changed: 1 });
      expect(crawlLog(dataDir).filter((e) => e.url === `${site.url}/doc`).map((e) => e.change)).toEqual(['new', 'changed']);
      const diff = await cli(['diff', `${site.url}/doc`, '--data', dataDir, '--from', '2000-01-01']);
      expect(diff.out).toContain('"two"');
      expect((await cli(['crawl', '--refetch', ...base])).err).toMatch(/--refetch fetches the seeds again: give the URLs/);
    } finally {
      await site.close();
    }
  });
});
