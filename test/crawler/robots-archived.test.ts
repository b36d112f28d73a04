import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, runMainOk, tempDir, warcFiles } from '../helpers.ts';

const ROBOTS = 'User-agent: *\nDisallow: /private/\nCrawl-delay: 0\n';

/** Every robots.txt record of an archive's WARC files: what it was fetched for, and its payload. */
async function robotsRecords(dataDir: string): Promise<Array<{ type: string; fetchedFor: string | null | undefined; body: string; date: string }>> {
  const out = [];
  for (const f of warcFiles(dataDir)) {
    for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
      if (!rec.warcTargetURI?.endsWith('/robots.txt')) continue;
      const body = rec.warcType === 'response' ? Buffer.from(await rec.readFully(true)).toString('utf8') : '';
      out.push({ type: rec.warcType, fetchedFor: rec.warcHeader('WARC-Datamonitor-Fetched-For'), body, date: rec.warcDate! });
    }
  }
  return out;
}

/**
 * robots.txt is archived as the pages are (Heritrix keeps it): an archivist needs the policy in force at
 * capture time. A WARC response record that says what it was fetched for, a crawl-log row with the reason
 * `prerequisite`, counted apart from the documents; a later crawl archives the policy of its own time.
 */
describe('robots.txt in the archive', () => {
  let site: TestServer;
  let robots = ROBOTS;
  const dataDir = tempDir();

  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end(robots);
      if (url.pathname === '/doc.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc.ttl#it> <http://example.org/p> <${url.origin}/private/x.ttl> .\n`);
      res.writeHead(404).end();
    });
  });
  afterAll(() => site?.close());

  it('is a WARC response record and a prerequisite row, not a document', async () => {
    const summary = await crawl({ seeds: [`${site.url}/doc.ttl`], dataDir, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false }).run();
    const records = await robotsRecords(dataDir);
    expect(records.filter((r) => r.type === 'response')).toMatchObject([{ fetchedFor: 'robots', body: ROBOTS }]);
    const rows = crawlLog(dataDir).filter((e) => e.url === `${site.url}/robots.txt`);
    expect(rows).toMatchObject([{ status: 200, reason: 'prerequisite' }]);
    expect(rows[0].warc_file).toBeTruthy();
    // The policy worked as before: the disallowed link was not fetched, the document was.
    expect(summary.reasons['robots-disallowed']).toBe(1);
    expect(summary.outcomes).toMatchObject({ new: 1, 'archived-only': 1, policy: 1 });
    // `log` does not list a robots.txt that served, by default.
    expect(await runMainOk(['log', '--data', dataDir])).not.toContain('/robots.txt');
  });

  it('is archived again by a later crawl, with the policy of its time', async () => {
    robots = 'User-agent: *\nDisallow: /\n';
    await crawl({ seeds: [`${site.url}/doc.ttl`], dataDir, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false, refetch: true }).run();
    const responses = (await robotsRecords(dataDir)).filter((r) => r.type === 'response');
    expect(responses).toHaveLength(2);
    expect(new Set(responses.map((r) => r.body))).toEqual(new Set([ROBOTS, robots]));
    const rows = crawlLog(dataDir).filter((e) => e.url === `${site.url}/robots.txt`);
    expect(rows.map((e) => e.reason)).toEqual(['prerequisite', 'prerequisite']);
    // And a rebuild from the WARC files gives the same rows back.
    await runMainOk(['rebuild', '--data', dataDir]);
    expect(crawlLog(dataDir).filter((e) => e.url === `${site.url}/robots.txt`).map((e) => [e.status, e.reason])).toEqual([[200, 'prerequisite'], [200, 'prerequisite']]);
  });
});
