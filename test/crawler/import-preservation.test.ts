import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { WARCParser, WARCRecord, WARCSerializer } from 'warcio';
import { importWarcs } from '../../src/crawler/import-warc.ts';
import { exportArchive, exportWarc } from '../../src/archive/export.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { withStore } from '../../src/store/index.ts';
import { buildServer } from '../../src/server/index.ts';
import { base32, crawlLog, repoRoot, runMain, tempDir } from '../helpers.ts';

/**
 * Preservation-grade import (#13): a realistic source WARC, written by warcio as Browsertrix and
 * pywb do (gzip per record, sha256 digests), holding warcinfo, request/response pairs, a gzip-encoded
 * and a chunked response, metadata, and a second month's file of revisits of the first.
 */

const enc = new TextEncoder();
const TTL_A = '<http://data.example/a> <http://data.example/p> "one" .\n';
const TTL_B = '@prefix ex: <http://data.example/> .\nex:b ex:p "two", "three" .\n';
const TTL_C = '<http://data.example/c> <http://data.example/p> "four" .\n';
const A = 'http://data.example/a.ttl';
const B = 'http://data.example/b.ttl';
const C = 'http://data.example/c.ttl';

async function rec(opts: Parameters<typeof WARCRecord.create>[0], body?: Uint8Array, gzip = true): Promise<{ bytes: Buffer; record: WARCRecord }> {
  const record = WARCRecord.create({ warcVersion: 'WARC/1.1', keepHeadersCase: true, ...opts }, body ? [body] : []);
  return { bytes: Buffer.from(await WARCSerializer.serialize(record, { gzip })), record };
}

const sha1b32 = (b: Buffer | string) => base32(createHash('sha1').update(b).digest());
const chunked = (s: string) => {
  const b = Buffer.from(s);
  const mid = Math.floor(b.length / 2);
  return Buffer.concat([Buffer.from(`${mid.toString(16)}\r\n`), b.subarray(0, mid), Buffer.from(`\r\n${(b.length - mid).toString(16)};ext=1\r\n`), b.subarray(mid), Buffer.from('\r\n0\r\n\r\n')]);
};

interface Month1 {
  file: string;
  ids: { a: string; b: string; c: string };
}

/** Month 1: warcinfo, three request/response pairs (one gzip-encoded, one chunked), a metadata record. */
async function month1(dir: string): Promise<Month1> {
  const parts: Buffer[] = [];
  parts.push((await rec({ type: 'warcinfo', filename: 'month1.warc.gz', date: '2024-01-01T00:00:00Z' }, enc.encode('software: warcio.js\r\nformat: WARC File Format 1.1\r\n'))).bytes);
  const pair = async (url: string, date: string, http: Record<string, string>, body: Buffer) => {
    parts.push((await rec({ type: 'request', url, date, statusline: 'GET ' + new URL(url).pathname + ' HTTP/1.1', httpHeaders: { Host: 'data.example', Accept: 'text/turtle' } })).bytes);
    const r = await rec({ type: 'response', url, date, httpHeaders: http }, body);
    parts.push(r.bytes);
    return r.record.warcHeaders.headers.get('WARC-Record-ID') as string;
  };
  const a = await pair(A, '2024-01-05T10:00:00Z', { 'Content-Type': 'text/turtle', 'Content-Encoding': 'gzip' }, zlib.gzipSync(TTL_A));
  const b = await pair(B, '2024-01-06T10:00:00Z', { 'Content-Type': 'text/turtle; charset=utf-8', 'Transfer-Encoding': 'chunked' }, chunked(TTL_B));
  const c = await pair(C, '2024-01-07T10:00:00Z', { 'Content-Type': 'text/turtle', 'Content-Length': String(Buffer.byteLength(TTL_C)) }, Buffer.from(TTL_C));
  parts.push((await rec({ type: 'metadata', url: C, date: '2024-01-07T10:00:01Z', warcHeaders: { 'Content-Type': 'application/warc-fields', 'WARC-Concurrent-To': c } }, enc.encode('outlink: http://data.example/a.ttl\r\n'))).bytes);
  const file = path.join(dir, 'month1.warc.gz');
  fs.writeFileSync(file, Buffer.concat(parts));
  return { file, ids: { a, b, c } };
}

