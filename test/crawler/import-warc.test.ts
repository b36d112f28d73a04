import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { importWarcs } from '../../src/crawler/import-warc.ts';
import { exportArchive } from '../../src/archive/export.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { withStore } from '../../src/store/index.ts';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { crawlLog, repoRoot, tempDir, warcFiles } from '../helpers.ts';
import { parseHttpResponse, readRecord } from '../../src/archive/warc-reader.ts';
import { sha1Digest } from '../../src/archive/warc-record.ts';

const nquads = (dir: string) => withStore(dir, undefined, async (store) => {
  let out = '';
  await exportArchive(store, dir, 'nquads', (s) => (out += s));
  return new Set(out.split('\n').filter(Boolean));
}, { readonly: true });

/** An uncompressed WARC written by hand: a response per [date, turtle body], or a revisit per [date, { revisitOf: digest }]. */
function handWrittenWarc(file: string, url: string, records: Array<[string, string | { revisitOf: string }]>): void {
  const out = records.map(([date, body]) => {
    const revisit = typeof body !== 'string';
    const http = revisit ? 'HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n' : `HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const extra = revisit
      ? `WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\nWARC-Payload-Digest: ${body.revisitOf}\r\nWARC-Refers-To-Target-URI: ${url}\r\n`
      : `WARC-Payload-Digest: ${sha1Digest(body)}\r\n`;
    return `WARC/1.1\r\nWARC-Type: ${revisit ? 'revisit' : 'response'}\r\nWARC-Record-ID: <urn:uuid:${crypto.randomUUID()}>\r\nWARC-Date: ${date}\r\nWARC-Target-URI: ${url}\r\n${extra}`
      + `Content-Type: application/http; msgtype=response\r\nContent-Length: ${Buffer.byteLength(http)}\r\n\r\n${http}\r\n\r\n`;
  });
  fs.writeFileSync(file, out.join(''));
}

describe('import: WARC files made elsewhere become versions of the archive', () => {
  let web: WebOfData;
  const crawled = tempDir();
  beforeAll(async () => {
    web = await startWebOfData();
    await crawl({ seeds: [web.seed], dataDir: crawled, depth: 4, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => web.close());

  it('re-archives a crawl from its WARC files alone: the same graphs, every record intact, and a second import adds nothing', async () => {
    const dir = tempDir();
    const files = warcFiles(crawled).sort();
    const s = await importWarcs(files, { dataDir: dir });
    expect(s.unreadable).toEqual([]);
    expect(s.imported).toBe(s.responses);
    expect(s.new).toBeGreaterThanOrEqual(13);
    expect(await nquads(dir)).toEqual(await nquads(crawled));
    const check = await withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true });
    expect(check.problemCount).toBe(0);
    // Each record once: every copied one, and the RDF (conversion) record of each version whose graph changed.
    const graphs = crawlLog(dir).filter((e) => e.rdf_offset !== null).length;
    expect(graphs).toBeGreaterThan(0);
    expect(check.records).toBe(s.copied + graphs);
    const again = await importWarcs(files, { dataDir: dir });
    expect(again.imported).toBe(0);
    expect(again.copied).toBe(0);
    expect(again.skipped.alreadyImported).toBe(s.records);
  });

  it('tells a changed graph from a re-serialised one across versions, and skips what is not newer', async () => {
    const dir = tempDir();
    const warc = path.join(tempDir(), 'hand.warc');
    const url = 'http://data.example/doc.ttl';
    handWrittenWarc(warc, url, [
      ['2024-01-01T00:00:00Z', '<http://data.example/a> <http://data.example/p> "one" .\n'],
      ['2024-02-01T00:00:00Z', '@prefix ex: <http://data.example/> .\nex:a ex:p "one" .\n'],
      ['2024-03-01T00:00:00Z', '<http://data.example/a> <http://data.example/p> "two" .\n'],
      ['2024-02-15T00:00:00Z', '<http://data.example/a> <http://data.example/p> "late" .\n'],
    ]);
    const s = await importWarcs([warc], { dataDir: dir });
    expect(s).toMatchObject({ responses: 4, imported: 3, new: 1, unchanged: 1, changed: 1, skipped: { notNewer: 1, notHttp: 0 } });
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'query', '--data', dir, '--at', '2024-02-10', 'SELECT ?o WHERE { ?s ?p ?o }', '--json'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout).results.bindings.map((b: { o: { value: string } }) => b.o.value)).toEqual(['one']);
    const cli = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'import', '--data', dir, path.join(dir, 'nothing.warc')], { encoding: 'utf8' });
    expect(cli.status).toBe(66);
    expect(cli.stderr).toMatch(/is not a file: give WARC files/);
  });

  it('archives a deduplicating crawler\'s revisit records with the payload they name, and says when it is not there', async () => {
    const dir = tempDir();
    const warc = path.join(tempDir(), 'dedup.warc');
    const url = 'http://data.example/doc.ttl';
    const body = '<http://data.example/a> <http://data.example/p> "one" .\n';
    handWrittenWarc(warc, url, [
      ['2024-01-01T00:00:00Z', body],
      ['2024-02-01T00:00:00Z', { revisitOf: sha1Digest(body) }],
      ['2024-03-01T00:00:00Z', { revisitOf: 'sha1:ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ' }],
    ]);
    const s = await importWarcs([warc], { dataDir: dir });
    expect(s).toMatchObject({ responses: 1, revisits: 2, imported: 2, new: 1, unchanged: 1, skipped: { revisitWithoutPayload: 1 } });
    const versions = await withStore(dir, undefined, (store) => store.versions(url), { readonly: true });
    expect(versions.map((v) => [new Date(v.time).toISOString(), v.change])).toEqual([['2024-01-01T00:00:00.000Z', 'new'], ['2024-02-01T00:00:00.000Z', 'unchanged']]);
    expect((await withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true })).problemCount).toBe(0);
  });
});

describe('import: revisits of an earlier crawl', () => {
  let web: WebOfData;
  const crawled = tempDir();
  beforeAll(async () => {
    web = await startWebOfData();
    await crawl({ seeds: [web.seed], dataDir: crawled, depth: 1, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => web.close());

  it('resolve against the crawl\'s captures by target URI and date, or by a sha256 digest where the crawl logged sha1', async () => {
    const dir = tempDir();
    fs.cpSync(crawled, dir, { recursive: true });
    const [first, second] = crawlLog(dir).filter((e) => e.status === 200 && e.rdf_offset !== null);
    expect(second).toBeDefined();
    const payloadOf = (e: Record<string, any>) => parseHttpResponse(readRecord(dir, e.warc_file, e.warc_offset, e.warc_length).block).body;
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const revisit = (url: string, headers: string) => {
      const http = 'HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\n\r\n';
      return `WARC/1.1\r\nWARC-Type: revisit\r\nWARC-Record-ID: <urn:uuid:${crypto.randomUUID()}>\r\nWARC-Date: ${later}\r\nWARC-Target-URI: ${url}\r\n`
        + `WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n${headers}Content-Type: application/http; msgtype=response\r\nContent-Length: ${http.length}\r\n\r\n${http}\r\n\r\n`;
    };
    const warc = path.join(tempDir(), 'dedup-of-crawl.warc');
    fs.writeFileSync(warc, revisit(first.url, `WARC-Refers-To-Target-URI: ${first.url}\r\nWARC-Refers-To-Date: ${new Date(first.time).toISOString()}\r\n`)
      + revisit(second.url, `WARC-Payload-Digest: sha256:${crypto.createHash('sha256').update(payloadOf(second)).digest('hex')}\r\n`));
    const s = await importWarcs([warc], { dataDir: dir });
    expect(s).toMatchObject({ revisits: 2, imported: 2, unchanged: 2, skipped: { revisitWithoutPayload: 0 } });
    for (const e of [first, second]) {
      const versions = await withStore(dir, undefined, (store) => store.versions(e.url), { readonly: true });
      expect(versions.at(-1)!.time).toBe(Date.parse(later));
      expect(versions.at(-1)!.checksum).toBe(e.checksum);
    }
    expect((await withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true })).problems).toEqual([]);
  });
});
