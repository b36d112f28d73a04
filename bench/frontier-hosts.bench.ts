/**
 * A crawl of many hosts past the frontier's bound (issue #30 item 6): N seeds, each on a host of its own (the
 * generated Linked Data Web with as many virtual hosts as documents, behind the forward proxy on 127.0.0.1),
 * crawled by `datamonitor crawl --depth 0 --max-docs D --frontier-memory B` as a user runs it, under GNU time.
 * Prints the crawl's summary figures (documents, the frontier's peak in memory and what waited on disk), its wall
 * and CPU time and its peak RSS (`/usr/bin/time -v`, the crawl process alone: the site runs in this one).
 *
 *   node bin/run-ts.mjs bench/frontier-hosts.bench.ts [--hosts 100000] [--max-docs 20000] [--frontier-memory 10000]
 *
 * With `--frontier-memory 0` (no bound) and a bound the crawl does not reach, it measures the cost of the bound.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { option } from './args.ts';
import { startLinkedDataWeb } from '../src/testkit/linked-data-web.ts';
import { startForwardProxy } from '../src/testkit/forward-proxy.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOSTS = Number(option('--hosts') ?? 100_000);
const MAX_DOCS = Number(option('--max-docs') ?? 20_000);
const BOUND = option('--frontier-memory') ?? '10000';

const web = await startLinkedDataWeb({ documents: HOSTS, hosts: HOSTS });
const proxy = await startForwardProxy((host) => (host.endsWith('.lod.test') ? web.port : undefined));
// Both keep a record of every request (tests want it); this run does not.
setInterval(() => (web.hits.clear(), proxy.hits.clear(), (proxy.seen.length = 0)), 1_000).unref();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-frontier-hosts-'));
const seeds = path.join(dir, 'seeds.txt');
fs.writeFileSync(seeds, Array.from({ length: HOSTS }, (_, i) => web.document(i)).join('\n') + '\n');
const argv = ['crawl', '--seeds', seeds, '--data', path.join(dir, 'data'), '--proxy', proxy.url, '--allow-private', '--delay', '0', '--per-host', '1',
  '--concurrency', '64', '--depth', '0', '--domain', 'lod.test', '--no-vocabularies', '--max-docs', String(MAX_DOCS), '--frontier-memory', BOUND, '--json'];
const out = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
  const child = spawn('/usr/bin/time', ['-v', process.execPath, path.join(ROOT, 'bin/datamonitor.mjs'), ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  child.on('exit', (code) => resolve({ stdout, stderr, code }));
});
await proxy.close();
await web.close();
fs.rmSync(dir, { recursive: true, force: true });
if (out.code !== 0) throw new Error(`the crawl failed (${out.code}): ${out.stderr.slice(-3000)}`);
const summary = JSON.parse(out.stdout) as { documents: number; frontier?: { peakInMemory: number; spilled: number } };
const field = (name: string) => new RegExp(`${name}: (.+)`).exec(out.stderr)?.[1]?.trim();
const rssMb = Number(field('Maximum resident set size \\(kbytes\\)')) / 1024;
const cpu = Number(field('User time \\(seconds\\)')) + Number(field('System time \\(seconds\\)'));
console.log(`Command: \`node bin/run-ts.mjs bench/frontier-hosts.bench.ts --hosts ${HOSTS} --max-docs ${MAX_DOCS} --frontier-memory ${BOUND}\`, ${new Date().toISOString()}`);
console.log(`crawl: ${summary.documents} documents of ${HOSTS} seeds on ${HOSTS} hosts; frontier ${JSON.stringify(summary.frontier)}; ` +
  `wall ${field('Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)')}, CPU ${cpu.toFixed(1)} s, peak RSS ${rssMb.toFixed(0)} MB`);
