import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl, type CrawlSummary } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { runMain as cli, crawlLog, tempDir } from '../helpers.ts'; // in this process: each command line as a process cost a CPU-second of start-up


// A site where each URL meets another fate: archived, unparsable, disallowed, missing, too deep.
describe("every URL's fate is a record with its reason", () => {
  let site: TestServer;
  let dataDir: string;
  let summary: CrawlSummary;

  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      const base = `http://127.0.0.1:${site.port}`;
      const turtle = (body: string) => res.writeHead(200, { 'content-type': 'text/turtle' }).end(body);
      switch (url.pathname) {
        case '/robots.txt': return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
        case '/': return turtle(`<${base}/> <http://example.org/links> <${base}/broken1>, <${base}/broken2>, <${base}/private>, <${base}/missing>, <${base}/deep> .\n`);
        case '/broken1': case '/broken2': return turtle('<a> <b> this is not turtle .\n');
        case '/deep': return turtle(`<${base}/deep> <http://example.org/links> <${base}/deeper1>, <${base}/deeper2> .\n`);
        default: return res.writeHead(404).end();
      }
    });
    dataDir = tempDir();
    summary = await crawl({ seeds: [`${site.url}/`], dataDir, depth: 1, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => site.close());

  it('counts the fates by reason in the summary, parse errors as errors and filtered URLs once each', () => {
    expect(summary.reasons).toMatchObject({ fetched: 2, 'parse-error': 2, 'robots-disallowed': 1, 'http-error': 1, 'filtered-depth': 2, 'filtered-domain': 1 });
    expect(summary.errors).toBe(3); // two unparsable documents and the 404
    expect(summary.new).toBe(2); // the seed and /deep, not the documents that failed to parse
    expect(summary.skipped).toEqual({ robots: 1, filtered: 3, hostFailing: 0 }); // /deeper1, /deeper2 and the vocabulary's host
  });

  it('gives every crawl-log row its reason', () => {
    const reasons = Object.fromEntries(crawlLog(dataDir).map((e) => [new URL(e.url).pathname, e.reason]));
    expect(reasons).toEqual({ '/robots.txt': 'prerequisite', '/': 'fetched', '/broken1': 'parse-error', '/broken2': 'parse-error', '/private': 'robots-disallowed', '/missing': 'http-error', '/deep': 'fetched' });
  });

  it('`datamonitor log` lists failures and diagnostics, by reason and URL, as text and JSON', async () => {
    const all = await cli(['log', '--data', dataDir]);
    expect(all.code).toBe(0);
    const lines = all.out.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(all.out).toMatch(/parse-error .*\/broken1 /);
    expect(all.out).toMatch(/robots-disallowed .*\/private .*robots\.txt: disallowed/);
    expect(all.out).not.toMatch(/fetched/);

    const parse = JSON.parse((await cli(['log', '--data', dataDir, '--reason', 'parse-error', '--json'])).out);
    expect(parse.map((e: { url: string }) => new URL(e.url).pathname).sort()).toEqual(['/broken1', '/broken2']);
    expect(parse[0].diagnostics.join(' ')).toMatch(/^error: /);

    const one = JSON.parse((await cli(['log', '--data', dataDir, '--url', `${site.url}/missing`, '--json'])).out);
    expect(one).toMatchObject([{ reason: 'http-error', status: 404 }]);

    const limited = await cli(['log', '--data', dataDir, '--limit', '1']);
    expect(limited.out.trim().split('\n')).toHaveLength(2); // the entry and the hint about --limit
  });

  it('`datamonitor log` names the reasons in its help and refuses one it does not know', async () => {
    const help = await cli(['log', '--help']);
    expect(help.out).toMatch(/refused-address +resolves to a private/);
    const bad = await cli(['log', '--data', dataDir, '--reason', 'bogus']);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/--reason 'bogus' is not a reason; the reasons are: fetched, unchanged/);
  });

  it('`stats` counts only requested URLs as fetches', async () => {
    const r = await cli(['stats', '--data', dataDir]);
    // 7 rows: robots.txt, 2 captured, 2 unparsable, 1 404, 1 never requested (disallowed): one column each, adding up.
    expect(r.out).toMatch(/log +7 entries from .*: 2 new, 0 changed, 0 unchanged, 1 archived only, 1 skipped by policy, 2 parse errors, 1 error \(6 fetches\)/);
    expect(r.out).toMatch(/reasons +prerequisite 1, fetched 2, parse-error 2, robots-disallowed 1, http-error 1/);
  });
});

describe('`datamonitor log --url U`', () => {
  it('shows every row of U and of the URLs it redirected to, captures included', async () => {
    const site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(404).end();
      if (url.pathname === '/old') return res.writeHead(301, { location: '/moved' }).end();
      if (url.pathname === '/moved') return res.writeHead(302, { location: '/doc' }).end();
      res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc> <http://example.org/p> "the document" .\n`);
    });
    try {
      const dataDir = tempDir();
      const options = { seeds: [`${site.url}/doc`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true };
      // Captured three times: twice asked for, once reached through two redirects.
      await crawl(options).run();
      await crawl(options).run();
      await crawl({ ...options, seeds: [`${site.url}/old`] }).run();
      const doc = JSON.parse((await cli(['log', '--data', dataDir, '--url', `${site.url}/doc`, '--json'])).out);
      expect(doc.map((e: { reason: string }) => e.reason)).toEqual(['unchanged', 'unchanged', 'fetched']);
      const old = JSON.parse((await cli(['log', '--data', dataDir, '--url', `${site.url}/old`, '--json'])).out);
      expect(old.map((e: { url: string; reason: string }) => `${new URL(e.url).pathname} ${e.reason}`)).toEqual([
        '/doc unchanged', '/moved redirected', '/old redirected', '/doc unchanged', '/doc fetched',
      ]);
      const text = await cli(['log', '--data', dataDir, '--url', `${site.url}/doc`]);
      expect(text.out).not.toMatch(/no log entries match/);
      // A redirect's line names where it led as the crawl followed it: a whole URL, not the header as written.
      expect((await cli(['log', '--data', dataDir, '--url', `${site.url}/old`])).out).toContain(`${site.url}/old -> ${site.url}/moved`);
    } finally {
      await site.close();
    }
  });
});
