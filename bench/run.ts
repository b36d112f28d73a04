/**
 * Runs the benchmarks (every bench/*.bench.ts, in name order, each as its own child process
 * `node bin/run-ts.mjs FILE`) and writes their markdown output to bench/RESULTS.md.
 *
 *   npm run bench                     all benchmarks
 *   npm run bench -- crawl seen       only these (a word that names no benchmark picks every name containing it)
 *   npm run bench -- --quick          pass --quick to the benchmarks that know it (shorter runs)
 *
 * RESULTS.md keeps one section per benchmark; a run replaces the sections of the benchmarks it ran
 * and keeps the others, each section saying when, how and on what machine it was measured.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(BENCH_DIR, '..');
const RESULTS = path.join(BENCH_DIR, 'RESULTS.md');

interface Outcome {
  name: string;
  command: string;
  exitCode: number | null;
  seconds: number;
  stdout: string;
  stderrTail: string;
}

function usage(): never {
  console.log('usage: npm run bench -- [--quick] [NAME ...]\n  NAME     run only this benchmark (e.g. crawl); a word that names no benchmark picks every name containing it\n  --quick  shorter runs, for the benchmarks that know the flag');
  process.exit(0);
}

function machine(): string {
  const gib = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${os.cpus().length} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), ${gib} GiB memory, node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Runs one benchmark, echoing its output live and keeping stdout (the markdown) and the end of stderr. */
function runBench(file: string, quick: boolean): Promise<Outcome> {
  const name = path.basename(file, '.bench.ts');
  // Only benchmarks that know --quick get it: some read a positional argument and would take the flag for it.
  const extra = quick && fs.readFileSync(file, 'utf8').includes("'--quick'") ? ['--quick'] : [];
  const rel = path.relative(ROOT, file);
  const command = ['node bin/run-ts.mjs', rel, ...extra].join(' ');
  const t0 = Date.now();
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(ROOT, 'bin/run-ts.mjs'), rel, ...extra], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      process.stdout.write(d);
    });
    p.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
      process.stderr.write(d);
    });
    p.on('close', (exitCode) => resolve({ name, command, exitCode, seconds: (Date.now() - t0) / 1000, stdout, stderrTail: stderr }));
    p.on('error', (e) => resolve({ name, command, exitCode: -1, seconds: 0, stdout, stderrTail: String(e) }));
  });
}

const SECTION = /<!-- bench:([\w.-]+) -->\n([\s\S]*?)<!-- \/bench:\1 -->\n?/g;

function readSections(): Map<string, string> {
  const sections = new Map<string, string>();
  if (!fs.existsSync(RESULTS)) return sections;
  for (const m of fs.readFileSync(RESULTS, 'utf8').matchAll(SECTION)) sections.set(m[1], m[2]);
  return sections;
}

function section(o: Outcome, date: string): string {
  const status = o.exitCode === 0 ? '' : ` — **FAILED (exit ${o.exitCode})**`;
  const lines = [`_Run ${date} with \`${o.command}\` in ${o.seconds.toFixed(0)} s on ${machine()}${status}._`, '', o.stdout.trim() || '(no output)'];
  if (o.exitCode !== 0) lines.push('', 'End of stderr:', '', '```', o.stderrTail.trim(), '```');
  return lines.join('\n') + '\n';
}

function writeResults(sections: Map<string, string>, argv: string[], date: string): void {
  const names = [...sections.keys()].sort();
  const body = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench${argv.length ? ' -- ' + argv.join(' ') : ''}\` (bench/run.ts) on ${date}; machine: ${machine()}.`,
    '',
    'Each benchmark measures against a peer in the same run and says how. The machine is shared with other work and has few cores, so the figures are indicative: compare the ratios, not the absolute rates. `npm run bench -- NAME` re-runs one benchmark and keeps the others\' sections; `--quick` gives shorter runs to the benchmarks that know it.',
    '',
    `Sections: ${names.map((n) => `[${n}](#${n})`).join(', ')}.`,
    '',
    ...names.map((n) => `<a id="${n}"></a>\n<!-- bench:${n} -->\n${sections.get(n)}<!-- /bench:${n} -->\n`),
  ];
  fs.writeFileSync(RESULTS, body.join('\n'));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) usage();
  const unknown = argv.filter((a) => a.startsWith('-') && a !== '--quick');
  if (unknown.length) {
    console.error(`bench: unknown option ${unknown.join(' ')} (known: --quick, --help)`);
    process.exit(2);
  }
  const quick = argv.includes('--quick');
  const words = argv.filter((a) => !a.startsWith('-'));
  const all = fs.readdirSync(BENCH_DIR).filter((f) => f.endsWith('.bench.ts')).sort();
  const nameOf = (f: string) => f.replace('.bench.ts', '');
  // A word that names a benchmark picks that one only ('crawl' is not 'recrawl'); any other word picks every name containing it.
  const picks = (w: string) => (all.some((f) => nameOf(f) === w) ? (f: string) => nameOf(f) === w : (f: string) => nameOf(f).includes(w));
  const chosen = all.filter((f) => words.length === 0 || words.some((w) => picks(w)(f)));
  if (chosen.length === 0) {
    console.error(`bench: no benchmark matches ${words.join(', ')}; there are: ${all.map(nameOf).join(', ')}`);
    process.exit(2);
  }
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const sections = readSections();
  const failed: string[] = [];
  for (const f of chosen) {
    console.error(`\n=== bench ${f}${quick ? ' (quick)' : ''} ===`);
    const o = await runBench(path.join(BENCH_DIR, f), quick);
    if (o.exitCode !== 0) failed.push(o.name);
    sections.set(o.name, section(o, date));
    // Written after each benchmark so that a stopped run keeps what it measured.
    writeResults(sections, argv, date);
  }
  console.error(`\nbench: wrote ${path.relative(process.cwd(), RESULTS)} (${chosen.length} benchmark(s)${failed.length ? `, failed: ${failed.join(', ')}` : ''})`);
  if (failed.length) process.exitCode = 1;
}

await main();
