/**
 * Where a CLI query's CPU goes, step by step, each in a fresh node (CPU time of the process, which is
 * steadier than wall time on a shared machine): node itself, an empty worker thread, and in one
 * thread, in the order a CLI query runs them: loading Oxigraph, the versioned store (SQLite), the
 * SPARQL modules, opening the archive, the first query and a second one. Companion of
 * bench/startup.bench.ts (bench/STARTUP.md); needs a build (`npm run build`) and an archive
 * (`--archive DIR`, e.g. one `datamonitor crawl` made; its versions.sqlite must exist: run one
 * `datamonitor query` on it first).
 *
 * Run: node bin/run-ts.mjs bench/startup-parts.bench.ts --archive DIR [--runs 7]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from '../src/util/stats.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const at = process.argv.indexOf('--archive');
if (at < 0) throw new Error('give --archive DIR');
const file = path.join(path.resolve(process.argv[at + 1]), 'versions.sqlite');
if (!fs.existsSync(file)) throw new Error(`${file} does not exist: run one datamonitor query on the archive first`);
const runs = process.argv.includes('--runs') ? Number(process.argv[process.argv.indexOf('--runs') + 1]) : 7;
const dist = (p: string) => JSON.stringify(new URL(`../dist/${p}`, import.meta.url).href);

const steps = `
const c0 = process.cpuUsage(); const laps = [];
const lap = () => { const c = process.cpuUsage(c0); laps.push((c.user + c.system) / 1000); };
await import(${dist('query/oxigraph.js')}); lap(); // the web build, as every module of ours loads it (src/query/oxigraph.ts)
const { VersionArchive } = await import(${dist('query/version-store.js')}); lap();
const { runQuery } = await import(${dist('query/sparql.js')}); lap();
const a = new VersionArchive(${JSON.stringify(file)}, { readonly: true }); lap();
await runQuery(a, 'SELECT * WHERE { ?s ?p ?o }', { format: 'csv' }); lap();
await runQuery(a, 'SELECT ?s WHERE { ?s ?p ?o }', { format: 'csv' }); lap();
console.log(JSON.stringify(laps));`;
// Inside the checkout (bench/out/, ignored by git), where 'oxigraph' resolves from node_modules.
fs.mkdirSync(path.join(ROOT, 'bench/out'), { recursive: true });
const script = path.join(fs.mkdtempSync(path.join(ROOT, 'bench/out/parts-')), 'steps.mjs');
fs.writeFileSync(script, steps);

/** CPU ms of a whole node process (GNU time), or the process's own laps. */
function cpuOf(args: string[]): number {
  const p = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, ...args], { cwd: ROOT, encoding: 'utf8' });
  const m = /CPU ([\d.]+) ([\d.]+)\s*$/.exec(p.stderr);
  if (p.status !== 0 || !m) throw new Error(`node ${args.join(' ')} failed: ${p.stderr}`);
  return (Number(m[1]) + Number(m[2])) * 1000;
}
const node0: number[] = [];
const worker: number[] = [];
const laps: number[][] = [];
for (let i = 0; i < runs; i++) {
  node0.push(cpuOf(['-e', '0']));
  worker.push(cpuOf(['-e', "new (require('node:worker_threads').Worker)('0', { eval: true })"]));
  const p = spawnSync(process.execPath, [script], { cwd: ROOT, encoding: 'utf8' });
  if (p.status !== 0) throw new Error(p.stderr);
  laps.push(JSON.parse(p.stdout) as number[]);
}
const names = ['loading Oxigraph (4 MB WebAssembly: read, compile, instantiate)', 'the versioned store (better-sqlite3, version-store)', 'the SPARQL modules (sparql.js and what it imports)', 'opening the archive (SQLite, read-only)', 'the first query (plan, load the store, evaluate, serialise)', 'a second query (the same snapshot)'];
console.log(`## Where a query's CPU goes (medians of ${runs}; load average ${os.loadavg()[0].toFixed(1)} at the end)\n`);
console.log(`Command: \`node bin/run-ts.mjs bench/startup-parts.bench.ts --archive DIR --runs ${runs}\`\n`);
console.log('| step | CPU ms |');
console.log('| --- | ---: |');
console.log(`| \`node -e 0\` (the whole process) | ${median(node0).toFixed(0)} |`);
console.log(`| an empty worker thread started and ended, beyond \`node -e 0\` | ${(median(worker) - median(node0)).toFixed(0)} |`);
names.forEach((n, i) => console.log(`| ${n} | ${median(laps.map((l) => l[i] - (i ? l[i - 1] : 0))).toFixed(0)} |`));
fs.rmSync(path.dirname(script), { recursive: true, force: true });
