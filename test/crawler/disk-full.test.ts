import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import { startSyntheticSite } from '../../src/testkit/synthetic-site.ts';
import type { TestServer } from '../../src/testkit/server.ts';
import { readRecord } from '../../src/archive/warc-reader.ts';
import { crawlLog, repoRoot, tempDir, warcFiles } from '../helpers.ts';

// A real small file system: a tmpfs mounted for the test (needs root, as CI has). A disk that fills
// up must stop the crawl with its summary and a clear message, never crash it or lose what it archived.
function mountTmpfs(dir: string, size: string): boolean {
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
}
const probe = tempDir();
const canMount = mountTmpfs(probe, '1m') && spawnSync('umount', [probe]).status === 0;
if (!canMount) console.warn('\n*** SKIPPED disk-full tests: cannot mount a tmpfs here (needs root); CI runs them ***\n');

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => p.on('exit', (code) => resolve({ code, stdout, stderr })));
}

async function expectEveryPageOnceAndReadable(dataDir: string, pages: number): Promise<void> {
  const perUrl = new Map<string, number>();
  for (const e of crawlLog(dataDir).filter((x) => x.status === 200)) perUrl.set(e.url, (perUrl.get(e.url) ?? 0) + 1);
  expect(perUrl.size).toBe(pages);
  expect([...perUrl.values()].every((n) => n === 1)).toBe(true);
  for (const f of warcFiles(dataDir)) {
    for await (const rec of WARCParser.iterRecords(fs.createReadStream(f))) await rec.readFully();
  }
  for (const e of crawlLog(dataDir).filter((x) => x.warc_file)) {
    expect(readRecord(dataDir, e.warc_file, e.warc_offset, e.warc_length).headers.get('warc-target-uri')).toBe(e.final_url ?? e.url);
  }
}

describe.skipIf(!canMount)('a crawl whose disk fills up', () => {
  const PAGES = 3000;
  let site: TestServer & { seed: string };
  const mounts: string[] = [];
  const crawlArgs = (dataDir: string, minFree: string) => ['crawl', site.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--concurrency', '8', '--per-host', '8',
    '--depth', '100000', '--no-vocabularies', '--domain', '127.0.0.1', '--no-robots', '--min-free-space', minFree, '--json'];
  const smallDisk = (size: string): string => {
    const dir = tempDir();
    expect(mountTmpfs(dir, size)).toBe(true);
    mounts.push(dir);
    return path.join(dir, 'archive');
  };

  beforeAll(async () => {
    site = await startSyntheticSite({ pages: PAGES, linksPerPage: 3, bytesPerPage: 2_000 });
  });
  afterAll(async () => {
    await site.close();
    for (const m of mounts) spawnSync('umount', ['-l', m]);
  });

  it('stops with a storage error and exit status 74 when a write fails, and resumes elsewhere without losing or repeating a page', async () => {
    const dataDir = smallDisk('2m');
    const first = await runCli(crawlArgs(dataDir, '0'));
    expect(first.code, first.stderr).toBe(74);
    const summary = JSON.parse(first.stdout);
    expect(summary.stoppedBy).toBe('storage-error');
    expect(summary.documents).toBeGreaterThan(0);
    expect(summary.documents).toBeLessThan(PAGES);
    expect(first.stderr).toMatch(/crawl stopped early: the archive could not be written .*(full|space).*resume/i);
    expect(first.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

    // The user frees space (here: moves the archive to a bigger disk) and runs the same command.
    const moved = path.join(tempDir(), 'archive');
    fs.cpSync(dataDir, moved, { recursive: true });
    const second = await runCli(crawlArgs(moved, '0'));
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).resumed).toBe(true);
    await expectEveryPageOnceAndReadable(moved, PAGES);
  }, 120_000);

  it('stops cleanly before the disk is full when free space falls below --min-free-space', async () => {
    const dataDir = smallDisk('6m');
    const first = await runCli(crawlArgs(dataDir, '4MiB'));
    expect(first.code).toBe(74);
    const summary = JSON.parse(first.stdout);
    expect(summary.stoppedBy).toBe('disk-space');
    expect(summary.stopMessage).toMatch(/free on the file system of .* \(below the 4(\.0)? MiB --min-free-space\)/);
    expect(summary.errors).toBe(0);
    expect(summary.queued).toBeGreaterThan(0);
    const moved = path.join(tempDir(), 'archive');
    fs.cpSync(dataDir, moved, { recursive: true });
    const second = await runCli(crawlArgs(moved, '0'));
    expect(second.code, second.stderr).toBe(0);
    await expectEveryPageOnceAndReadable(moved, PAGES);
  }, 120_000);

  it('query on an archive whose disk is full says so, with exit status 74 and no stack trace', async () => {
    const dataDir = smallDisk('8m');
    const small = await startSyntheticSite({ pages: 30, linksPerPage: 3, bytesPerPage: 500 });
    try {
      const crawled = await runCli(['crawl', small.seed, '--data', dataDir, '--allow-private', '--delay', '0', '--no-robots', '--no-vocabularies', '--domain', '127.0.0.1', '--depth', '100', '--min-free-space', '0', '--json']);
      expect(crawled.code, crawled.stderr).toBe(0);
    } finally {
      await small.close();
    }
    // Fill the disk to the last byte.
    const filler = fs.openSync(path.join(dataDir, 'filler'), 'w');
    try {
      for (const chunk = Buffer.alloc(64 * 1024); ; ) fs.writeSync(filler, chunk);
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(filler);
    }
    const q = await runCli(['query', '--data', dataDir, 'SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }']);
    expect(q.code, q.stderr).toBe(74);
    expect(q.stderr).toMatch(/could not write to disk: .*Free some space/);
    expect(q.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
