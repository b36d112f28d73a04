import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { crawl } from '../../src/crawler/crawl.ts';
import { startServer, type TestServer } from '../../src/testkit/server.ts';
import { crawlLog, tempDir, warcFiles } from '../helpers.ts';

/** One document served in successive forms; each crawl fetches it again. */
describe('a change is a change of the graph, not of its serialisation', () => {
  let server: TestServer;
  let body = '';
  let etag: string | undefined;
  const dataDir = tempDir();
  const fetchAgain = () => crawl({ seeds: [`${server.url}/doc`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'] }).run();

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        return res.end();
      }
      if (etag && req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/turtle', ...(etag ? { etag } : {}) });
      res.end(body);
    });
  });
  afterAll(() => server.close());

  it('tells new, unchanged bytes, re-serialised, blank-node-relabelled, changed and 304 apart', async () => {
    body = '@prefix ex: <http://example.org/> .\nex:a ex:p ex:b ; ex:q [ ex:r "x" ] .\n';
    await fetchAgain(); // new
    await fetchAgain(); // same bytes
    body = '<http://example.org/a> <http://example.org/q> _:other .\n_:other <http://example.org/r> "x" .\n<http://example.org/a> <http://example.org/p> <http://example.org/b> .\n';
    await fetchAgain(); // same graph, other bytes and blank-node labels
    body = '@prefix ex: <http://example.org/> .\nex:a ex:p ex:c ; ex:q [ ex:r "x" ] .\n';
    await fetchAgain(); // changed
    etag = '"v5"';
    await fetchAgain(); // 200 with an ETag
    await fetchAgain(); // conditional GET answered 304
    const changes = crawlLog(dataDir).filter((e) => e.url.endsWith('/doc')).map((e) => e.change);
    expect(changes).toEqual(['new', 'unchanged', 'unchanged', 'changed', 'unchanged', 'unchanged']);
    expect(server.requests.filter((r) => r.path === '/doc').at(-1)?.headers['if-none-match']).toBe('"v5"');
  });

  it('writes revisit records for unchanged bytes and a conversion record only when the graph changed', async () => {
    const records: Array<{ type: string; profile?: string | null; date: string }> = [];
    for (const f of warcFiles(dataDir)) {
      for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
        if (rec.warcTargetURI?.endsWith('/doc')) records.push({ type: rec.warcType, profile: rec.warcHeader('WARC-Profile'), date: rec.warcDate ?? '' });
        await rec.readFully();
      }
    }
    const main = records.filter((r) => r.type !== 'request').sort((a, b) => a.date.localeCompare(b.date));
    // new; same bytes; re-serialised (new bytes, same graph: no conversion); changed; same bytes again; 304
    expect(main.map((r) => r.type)).toEqual(['response', 'conversion', 'revisit', 'response', 'response', 'conversion', 'revisit', 'revisit']);
    expect(main.at(-1)?.profile).toMatch(/server-not-modified/);
    expect(main[2].profile).toMatch(/identical-payload-digest/);
  });

  it('the versioned query store, caught up from the archive, has each changed graph, and only those', async () => {
    const { indexVersions } = await import('../query/helpers.ts');
    const { archive } = await indexVersions(dataDir);
    const versions = archive.versions(`${server.url}/doc`);
    const delta = archive.delta(versions[0].time, versions[1].time);
    await archive.close();
    expect(versions.map((v) => v.kind)).toEqual(['put', 'put']);
    expect(delta.added.map((r) => r.o)).toEqual(['<http://example.org/c>']);
    expect(delta.removed.map((r) => r.o)).toEqual(['<http://example.org/b>']);
  });
});

/** A document deleted (404) that comes back with the very bytes it had: the archive must show it back. */
describe('a document that returns after a 404', () => {
  let server: TestServer;
  let gone = false;
  const etag = '"v1"';
  const dataDir = tempDir();
  const body = '@prefix ex: <http://example.org/> .\n@prefix foaf: <http://xmlns.com/foaf/0.1/> .\nex:alice foaf:name "Alice" ; foaf:knows [ foaf:name "Bob" ] , <http://other.example/carol> .\n';
  const fetchAgain = () => crawl({ seeds: [`${server.url}/doc`], dataDir, delayMs: 0, allowPrivate: true, vocabularies: false, refetch: true, noFollow: true, domains: ['127.0.0.1'] }).run();

  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/robots.txt' || gone) {
        res.writeHead(404);
        return res.end();
      }
      // A server that answers validators: a stale ETag kept through the 404 would be answered 304.
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/turtle', etag });
      res.end(body);
    });
  });
  afterAll(() => server.close());

  it('logs the return as a change and indexes the graph again, not "unchanged" of a deleted document', async () => {
    await fetchAgain(); // new
    gone = true;
    await fetchAgain(); // 404: deleted
    gone = false;
    await fetchAgain(); // back, same bytes, same ETag
    await fetchAgain(); // now truly unchanged (304)
    const log = crawlLog(dataDir).filter((e) => e.url.endsWith('/doc'));
    expect(log.map((e) => [e.status, e.change])).toEqual([[200, 'new'], [404, 'error'], [200, 'changed'], [304, 'unchanged']]);
    const docRequests = server.requests.filter((r) => r.path === '/doc');
    expect(docRequests[2]?.headers['if-none-match']).toBeUndefined();
    expect(docRequests[3]?.headers['if-none-match']).toBe(etag);

    const { indexVersions } = await import('../query/helpers.ts');
    const { archive } = await indexVersions(dataDir);
    const versions = archive.versions(`${server.url}/doc`);
    await archive.close();
    expect(versions.map((v) => v.kind)).toEqual(['put', 'deleted', 'put']);
    expect(versions[2].time).toBe(log[2].time);
  });
});
