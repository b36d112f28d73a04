import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { scanWarc, type ScannedRecord } from '../../src/archive/warc-scan.ts';
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

/**
 * A rebuild reads each file once, finding a version's conversion record among the records just after it,
 * where the crawl and import write it. One written farther on (another writer's layout) is still found.
 */
describe('rebuild finds a version\'s conversion record wherever its file holds it', () => {
  it('points the version at its RDF when 40 records stand between the response and its conversion record', async () => {
    const site = await startServer((_req, res, url) => res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.origin}/doc.ttl#it> <http://example.org/says> "far" .\n`));
    try {
      const dataDir = tempDir();
      await crawl({ seeds: [`${site.url}/doc.ttl`], dataDir, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'], vocabularies: false, robots: false, threads: false }).run();
      const [file] = warcFiles(dataDir);
      const records = [...scanWarc(file!)].filter((r): r is ScannedRecord => !('error' in r));
      const type = (r: ScannedRecord) => r.headers.get('warc-type');
      const conversion = records.find((r) => type(r) === 'conversion')!;
      const request = records.find((r) => type(r) === 'request')!;
      // The conversion record moved to the end, after 40 copies of the request record.
      const others = records.filter((r) => r !== conversion);
      fs.writeFileSync(file!, Buffer.concat([...others.map((r) => r.member!), ...Array.from({ length: 40 }, () => request.member!), conversion.member!]));
      const rdfOffset = others.reduce((n, r) => n + r.member!.length, 0) + 40 * request.member!.length;
      fs.rmSync(path.join(dataDir, 'meta.sqlite'));
      const out = await runMainOk(['rebuild', '--data', dataDir]);
      expect(out).not.toMatch(/logged without RDF/);
      const [row] = crawlLog(dataDir).filter((e) => e.url === `${site.url}/doc.ttl`);
      expect(row).toMatchObject({ change: 'new', rdf_offset: rdfOffset, rdf_length: conversion.member!.length });
    } finally {
      await site.close();
    }
  });
});
