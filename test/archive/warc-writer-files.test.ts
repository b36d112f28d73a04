import { describe, it, expect, afterEach } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WarcWriter, type ArchivedExchange, type WireExchange } from '../../src/archive/warc-writer.ts';
import { readRecord } from '../../src/archive/warc-reader.ts';
import { listWarcFiles } from '../../src/archive/warc-files.ts';
import { recoverOpenFiles } from '../../src/archive/warc-writer.ts';
import { SqliteStore } from '../../src/store/sqlite.ts';

/**
 * A crawl of more hosts than the writer keeps files open for (maxOpenFiles) visits them in turn. Each
 * host keeps one file an hour all the same: the writer closes a descriptor to stay under its cap, not the
 * file. (It used to finish the least recently used file, with an fsync, and start a new one with its own
 * warcinfo record the next time that host came round: about one file and one fsync per page on the
 * 100-host scale run.)
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function exchange(url: string, time: number, n: number): WireExchange {
  const body = Buffer.from(`<${url}> <http://example.org/n> "${n}" .\n`);
  return {
    url,
    time,
    requestHead: `GET ${new URL(url).pathname} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n\r\n`,
    responseHead: `HTTP/1.1 200 OK\r\nContent-Type: application/n-triples\r\nContent-Length: ${body.length}\r\n\r\n`,
    body,
    truncated: false,
    notModified: false,
    payloadDigest: 'sha1:AAAA',
    nquads: body.toString(),
  };
}

describe('WARC writer: more hosts than open files', () => {
  it('keeps one file per host and hour, every record readable at its logged offset', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-warc-files-'));
    dirs.push(dir);
    const writer = new WarcWriter(dir, { maxOpenFiles: 3 });
    const hosts = Array.from({ length: 10 }, (_v, i) => `h${i}.example.org`);
    const t = Date.UTC(2026, 11, 2, 7, 10);
    const written: Array<[string, number, ArchivedExchange]> = [];
    // Round robin over the hosts, as a breadth-first crawl of many hosts goes: the LRU file is always the one needed next.
    for (let round = 0; round < 5; round++) {
      for (const [i, h] of hosts.entries()) {
        const url = `http://${h}/doc/${round}`;
        written.push([url, round * 10 + i, await writer.writeWire(exchange(url, t + round * 1000 + i, round * 10 + i))]);
      }
    }
    await writer.close();

    const files = listWarcFiles(dir);
    expect(files.open).toEqual([]);
    expect(files.closed).toHaveLength(hosts.length);
    for (const h of hosts) expect(files.closed.filter((f) => f.includes(`${path.sep}${h}${path.sep}`))).toHaveLength(1);
    for (const [url, n, at] of written) {
      expect(at.file.includes(new URL(url).host)).toBe(true);
      const response = readRecord(dir, at.file, at.offset, at.length);
      expect(response.headers.get('warc-target-uri')).toBe(url);
      const conversion = readRecord(dir, at.file, at.rdfOffset!, at.rdfLength!);
      expect(conversion.block.toString()).toContain(`"${n}"`);
    }
  });

  it('finishes the files of an hour past when the crawl writes into the next hour', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-warc-files-'));
    dirs.push(dir);
    const writer = new WarcWriter(dir, { maxOpenFiles: 2 });
    const t = Date.UTC(2026, 11, 2, 7, 59);
    for (let i = 0; i < 4; i++) await writer.writeWire(exchange(`http://h${i}.example.org/a`, t, i));
    // Two of the four are parked now; the next hour's first record finishes every file of 07:00.
    await writer.writeWire(exchange('http://h0.example.org/b', t + 120_000, 9));
    await new Promise((r) => setTimeout(r, 50));
    const during = listWarcFiles(dir);
    expect(during.closed.filter((f) => f.includes(`${path.sep}07${path.sep}`)).length).toBeGreaterThanOrEqual(2);
    expect(during.open.filter((f) => f.includes(`${path.sep}08${path.sep}`))).toHaveLength(1);
    await writer.close();
    const after = listWarcFiles(dir);
    expect(after.open).toEqual([]);
    expect(after.closed).toHaveLength(5);
  });

  it('after a crash with a file open per host: each cut where its committed rows end, in one read of the log', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-warc-files-'));
    dirs.push(dir);
    const store = new SqliteStore(path.join(dir, 'meta.sqlite'));
    await store.init();
    const writer = new WarcWriter(dir, { maxOpenFiles: 3 });
    const t = Date.UTC(2026, 11, 2, 7, 10);
    const ends = new Map<string, number>();
    for (let i = 0; i < 12; i++) {
      const url = `http://h${i % 4}.example.org/doc/${i}`;
      const at = await writer.writeWire(exchange(url, t + i, i));
      // h3's records, and the last record of every host, never reach the log: the crash came first.
      if (i % 4 === 3 || i >= 8) continue;
      await store.appendLog({ url, time: t + i, status: 200, durationMs: 1, bytes: 40, change: 'new', triples: 1, warcFile: at.file, warcOffset: at.offset, warcLength: at.length, rdfOffset: at.rdfOffset, rdfLength: at.rdfLength });
      ends.set(at.file, at.rdfOffset! + at.rdfLength!);
    }
    await store.flush();
    expect(listWarcFiles(dir).open).toHaveLength(4);
    let reads = 0;
    const recovered = await recoverOpenFiles(dir, (rels) => (reads++, store.warcEnds(rels)));
    await store.close();
    expect(reads).toBe(1);
    expect(recovered.repaired.sort()).toEqual([...ends.keys()].sort());
    expect(recovered.removed).toHaveLength(1);
    expect(recovered.removed[0]).toContain('h3.example.org');
    for (const [file, end] of ends) expect(fs.statSync(path.join(dir, file)).size).toBe(end);
    expect(listWarcFiles(dir).open).toEqual([]);
  });
});
