import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { verifyArchive } from '../../src/archive/verify.ts';
import { withStore } from '../../src/store/index.ts';
import { startWebOfData, type WebOfData } from '../../src/testkit/web-of-data.ts';
import { crawlLog, repoRoot, tempDir } from '../helpers.ts';

const verify = (dir: string) => withStore(dir, undefined, (store) => verifyArchive(dir, store), { readonly: true });
const cli = (dir: string, ...args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), 'verify', '--data', dir, ...args], { encoding: 'utf8' });

describe('verify: the archive fixity check', () => {
  let web: WebOfData;
  const original = tempDir();
  /** A copy of the crawled archive to damage. */
  const copy = () => {
    const dir = tempDir();
    fs.cpSync(original, dir, { recursive: true });
    return dir;
  };
  beforeAll(async () => {
    web = await startWebOfData();
    await crawl({ seeds: [web.seed], dataDir: original, depth: 4, delayMs: 0, allowPrivate: true, domains: ['127.0.0.1'] }).run();
  });
  afterAll(() => web.close());

  it('finds an intact crawl intact: every capture and every graph read back', async () => {
    const r = await verify(original);
    const log = crawlLog(original);
    expect(r.problemCount).toBe(0);
    expect(r.entries).toBe(log.length);
    expect(r.records).toBe(log.filter((e) => e.warc_file).length + log.filter((e) => e.rdf_offset !== null).length);
    expect(r.records).toBeGreaterThan(10);
    expect(r.unreferencedFiles).toEqual([]);
    expect(r.openFiles).toEqual([]);
    const out = cli(original);
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/all intact/);
  });

  it('names each damaged capture: a flipped byte, a wrong digest or graph hash in the log, a missing file, a stray file', async () => {
    const dir = copy();
    const log = crawlLog(dir).filter((e) => e.warc_file);
    const flipped = log[0]!;
    // One byte inside the first record's gzip member: that record no longer inflates.
    const file = path.join(dir, flipped.warc_file);
    const bytes = fs.readFileSync(file);
    bytes[flipped.warc_offset + Math.floor(flipped.warc_length / 2)] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const db = new Database(path.join(dir, 'meta.sqlite'));
    const digest = log.find((e) => e.warc_file === flipped.warc_file && e.id !== flipped.id && e.checksum)!;
    db.prepare('UPDATE crawl_log SET checksum = ? WHERE id = ?').run('sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', digest.id);
    const graph = log.find((e) => e.rdf_offset !== null && e.id !== flipped.id && e.id !== digest.id)!;
    db.prepare('UPDATE crawl_log SET graph_hash = ? WHERE id = ?').run('0'.repeat(64), graph.id);
    db.close();
    fs.writeFileSync(path.join(dir, 'warc', 'stray.warc.gz'), '');
    const r = await verify(dir);
    const kinds = (id: number) => r.problems.filter((p) => p.logId === id).map((p) => p.kind);
    expect(kinds(flipped.id)).toEqual(['unreadable']);
    expect(kinds(digest.id)).toEqual(['payload-digest']);
    expect(kinds(graph.id)).toEqual(['graph-hash']);
    expect(r.problemCount).toBe(3);
    expect(r.unreferencedFiles).toEqual([path.join('warc', 'stray.warc.gz')]);
    // The WARC file gone: every capture in it is reported, by name.
    fs.rmSync(file);
    const gone = await verify(dir);
    const inFile = log.filter((e) => e.warc_file === flipped.warc_file);
    expect(gone.problems.filter((p) => p.kind === 'missing-file').map((p) => p.logId).sort()).toEqual(inFile.flatMap((e) => (e.rdf_offset !== null ? [e.id, e.id] : [e.id])).sort());
    const out = cli(dir, '--json');
    expect(out.status).toBe(1);
    expect(JSON.parse(out.stdout).problemCount).toBe(gone.problemCount);
    expect(cli(dir).stdout).toMatch(/missing-file: http:\/\/127\.0\.0\.1:\d+\//);
  });
});
