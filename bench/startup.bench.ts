/**
 * Start-up of the built CLI (dist/ on plain node, as the installed package runs it) against node
 * itself: `node -e 0` (the floor) and a node that only loads Oxigraph (what any query pays). Targets
 * (issue #14): `datamonitor --version` within 2× `node -e 0`, a query on a small archive within 3×. Also: the same from the sources through tsx (how a
 * checkout runs it), and what loading every command module costs (what each command paid before
 * main.ts loaded only the one it runs).
 *
 * The commands run in turns (one of each, then again), so a busy spell of the shared machine
 * slows all of them alike; medians of the turns.
 *
 * Also how long an idle `datamonitor daemon` takes to end after SIGTERM (#14: within 3 s, status 0; the
 * test in test/recrawl/cycle.test.ts checks that it stops, this row how fast).
 *
 * Wall and CPU time (user + system of every thread, through /usr/bin/time when present) per row.
 *
 * Run: node bin/run-ts.mjs bench/startup.bench.ts [--runs 20] [--quick] [--no-build] [--archive DIR]
 * (`--archive`: query that data directory instead of crawling a one-document archive first).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median } from '../src/util/stats.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('--runs', process.argv.includes('--quick') ? 8 : 20);

if (!process.argv.includes('--no-build')) {
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0) throw new Error('npm run build failed');
}

// A one-document archive for the query row (crawled here unless --archive names one).
const given = process.argv.indexOf('--archive');
const dataDir = given >= 0 ? path.resolve(process.argv[given + 1]) : fs.mkdtempSync(path.join(os.tmpdir(), 'dm-startup-bench-'));
if (given < 0) {
  const [{ crawl }, { startServer }] = await Promise.all([import('../src/crawler/crawl.ts'), import('../src/testkit/server.ts')]);
  const origin = await startServer((_req, res) => void res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://example.org/a> <http://example.org/p> "x" .\n'));
  const c = crawl({ seeds: [`${origin.url}/a.ttl`], dataDir, depth: 0, allowPrivate: true, robots: false, delayMs: 0, vocabularies: false });
  for await (const _ of c) void _;
  await origin.close();
}

interface Row { label: string; command: string; args: string[]; env?: Record<string, string> }
const node = process.execPath;
const bin = path.join(ROOT, 'bin/datamonitor.mjs');
const dist = { DATAMONITOR_DIST: '1' };
const rows: Row[] = [
  { label: '`node -e 0`', command: node, args: ['-e', '0'] },
  { label: "node loading Oxigraph: `node --input-type=module -e \"await import('oxigraph')\"`", command: node, args: ['--input-type=module', '-e', "await import('oxigraph')"] },
  { label: '`datamonitor --version` (dist/, plain node)', command: node, args: [bin, '--version'], env: dist },
  { label: '`datamonitor --help` (dist/)', command: node, args: [bin, '--help'], env: dist },
  { label: "`datamonitor query --data D 'SELECT …'` (dist/, a one-document archive)", command: node, args: [bin, 'query', '--data', dataDir, '--csv', 'SELECT * WHERE { ?s ?p ?o }'], env: dist },
  { label: 'every command module loaded (dist/): what each command paid before lazy loading', command: node, args: ['--input-type=module', '-e', `const m = await import(${JSON.stringify(new URL('../dist/cli/commands/index.js', import.meta.url).href)}); await Promise.all(m.commandModules.map((x) => x.load()));`] },
  { label: '`datamonitor --version` from the sources through tsx (a checkout)', command: node, args: [bin, '--version'] },
  { label: "`datamonitor query --data D 'SELECT …'` from the sources through tsx (a checkout)", command: node, args: [bin, 'query', '--data', dataDir, '--csv', 'SELECT * WHERE { ?s ?p ?o }'] },
];

// CPU time (user + system, every thread) through GNU time where there is one: steadier than wall time on a shared machine.
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const times = rows.map(() => [] as number[]);
const cpu = rows.map(() => [] as number[]);
for (let turn = 0; turn < RUNS; turn++) {
  rows.forEach((r, i) => {
    const [command, args] = TIME ? [TIME, ['-f', 'CPU %U %S', r.command, ...r.args]] : [r.command, r.args];
    const t0 = process.hrtime.bigint();
    const p = spawnSync(command, args, { cwd: ROOT, env: { ...process.env, ...r.env }, encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (p.status !== 0) throw new Error(`${r.label} failed (${p.status}): ${p.stderr}`);
    times[i].push(ms);
    const used = /CPU ([\d.]+) ([\d.]+)\s*$/.exec(p.stderr);
    if (used) cpu[i].push((Number(used[1]) + Number(used[2])) * 1000);
  });
}
if (given < 0) fs.rmSync(dataDir, { recursive: true, force: true });

const medians = times.map(median);
const floor = medians[0];
const version = medians[2];
const query = medians[4];
console.log(`## Start-up: the built CLI against node itself\n`);
console.log(`Command: \`node bin/run-ts.mjs bench/startup.bench.ts --runs ${RUNS}\` (builds dist/ first; the rows run in turns, ${RUNS} turns; 2-core machine shared with other work: compare the ratios).\n`);
const cpuMedians = cpu.map((xs) => (xs.length ? median(xs) : NaN));
console.log('| command | median ms | min ms | × `node -e 0` | median CPU ms | CPU × `node -e 0` |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
rows.forEach((r, i) => console.log(`| ${r.label} | ${medians[i].toFixed(0)} | ${Math.min(...times[i]).toFixed(0)} | ${(medians[i] / floor).toFixed(2)} | ${cpuMedians[i].toFixed(0)} | ${(cpuMedians[i] / cpuMedians[0]).toFixed(2)} |`));
console.log(`\n\`datamonitor --version\` takes ${(version / floor).toFixed(2)}× \`node -e 0\` (target ≤ 2×: ${version / floor <= 2 ? 'met' : 'NOT met'}) and ${(version / medians[1]).toFixed(2)}× a node that loads Oxigraph.`);
console.log(`\n\`datamonitor query\` on a one-document archive takes ${(query / floor).toFixed(2)}× \`node -e 0\` (target ≤ 3×: ${query / floor <= 3 ? 'met' : 'NOT met'}) and ${(query / medians[1]).toFixed(2)}× a node that only loads Oxigraph; in CPU time ${(cpuMedians[4] / cpuMedians[0]).toFixed(2)}× and ${(cpuMedians[4] / cpuMedians[1]).toFixed(2)}×.`);

/** An idle daemon (its first cycle done, asleep towards the next hour) ended by SIGTERM: ms to exit, and its status. */
async function daemonStop(): Promise<{ ms: number; code: number | null }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-startup-daemon-'));
  const p = spawn(node, [bin, 'daemon', '--data', dir, '--every', '1h', '--allow-private'], { cwd: ROOT, env: { ...process.env, ...dist } });
  let err = '';
  const exited = new Promise<number | null>((resolve) => p.on('exit', (code) => resolve(code)));
  await Promise.race([exited, new Promise<void>((resolve) => p.stderr.on('data', (d) => {
    err += d;
    if (/cycle (\d+ done|skipped)/.test(err)) resolve();
  }))]);
  const t0 = process.hrtime.bigint();
  p.kill('SIGTERM');
  const code = await exited;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  fs.rmSync(dir, { recursive: true, force: true });
  return { ms, code };
}
const stops: Array<{ ms: number; code: number | null }> = [];
for (let i = 0; i < Math.min(RUNS, 5); i++) stops.push(await daemonStop());
const stopMs = median(stops.map((x) => x.ms));
console.log(`
An idle \`datamonitor daemon\` (dist/) ends ${stopMs.toFixed(0)} ms after SIGTERM (median of ${stops.length}; max ${Math.max(...stops.map((x) => x.ms)).toFixed(0)} ms; statuses ${[...new Set(stops.map((x) => x.code))].join(', ')}; target ≤ 3 s with status 0: ${stops.every((x) => x.ms <= 3000 && x.code === 0) ? 'met' : 'NOT met'}).`);
