/**
 * Does the version index keep pace with the crawl (issue #16, item 2)? Crawls a generated Web of Linked
 * Data shaped like the real one (src/testkit/linked-data-web.ts: ~35 triples and a blank node per
 * document, ten links across ten hosts, 303s from resource IRIs, one WARC file per host) through a
 * forward proxy on 127.0.0.1, then catches `<data>/versions.sqlite` up from the archive as `query` does
 * first, in the same run, on copies of the same archive:
 *   - bulk: the default for a first catch-up (read indexes dropped, built once at the end);
 *   - row by row: `bulk: false`, what every catch-up did before (indexes kept up to date per row);
 * and crawls the same site once more with the live index (`crawl --live-index`) for its pages/s;
 * and reports catch-up versions/s against the crawl's pages/s and versions/s. The site and proxy run in
 * their own child process, the crawl and each catch-up in theirs (CPU and peak RSS are each one's own).
 *
 *   node bin/run-ts.mjs bench/catch-up.bench.ts [--documents 10000] [--quick] [--profile]
 *     --quick      2,000 documents
 *     --profile    also profile the bulk catch-up (node --cpu-prof; hot spots in the report)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { args, option, QUICK } from './args.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..');
const RUN_TS = path.join(ROOT, 'bin/run-ts.mjs');
const OUT_DIR = path.join(ROOT, 'bench/out');

const DOCUMENTS = Number(option('--documents') ?? (QUICK ? 2_000 : 10_000));

interface Measured {
  seconds: number;
  cpuSeconds: number;
  maxRssMb: number;
}
interface CrawlResult extends Measured {
  pages: number;
  triples: number;
  versions: number;
  /** With --live-index: the last catch-up after the crawl ended (inside `seconds`). */
  indexTail?: { seconds: number; versions: number; left: number };
}
interface CatchUpRow extends Measured {
  versions: number;
  rows: number;
  failed: number;
  bulk: boolean;
}

const cpuNow = (): number => {
  const u = process.resourceUsage();
  return (u.userCPUTime + u.systemCPUTime) / 1e6;
};