/**
 * Month 2, uncompressed, as a deduplicating crawler writes it: a revisit of each month-1 response,
 * each naming it another way: by record ID only, by target URI and date, by payload digest only (sha1
 * base32 where month 1 recorded sha256 hex, and the dechunked payload of a chunked response).
 */
async function month2(dir: string, m1: Month1): Promise<string> {
  const revisit = (url: string, date: string, headers: Record<string, string>, opts: { refersToUrl?: string; refersToDate?: string } = {}) =>
    rec({ type: 'revisit', url, date, httpHeaders: { 'Content-Type': 'text/turtle', Date: new Date(date).toUTCString() }, warcHeaders: headers, ...opts }, undefined, false);
  const parts = [
    (await rec({ type: 'warcinfo', filename: 'month2.warc', date: '2024-02-01T00:00:00Z' }, enc.encode('software: heritrix\r\n'), false)).bytes,
    (await rec({ type: 'request', url: A, date: '2024-02-05T10:00:00Z', statusline: 'GET /a.ttl HTTP/1.1', httpHeaders: { Host: 'data.example' } }, undefined, false)).bytes,
    // By record ID alone (the digest names the gzip-encoded bytes as stored, sha256 hex).
    (await revisit(A, '2024-02-05T10:00:00Z', { 'WARC-Refers-To': m1.ids.a })).bytes,
    // By target URI and date (and a digest in sha1 hex without prefix).
    (await revisit(B, '2024-02-06T10:00:00Z', { 'WARC-Payload-Digest': createHash('sha1').update(TTL_B).digest('hex') }, { refersToUrl: B, refersToDate: '2024-01-06T10:00:00Z' })).bytes,
    // By payload digest alone, sha1 base32 with its prefix.
    (await revisit(C, '2024-02-07T10:00:00Z', { 'WARC-Payload-Digest': `sha1:${sha1b32(TTL_C)}` })).bytes,
  ];
  const file = path.join(dir, 'month2.warc');
  fs.writeFileSync(file, Buffer.concat(parts));
  return file;
}

/** Each record of a WARC file as warcio reads it: WARC head as text and the block's bytes. */
async function records(bytes: Buffer): Promise<Array<{ head: string; block: Buffer }>> {
  const out: Array<{ head: string; block: Buffer }> = [];
  for await (const r of new WARCParser([bytes], { keepHeadersCase: true, parseHttp: false })) {
    out.push({ head: r.warcHeaders.toString(), block: Buffer.from(await r.readFully()) });
  }
  return out;
}

const verify = (dir: string) => withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true });
const exported = (dir: string) => withStore(dir, undefined, async (store) => {
  const parts: Buffer[] = [];
  const r = await exportWarc(store, dir, (b) => void parts.push(b));
  return { ...r, bytes: Buffer.concat(parts) };
}, { readonly: true });

