import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, runMainOk, tempDir, warcFiles } from '../helpers.ts';

/**
 * `rebuild` reads an archive's WARC files in the order they were written: by the time in their names, then by
 * the writer's sequence number as a number. One writer's files of one second are `…-9-…` and `…-10-…`; read as
 * text, the later file came first and the older capture of a URL in the other was skipped as not newer.
 */
describe('rebuild reads the WARC files in the order they were written', () => {
  let site: TestServer;
  let body = 'first';
  beforeAll(async () => {
    site = await startServer((_req, res, url) => {
      if (url.pathname === '/doc.ttl') return res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc.ttl#it> <http://example.org/says> "${body}" .\n`);
      res.writeHead(404).end();
    });
  });
  afterAll(() => site?.close());

  it('keeps both captures of a URL written in files 9 and 10 of one second', async () => {
    const dataDir = tempDir();
    const options = { seeds: [`${site.url}/doc.ttl`], dataDir, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false, refetch: true, robots: false, threads: false };
    await crawl(options).run();
    const [older] = warcFiles(dataDir);
    body = 'second';
    await crawl(options).run();
    const newer = warcFiles(dataDir).find((f) => f !== older)!;
    // The names one writer gives its 10th and 11th files within one second.
    fs.renameSync(older!, path.join(path.dirname(older!), 'datamonitor-20260101000000-4242-9-aaaaaa.warc.gz'));
    fs.renameSync(newer, path.join(path.dirname(newer), 'datamonitor-20260101000000-4242-10-bbbbbb.warc.gz'));
    fs.rmSync(path.join(dataDir, 'meta.sqlite'));
    await runMainOk(['rebuild', '--data', dataDir]);
    const rows = crawlLog(dataDir).filter((e) => e.url === `${site.url}/doc.ttl`);
    expect(rows.map((e) => e.change)).toEqual(['new', 'changed']);
  });
});
