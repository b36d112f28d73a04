import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { startSyntheticSite } from '../../src/testkit/synthetic-site.ts';
import type { TestServer } from '../../src/testkit/server.ts';
import { readRecord } from '../../src/archive/warc-reader.ts';
import { LOADED_TIMEOUT_MS, crawlLog, repoRoot, runMain, tempDir, warcFiles } from '../helpers.ts';

const PAGES = 300;

function runCli(args: string[]) {
  return spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

function archivedCount(dataDir: string): number {
  try {
    const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM crawl_log').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

describe('killed with SIGKILL and started again', () => {
  let site: TestServer & { seed: string };
  const dataDir = tempDir();
  let secondRun = '';

  beforeAll(async () => {
    site = await startSyntheticSite({ pages: PAGES, linksPerPage: 3, latencyMs: 5 });
    const args = ['crawl', site.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--concurrency', '4', '--per-host', '4', '--depth', '1000', '--no-vocabularies', '--domain', '127.0.0.1', '--json'];
    const first = runCli(args);
    const exited = new Promise((r) => first.on('exit', r));
    // Kill it in the middle of the crawl, while fetches are in flight.
    for (let i = 0; i < 600 && archivedCount(dataDir) < 80; i++) await new Promise((r) => setTimeout(r, 25));
    first.kill('SIGKILL');
    await exited;
    const second = runCli(args);
    second.stdout.on('data', (d) => (secondRun += d));
    await new Promise((r) => second.on('exit', r));
  }, 120_000);
  afterAll(() => site.close());

  it('the first run was really interrupted half way', () => {
    const summary = JSON.parse(secondRun);
    expect(summary.resumed).toBe(true);
    expect(summary.documents).toBeGreaterThan(0);
    expect(summary.documents).toBeLessThan(PAGES);
  });

  it('archives every page exactly once across both runs', () => {
    const ok = crawlLog(dataDir).filter((e) => e.status === 200);
    const perUrl = new Map<string, number>();
    for (const e of ok) perUrl.set(e.url, (perUrl.get(e.url) ?? 0) + 1);
    expect(perUrl.size).toBe(PAGES);
    expect([...perUrl.values()].every((n) => n === 1)).toBe(true);
  });

  it('leaves no corrupt WARC file: every file parses and every logged offset reads back', async () => {
    const files = warcFiles(dataDir);
    expect(files.some((f) => f.endsWith('.open'))).toBe(false);
    let records = 0;
    for (const f of files) {
      for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) {
        await rec.readFully();
        records++;
      }
    }
    expect(records).toBeGreaterThanOrEqual(2 * PAGES);
    for (const e of crawlLog(dataDir).filter((x) => x.warc_file)) {
      const rec = readRecord(dataDir, e.warc_file, e.warc_offset, e.warc_length);
      expect(rec.headers.get('warc-target-uri')).toBe(e.final_url ?? e.url);
    }
  });
});

describe('stopped with Ctrl-C (SIGINT) and started again', () => {
  it('finishes the fetches in flight, prints its summary, and the resume fetches exactly the rest', async () => {
    const site = await startSyntheticSite({ pages: 200, linksPerPage: 3, latencyMs: 10 });
    const dataDir = tempDir();
    const args = ['crawl', site.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--concurrency', '4', '--per-host', '4', '--depth', '1000', '--no-vocabularies', '--domain', '127.0.0.1', '--json'];
    const first = runCli(args);
    let out = '';
    first.stdout.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => first.on('exit', r));
    for (let i = 0; i < 400 && archivedCount(dataDir) < 30; i++) await new Promise((r) => setTimeout(r, 25));
    first.kill('SIGINT');
    expect(await exited).toBe(130); // cut short, as a shell reports Ctrl-C: a script must not take it for a finished crawl
    const stopped = JSON.parse(out);
    expect(stopped.stoppedBy).toBe('signal');
    expect(stopped.errors).toBe(0); // nothing cut short and marked failed
    const second = runCli(args);
    let out2 = '';
    second.stdout.on('data', (d) => (out2 += d));
    await new Promise((r) => second.on('exit', r));
    const rest = JSON.parse(out2);
    expect(stopped.documents + rest.documents).toBe(200);
    expect(site.requests.filter((r) => r.path.startsWith('/page/')).length).toBe(200);
    await site.close();
  }, 60_000);
});


describe('--max-docs on a resumed crawl', () => {
  it('counts per run, and the summary and --help say so', async () => {
    const site = await startSyntheticSite({ pages: 12, linksPerPage: 3 });
    try {
      const dataDir = tempDir();
      const options = ['crawl', site.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--no-vocabularies', '--depth', '10', '--max-docs', '3'];
      const first = await runMain([...options, '--json']);
      expect(JSON.parse(first.out)).toMatchObject({ stoppedBy: 'max-docs', stopMessage: expect.stringMatching(/^3 documents in this run .*run again resumes .*up to 3 more/) });
      const second = await runMain(options);
      expect(second.out).toMatch(/^Crawled 3 documents .*\(resumed\)/m);
      expect(second.out).toMatch(/stopped by max-docs: 3 documents in this run/);
      expect((await runMain(['crawl', '--help'])).out).toMatch(/--max-docs <n> +stop after this many documents in this run/);
    } finally {
      await site.close();
    }
  }, LOADED_TIMEOUT_MS);
});