describe('import is preservation-grade', () => {
  it('keeps every record byte for byte: an import exported again gives the source records back, with nothing made up', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const m2File = await month2(src, m1);
    const dir = tempDir();
    const s = await importWarcs([m1.file, m2File], { dataDir: dir });
    expect(s.unreadable).toEqual([]);
    expect(s).toMatchObject({ records: 13, copied: 13, responses: 3, revisits: 3, imported: 6, new: 3, unchanged: 3, skipped: { revisitWithoutPayload: 0, notNewer: 0 } });

    const out = await exported(dir);
    expect(out.problems).toEqual([]);
    const source = [...(await records(fs.readFileSync(m1.file))), ...(await records(fs.readFileSync(m2File)))];
    const back = await records(out.bytes);
    expect(back.length).toBe(source.length);
    back.forEach((r, i) => {
      expect(r.head).toBe(source[i]!.head);
      expect(r.block.equals(source[i]!.block)).toBe(true);
    });
    // Gzipped per record, the source's members come back as they were; the uncompressed file's records exactly.
    const m1Bytes = fs.readFileSync(m1.file);
    expect(out.bytes.subarray(0, m1Bytes.length).equals(m1Bytes)).toBe(true);
    expect(zlib.gunzipSync(out.bytes.subarray(m1Bytes.length)).equals(fs.readFileSync(m2File))).toBe(true);

    // No request record was made: the archive holds three requests of month 1 and one of month 2, no other.
    const log = crawlLog(dir);
    const types = back.map((r) => /WARC-Type: (\w+)/.exec(r.head)![1]);
    expect(types.filter((t) => t === 'request')).toHaveLength(4);
    // Nothing made up in the log either: a version for each response and revisit, no more.
    expect(log).toHaveLength(6);

    const check = await verify(dir);
    expect(check.problems).toEqual([]);
    expect(check.unreferencedFiles).toEqual([]);
    // Each record once: the 13 copied ones and the RDF record of each new graph (a version's record is one of the 13).
    expect(check.records).toBe(13 + log.filter((e) => e.rdf_offset !== null).length);

    // The CLI's summary: counts a reader can add up, and a plural only for more than one.
    const text = await runMain(['import', '--data', tempDir(), m1.file, m2File]);
    expect(text.out).toMatch(/^13 of 13 records in 2 files kept byte for byte in [\d.]+ s; 6 of 6 responses and revisits \(3 responses, 3 revisits\) archived: 3 new, 0 changed, 3 unchanged, 0 redirects, 0 errors$/m);

    // Each version says where it came from (export --provenance): the fetch activity of A's version was imported from that file and record.
    let prov = '';
    await withStore(dir, undefined, (store) => exportArchive(store, dir, 'nquads', (t) => (prov += t), { provenance: true }), { readonly: true });
    const act = new RegExp(`^(<[^>]+>) <http://www.w3.org/ns/prov#used> <${A}>`, 'm').exec(prov)![1];
    expect(prov).toContain(`${act} <https://w3id.org/datamonitor/ns#importedFrom> <${pathToFileURL(m1.file).href}>`);
    expect(prov).toContain(`${act} <https://w3id.org/datamonitor/ns#sourceRecord> "${m1.ids.a}"`);
    // A's response is the source's third gzip member (after warcinfo and A's request).
    const m1Bytes0 = fs.readFileSync(m1.file);
    const third = m1Bytes0.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), m1Bytes0.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), 1) + 1);
    expect(prov).toContain(`${act} <https://w3id.org/datamonitor/ns#sourceOffset> "${third}"^^<http://www.w3.org/2001/XMLSchema#integer>`);
  });

  it('month by month: revisits in the second file resolve against the first file\'s responses imported in an earlier run, however they name them', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const m2File = await month2(src, m1);
    const dir = tempDir();
    await importWarcs([m1.file], { dataDir: dir });
    const s = await importWarcs([m2File], { dataDir: dir });
    expect(s).toMatchObject({ revisits: 3, imported: 3, unchanged: 3, skipped: { revisitWithoutPayload: 0 } });
    for (const url of [A, B, C]) {
      const versions = await withStore(dir, undefined, (store) => store.versions(url), { readonly: true });
      expect(versions.map((v) => v.change)).toEqual(['new', 'unchanged']);
      // The revisit's version has the payload of the original: the same sha1 in the log.
      expect(versions[1]!.checksum).toBe(versions[0]!.checksum);
    }
    // The graph is there for the later month too (a query at a time after the revisit).
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'query', '--data', dir, '--at', '2024-02-10', 'SELECT ?o WHERE { ?s ?p ?o } ORDER BY ?o', '--json'], { encoding: 'utf8' });
    expect(JSON.parse(r.stdout).results.bindings.map((b: { o: { value: string } }) => b.o.value)).toEqual(['four', 'one', 'three', 'two']);
    expect((await verify(dir)).problems).toEqual([]);
    // Importing month 1 again copies nothing: the archive holds those records.
    const again = await importWarcs([m1.file], { dataDir: dir });
    expect(again).toMatchObject({ copied: 0, skipped: { alreadyImported: 8 } });
  });

  it('a source gzipped as one stream, not per record, is read too: each record kept on its own, exported by the CLI', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const whole = path.join(src, 'whole.warc.gz');
    fs.writeFileSync(whole, zlib.gzipSync(zlib.gunzipSync(fs.readFileSync(m1.file))));
    const dir = tempDir();
    const s = await importWarcs([whole], { dataDir: dir });
    expect(s).toMatchObject({ records: 8, copied: 8, imported: 3, new: 3, unreadable: [] });
    const out = path.join(src, 'export.warc.gz');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'export', '--data', dir, '--format', 'warc', '-o', out], { encoding: 'utf8' });
    expect(r.stderr).toContain('exported 8 records from 1 WARC file\n');
    expect(r.status).toBe(0);
    const back = await records(fs.readFileSync(out));
    const source = await records(fs.readFileSync(m1.file));
    expect(back.map((b) => b.head)).toEqual(source.map((x) => x.head));
    back.forEach((b, i) => expect(b.block.equals(source[i]!.block)).toBe(true));
    expect(zlib.gunzipSync(fs.readFileSync(out)).equals(zlib.gunzipSync(fs.readFileSync(whole)))).toBe(true);
    // To standard output, the same bytes; --at is for the RDF formats and says so.
    const piped = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'export', '--data', dir, '--format', 'warc']);
    expect(piped.stdout.equals(fs.readFileSync(out))).toBe(true);
    const at = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'export', '--data', dir, '--format', 'warc', '--at', '2024-01-06'], { encoding: 'utf8' });
    expect(at.status).toBe(64);
    expect(at.stderr).toMatch(/--at and --provenance apply to the RDF formats/);
    expect((await verify(dir)).problems).toEqual([]);
  });

  it('replays an imported chunked response and its revisit as the payload, not the chunk framing', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const dir = tempDir();
    await importWarcs([m1.file, await month2(src, m1)], { dataDir: dir });
    const app = await buildServer({ dataDir: dir });
    try {
      for (const when of ['20240106100000', '20240206100000']) {
        const res = await app.inject({ method: 'GET', url: `/memento/${when}/${B}`, headers: { host: 'archive.test' } });
        expect(res.statusCode).toBe(200);
        expect(res.body).toBe(TTL_B);
      }
    } finally {
      await app.close();
    }
  });

  it('a revisit whose original is nowhere is kept as a record and said so, not given a payload', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const m2File = await month2(src, m1);
    const dir = tempDir();
    const s = await importWarcs([m2File], { dataDir: dir });
    expect(s).toMatchObject({ records: 5, copied: 5, revisits: 3, imported: 0, skipped: { revisitWithoutPayload: 3 } });
    expect((await records((await exported(dir)).bytes)).length).toBe(5);
  });

  it('a damaged record and a cut-short file are reported with file and offset; every other record is archived', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const bytes = fs.readFileSync(m1.file);
    // The members' offsets, by the gzip magic warcio's members start with.
    const starts: number[] = [];
    for (let i = bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08])); i >= 0; i = bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), i + 1)) starts.push(i);
    expect(starts).toHaveLength(8);
    // Damage the 5th member (B's response): flip bytes in its deflate data.
    const damaged = Buffer.from(bytes);
    for (let i = starts[4]! + 20; i < starts[4]! + 40; i++) damaged[i] = damaged[i]! ^ 0xff;
    // …and cut the file inside its last member (the metadata record).
    const cut = damaged.subarray(0, starts[7]! + 30);
    const file = path.join(src, 'damaged.warc.gz');
    fs.writeFileSync(file, cut);
    const dir = tempDir();
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'import', '--data', dir, file], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(`unreadable: ${file} at offset ${starts[4]}: the gzip member at ${starts[4]}`);
    expect(r.stdout).toContain(`unreadable: ${file} at offset ${starts[7]}: the file ends inside the gzip member`);
    expect(r.stdout).toMatch(/6 of 6 records in 1 file kept byte for byte/);
    // A, C imported as versions; B's request kept as a record, its response lost only itself.
    const out = await exported(dir);
    const kept = await records(out.bytes);
    const source = await records(bytes);
    expect(kept.map((k) => k.head)).toEqual([0, 1, 2, 3, 5, 6].map((i) => source[i]!.head));
    expect(crawlLog(dir).map((e) => e.url).sort()).toEqual([A, C]);
    expect((await verify(dir)).problems).toEqual([]);
  });

  it('a member whose damage makes it look unfinished to the end of the file does not hide the members after it', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const bytes = fs.readFileSync(m1.file);
    const starts: number[] = [];
    for (let i = bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08])); i >= 0; i = bytes.indexOf(Buffer.from([0x1f, 0x8b, 0x08]), i + 1)) starts.push(i);
    // The 3rd member (A's response) becomes a deflate stored block announcing 65535 bytes, more than the file has left.
    const bogus = Buffer.concat([bytes.subarray(starts[2]!, starts[2]! + 10), Buffer.from([0x00, 0xff, 0xff, 0x00, 0x00])]);
    const file = path.join(src, 'bogus.warc.gz');
    fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, starts[2]), bogus, bytes.subarray(starts[3])]));
    const dir = tempDir();
    const s = await importWarcs([file], { dataDir: dir });
    expect(s.unreadable).toEqual([`${file} at offset ${starts[2]}: the gzip member at ${starts[2]} cannot be inflated to its end: its bytes are damaged`]);
    expect(s).toMatchObject({ records: 7, copied: 7, responses: 2, imported: 2 });
  });

  it('in an uncompressed file, a record whose Content-Length is wrong is reported and the next record is found again', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const m2File = await month2(src, m1);
    const text = fs.readFileSync(m2File, 'latin1');
    // The revisit of A (the third record): its Content-Length made 7 bytes too long, reaching into the next record.
    const at = text.indexOf('WARC/1.1', text.indexOf(m1.ids.a) - 200);
    const head = text.indexOf('\r\n\r\n', at);
    const cl = /Content-Length: (\d+)/.exec(text.slice(at, head))!;
    const damaged = text.slice(0, at) + text.slice(at, head).replace(cl[0], `Content-Length: ${Number(cl[1]) + 7}`) + text.slice(head);
    const file = path.join(src, 'month2-damaged.warc');
    fs.writeFileSync(file, Buffer.from(damaged, 'latin1'));
    const dir = tempDir();
    await importWarcs([m1.file], { dataDir: dir });
    const s = await importWarcs([file], { dataDir: dir });
    expect(s.unreadable).toEqual([`${file} at offset ${at}: the record at ${at} does not end where its Content-Length (${Number(cl[1]) + 7}) says: its length is wrong`]);
    expect(s).toMatchObject({ records: 4, copied: 4, revisits: 2, imported: 2, unchanged: 2 });
    expect(crawlLog(dir).map((e) => e.url).sort()).toEqual([A, B, B, C, C].sort());
  });

  it('verify finds an imported record whose bytes changed, also one that is no version (a request), and says where it came from', async () => {
    const src = tempDir();
    const m1 = await month1(src);
    const dir = tempDir();
    await importWarcs([m1.file], { dataDir: dir });
    const index = fs.readdirSync(path.join(dir, 'warc', 'import')).find((f) => f.endsWith('.records.jsonl'))!;
    const lines = fs.readFileSync(path.join(dir, 'warc', 'import', index), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const request = lines.find((l) => l.type === 'request')!;
    expect(request.source).toBe(path.resolve(m1.file));
    // Bit rot in the copied request (a record the log does not point to): one byte of its deflate data flipped.
    const warc = path.join(dir, request.file);
    const all = fs.readFileSync(warc);
    all[request.offset + Math.floor(request.length / 2)] ^= 0x01;
    fs.writeFileSync(warc, all);
    const check = await verify(dir);
    expect(check.problems.map((p) => [p.kind, p.offset])).toEqual([[expect.stringMatching(/^(unreadable|copy-changed)$/), request.offset]]);
    expect(check.problems[0]!.detail).toContain(`imported from ${path.resolve(m1.file)}@${request.sourceOffset}`);

    // A damaged line in an index is reported by verify, and stops neither a later import nor an export.
    fs.appendFileSync(path.join(dir, 'warc', 'import', index), '{"truncated li\n');
    const again = await verify(dir);
    expect(again.problems.find((p) => p.detail.includes('1 lines of'))?.kind).toBe('unreadable');
    expect((await importWarcs([m1.file], { dataDir: dir })).skipped.alreadyImported).toBe(8);
    expect((await exported(dir)).records).toBe(7);
  });
});
