/**
 * What test files cost in CPU seconds, the suite's tsx start-ups against the bundles a `vitest run`
 * builds (test/setup/bundle-sources.ts), measured in one run: the same files with
 * DATAMONITOR_SRC_BUNDLES=off, then as `npm test` runs them. CPU, not wall time: on a shared machine
 * wall time follows the others' load (bench/SUITE.md).
 *
 *   node bin/run-ts.mjs bench/suite-cpu.bench.ts [TEST_FILE ...]   (default: files that boot threads and commands)
 *   node bin/run-ts.mjs bench/suite-cpu.bench.ts --table LOG        the per-file table of a run's log, e.g. of the
 *       whole suite: DATAMONITOR_CPU_LOG=LOG npx vitest run
 *
 * Per file: the CPU of its process and the children it waited for (test/setup/cpu-log.ts). Whole run:
 * every process of `npx vitest run`, vitest's own (transforms) included.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DEFAULT_FILES = [
  'test/cli/entry.test.ts',
  'test/cli/exit-codes.test.ts',
  'test/crawler/analysis-pool.test.ts',
  'test/query/cli-limits.test.ts',
  'test/query/engine.test.ts',
  'test/query/query-thread.test.ts',
];

interface FileCpu { file: string; self: number; children: number }

/** CPU seconds of the children this process has waited for (Linux /proc: cutime + cstime). */
function childrenCpu(): number {
  const f = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ').map(Number);
  return (f[13]! + f[14]!) / 100;
}

async function run(files: string[], bundles: boolean): Promise<{ total: number; wall: number; files: FileCpu[]; passed: boolean }> {
  const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dm-suite-cpu-')), 'cpu.jsonl');
  const env = { ...process.env, DATAMONITOR_CPU_LOG: log, ...(bundles ? {} : { DATAMONITOR_SRC_BUNDLES: 'off' }) };
  if (bundles) delete env.DATAMONITOR_SRC_BUNDLES;
  const before = childrenCpu();
  const t0 = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const p = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...files], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('exit', resolve);
  });
  const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [];
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
  return {
    total: childrenCpu() - before,
    wall: (Date.now() - t0) / 1000,
    files: lines.map((l) => JSON.parse(l) as FileCpu).map((f) => ({ ...f, file: path.relative(ROOT, f.file) })),
    passed: code === 0,
  };
}

if (process.argv[2] === '--table') {
  const rows = fs.readFileSync(process.argv[3]!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as FileCpu & { wall: number });
  rows.sort((a, b) => b.self + b.children - (a.self + a.children));
  console.log('| file | CPU-s (its process + children) | of which children | wall s |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const r of rows) console.log(`| ${path.relative(ROOT, r.file)} | ${(r.self + r.children).toFixed(1)} | ${r.children.toFixed(1)} | ${r.wall.toFixed(0)} |`);
  console.log(`| ${rows.length} files | ${rows.reduce((a, r) => a + r.self + r.children, 0).toFixed(1)} | | |`);
  process.exit(0);
}

const files = process.argv.slice(2).length ? process.argv.slice(2) : DEFAULT_FILES;
const load0 = os.loadavg()[0]!;
const tsx = await run(files, false);
const bundled = await run(files, true);
const load1 = os.loadavg()[0]!;
// '-': the file logged nothing (vitest could not start it, or it was cut off).
const cpu = (f?: FileCpu) => (f ? (f.self + f.children).toFixed(1) : '-');

console.log(`## Test files' CPU: tsx start-ups against the run's bundles\n`);
console.log(`\`node bin/run-ts.mjs bench/suite-cpu.bench.ts${process.argv.length > 2 ? ` ${files.join(' ')}` : ''}\`, ${new Date().toISOString()}, ${os.cpus().length} cores, load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after.\n`);
console.log('| file | CPU-s, all through tsx | CPU-s, bundled entries | ratio |');
console.log('| --- | ---: | ---: | ---: |');
for (const file of files) {
  const a = tsx.files.find((f) => f.file === file);
  const b = bundled.files.find((f) => f.file === file);
  const ratio = a && b ? ((b.self + b.children) / (a.self + a.children)).toFixed(2) : '-';
  console.log(`| ${file} | ${cpu(a)} | ${cpu(b)} | ${ratio} |`);
}
console.log(`| whole \`vitest run\` (vitest included) | ${tsx.total.toFixed(1)} | ${bundled.total.toFixed(1)} | ${(bundled.total / tsx.total).toFixed(2)} |`);
console.log(`\nWall: ${tsx.wall.toFixed(0)} s and ${bundled.wall.toFixed(0)} s (the load's more than the code's). Tests ${tsx.passed ? 'passed' : 'FAILED'} through tsx, ${bundled.passed ? 'passed' : 'FAILED'} bundled.`);