async function measured<T extends object>(fn: () => Promise<T>): Promise<T & Measured> {
  const c0 = cpuNow();
  const t0 = performance.now();
  const r = await fn();
  return { ...r, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuNow() - c0, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

// ---------------------------------------------------------------- children

async function serveWeb(): Promise<void> {
  const { startLinkedDataWeb } = await import('../src/testkit/linked-data-web.ts');
  const { startForwardProxy } = await import('../src/testkit/forward-proxy.ts');
  const web = await startLinkedDataWeb({ documents: DOCUMENTS, hosts: 10 });
  const proxy = await startForwardProxy((host) => (host.endsWith('.lod.test') ? web.port : undefined));
  // Both keep a record of every request (tests want it); a long crawl does not.
  setInterval(() => (web.hits.clear(), proxy.hits.clear(), (proxy.seen.length = 0)), 1_000).unref();
  process.stdout.write(JSON.stringify({ seed: web.seed, proxy: proxy.url }) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

async function crawlChild(seed: string, proxy: string, dataDir: string, live: boolean): Promise<void> {
  const { crawl } = await import('../src/crawler/crawl.ts');
  const { LiveIndex } = await import('../src/query/index.ts');
  const { crawlLogRows } = await logReader();
  let indexTail: { seconds: number; versions: number; left: number } | undefined;
  const r = await measured(async () => {
    const index = live ? LiveIndex.start(dataDir) : undefined;
    const s = await crawl({
      seeds: [seed], dataDir, proxy, resolve: {}, allowPrivate: true, depth: 100_000, delayMs: 0, perHost: 50,
      concurrency: 50, domains: ['lod.test'], vocabularies: false,
    }).run();
    if (index) {
      // What the first query would wait for after this crawl: the live index's last catch-up.
      const t = performance.now();
      const summary = await index.stop();
      indexTail = { seconds: (performance.now() - t) / 1000, versions: summary.versions, left: 0 };
    }
    return { pages: s.documents, triples: s.triples };
  });
  const versions = crawlLogRows(dataDir);
  process.stdout.write(JSON.stringify({ ...r, versions, indexTail } satisfies CrawlResult) + '\n');
}

/** Log rows with a conversion record: the versions the crawl wrote. */
async function logReader() {
  const { default: Database } = await import('better-sqlite3');
  return {
    crawlLogRows: (dataDir: string): number => {
      const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM crawl_log WHERE rdf_offset IS NOT NULL').get() as { n: number }).n;
      } finally {
        db.close();
      }
    },
  };
}

async function catchUpChild(dataDir: string, bulk: boolean): Promise<void> {
  const { openStore } = await import('../src/store/index.ts');
  const { openVersionStore, catchUpVersions } = await import('../src/query/index.ts');
  const store = await openStore(dataDir, undefined, { readonly: true });
  await store.init();
  const archive = openVersionStore(dataDir);
  const r = await measured(async () => {
    const c = await catchUpVersions(archive, store, dataDir, { bulk });
    return { versions: c.versions, rows: c.rows, failed: c.failed, bulk: c.bulk };
  });
  await archive.close();
  await store.close();
  process.stdout.write(JSON.stringify(r satisfies CatchUpRow) + '\n');
}

// ---------------------------------------------------------------- parent

function runChild(nodeArgs: string[], childArgs: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [...nodeArgs, RUN_TS, SELF, ...childArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('close', (code) => (code === 0 ? resolve(out.trim().split('\n').at(-1) ?? '') : reject(new Error(`child ${childArgs.join(' ')} exited ${code}`))));
  });
}

function copyArchive(from: string): string {
  const to = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-catchup-bench-'));
  fs.cpSync(from, to, { recursive: true, filter: (src) => !path.basename(src).startsWith('versions.sqlite') });
  return to;
}

async function main(): Promise<void> {
  if (!(Number.isInteger(DOCUMENTS) && DOCUMENTS >= 10)) throw new Error(`--documents must be an integer ≥ 10, got ${option('--documents')}`);
  const server = spawn(process.execPath, [RUN_TS, SELF, '--child', 'web', '--documents', String(DOCUMENTS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const dirs: string[] = [];
  try {
    const { seed, proxy } = await new Promise<{ seed: string; proxy: string }>((resolve, reject) => {
      let buf = '';
      server.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        if (buf.includes('\n')) resolve(JSON.parse(buf.slice(0, buf.indexOf('\n'))));
      });
      server.once('exit', (code) => reject(new Error(`the site exited (${code}) before it was ready`)));
    });
    const crawled = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-catchup-bench-'));
    dirs.push(crawled);
    console.error(`catch-up bench: crawling ${DOCUMENTS} documents ...`);
    const c = JSON.parse(await runChild([], ['--child', 'crawl', '--seed', seed, '--proxy', proxy, '--dir', crawled, '--documents', String(DOCUMENTS)])) as CrawlResult;
    console.error(`catch-up bench: crawling ${DOCUMENTS} documents with the live index ...`);
    const liveDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-catchup-bench-'));
    dirs.push(liveDir);
    const live = JSON.parse(await runChild([], ['--child', 'crawl', '--seed', seed, '--proxy', proxy, '--dir', liveDir, '--documents', String(DOCUMENTS), '--live'])) as CrawlResult;
    const rows: Array<{ name: string; r: CatchUpRow }> = [];
    for (const [name, bulk] of [['bulk (default for a first catch-up)', true], ['row by row (`bulk: false`, as before)', false]] as const) {
      console.error(`catch-up bench: catch-up, ${name} ...`);
      const dir = copyArchive(crawled);
      dirs.push(dir);
      rows.push({ name, r: JSON.parse(await runChild([], ['--child', 'catch-up', '--dir', dir, '--bulk', String(bulk)])) as CatchUpRow });
    }
    let profile = '';
    if (args.includes('--profile')) {
      console.error('catch-up bench: profiled bulk catch-up ...');
      const profDir = path.join(OUT_DIR, 'catch-up-profile');
      fs.rmSync(profDir, { recursive: true, force: true });
      const dir = copyArchive(crawled);
      dirs.push(dir);
      await runChild(['--cpu-prof', `--cpu-prof-dir=${profDir}`], ['--child', 'catch-up', '--dir', dir, '--bulk', 'true']);
      const main = fs.readdirSync(profDir).map((f) => path.join(profDir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
      if (main) {
        // crawl.bench.ts's summary of a .cpuprofile, run as the command its header documents.
        const summary = await new Promise<string>((resolve) => {
          const p = spawn(process.execPath, [RUN_TS, path.join(ROOT, 'bench/crawl.bench.ts'), '--summarise-profile', main, '--top', '12'], { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          p.stdout.on('data', (d: Buffer) => (out += d.toString()));
          p.on('close', () => resolve(out));
        });
        profile = `\n\n### Where the bulk catch-up spends its time\n\n${summary}`;
      }
    }
    process.stdout.write(report(c, live, rows) + profile + '\n');
  } finally {
    server.stdin?.end();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

function report(c: CrawlResult, live: CrawlResult, rows: Array<{ name: string; r: CatchUpRow }>): string {
  const pagesPerS = c.pages / c.seconds;
  const crawlVersionsPerS = c.versions / c.seconds;
  const f0 = (x: number) => Math.round(x).toLocaleString('en');
  return [
    `## Index catch-up against the crawl: ${DOCUMENTS.toLocaleString('en')}-document Web of Linked Data on 127.0.0.1`,
    '',
    `Command: \`node bin/run-ts.mjs bench/catch-up.bench.ts --documents ${DOCUMENTS}\`. ${os.cpus().length} cores shared with whatever else runs (load average at the end: ${os.loadavg()[0].toFixed(1)}): indicative figures; CPU seconds move less than wall-clock ones.`,
    '',
    `Crawl (src/testkit/linked-data-web.ts through a forward proxy, 50 connections, delay 0): ${c.pages.toLocaleString('en')} pages (documents, their 404 homepages and vocabularies), ${c.versions.toLocaleString('en')} versions, ${c.triples.toLocaleString('en')} triples in ${c.seconds.toFixed(1)} s (${c.cpuSeconds.toFixed(1)} CPU-s, peak RSS ${c.maxRssMb.toFixed(0)} MB): **${f0(pagesPerS)} pages/s, ${f0(crawlVersionsPerS)} versions/s**.`,
    '',
    '| catch-up of the crawled archive | versions | s | versions/s | vs crawl pages/s | vs crawl versions/s | CPU-s | versions per CPU-s | vs crawl pages per CPU-s | peak RSS MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(({ name, r }) => {
      const v = r.versions / r.seconds;
      const perCpu = r.versions / r.cpuSeconds;
      return `| ${name}${r.failed ? ` (${r.failed} failed)` : ''} | ${r.versions.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${f0(v)} | ${(v / pagesPerS).toFixed(2)}× | ${(v / crawlVersionsPerS).toFixed(2)}× | ${r.cpuSeconds.toFixed(1)} | ${f0(perCpu)} | ${(perCpu / (c.pages / c.cpuSeconds)).toFixed(2)}× | ${r.maxRssMb.toFixed(0)} |`;
    }),
    '',
    `The crawl spent ${f0(c.pages / c.cpuSeconds)} pages per CPU-s over all its threads (it can use every core; the catch-up runs on one thread). On a loaded machine the wall-clock ratios follow each process's share of the cores; the per-CPU-s ratio is the steadier one.`,
    '',
    `Crawl with the live index (\`crawl --live-index\`: a thread following the crawl log, src/query/live-index.ts), same site, same run: ${live.pages.toLocaleString('en')} pages, ${live.versions.toLocaleString('en')} versions in ${live.seconds.toFixed(1)} s (${live.cpuSeconds.toFixed(1)} CPU-s, peak RSS ${live.maxRssMb.toFixed(0)} MB): **${f0(live.pages / live.seconds)} pages/s, ${((live.pages / live.seconds) / pagesPerS).toFixed(2)}× the crawl without it**; ${live.indexTail ? `its last catch-up after the crawl ended took ${live.indexTail.seconds.toFixed(2)} s (included), and the index then held all ${live.indexTail.versions.toLocaleString('en')} versions: the first query has nothing to index` : 'no index summary'}.`,
    '',
    'Target (issue #16): the index catches up at least as fast as the crawl writes (versions/s ≥ the crawl\'s pages/s, same run).',
  ].join('\n');
}

const kind = option('--child');
if (kind === 'web') await serveWeb();
else if (kind === 'crawl') await crawlChild(option('--seed')!, option('--proxy')!, option('--dir')!, args.includes('--live'));
else if (kind === 'catch-up') await catchUpChild(option('--dir')!, option('--bulk') === 'true');
else await main();
