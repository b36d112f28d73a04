/**
 * Peak RSS of the commands that read a whole archive (issue 16 item 6): export in every format, verify,
 * stats, and the CDX and dashboard reads, on an archive of N documents of the generated Linked Data Web
 * (src/testkit/scale-archive.ts: 303 + 200 per document, a changed version of every tenth, a 404 for every
 * hundredth), against the same commands on an archive a tenth the size, built in the same run: a command
 * that streams has the same peak at both sizes (ratio near 1), one that holds the log grows with it.
 * Each command is its own process, as a user runs it, measured by GNU time (maximum resident set size).
 *
 * `--baseline DIR` runs the export commands of another checkout (e.g. the main branch before this change)
 * on the larger archive too, for a before/after column.
 *
 * Run: node bin/run-ts.mjs bench/scale.bench.ts [--quick] [--docs 100000] [--million] [--baseline DIR]
 *   default 100,000 documents; --quick 10,000; --million 1,000,000 (about twenty minutes of CPU to build).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildScaleArchive } from '../src/testkit/scale-archive.ts';
import { formatBytes } from '../src/util/units.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

const DOCS = argv.includes('--million') ? 1_000_000 : Number(arg('--docs') ?? (argv.includes('--quick') ? 10_000 : 100_000));
const BASELINE = arg('--baseline');
if (spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status !== 0) {
  process.stderr.write('this bench needs GNU time (/usr/bin/time) to read each command\'s peak RSS: apt-get install time\n');
  process.exit(1);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-scale-bench-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

async function build(documents: number): Promise<{ dir: string; entries: number; seconds: number; bytes: number }> {
  const dir = path.join(tmp, `archive-${documents}`);
  const t0 = Date.now();
  const r = await buildScaleArchive({ dataDir: dir, documents, onProgress: (n) => process.stderr.write(`\rbuilding ${documents}: ${n}`) });
  process.stderr.write('\n');
  const bytes = (fs.readdirSync(dir, { recursive: true }) as string[]).reduce((n, f) => n + (fs.statSync(path.join(dir, f)).isFile() ? fs.statSync(path.join(dir, f)).size : 0), 0);
  return { dir, entries: r.entries, seconds: (Date.now() - t0) / 1000, bytes };
}

interface Measured {
  rssKb: number;
  seconds: number;
  ok: boolean;
  note: string;
}

/** Runs a command under GNU time; its peak RSS (KB), wall seconds, and whether it succeeded. */
function measure(cmd: string[]): Promise<Measured> {
  return new Promise((resolve) => {
    const marker = path.join(tmp, `time-${process.hrtime.bigint()}`);
    const t0 = Date.now();
    const p = spawn('/usr/bin/time', ['-f', '%M', '-o', marker, ...cmd], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
    p.on('exit', (code) => {
      const text = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : '';
      const rssKb = Number(/(\d+)\s*$/.exec(text.trim())?.[1] ?? NaN);
      const heap = /heap out of memory/.test(err);
      resolve({ rssKb, seconds: (Date.now() - t0) / 1000, ok: code === 0, note: code === 0 ? '' : heap ? 'heap out of memory' : `exit ${code}: ${err.trim().split('\n').at(-1) ?? ''}` });
    });
  });
}

const cliOf = (root: string) => [process.execPath, path.join(root, 'bin/datamonitor.mjs')];
const out = (name: string) => path.join(tmp, `out-${name}`);
const COMMANDS: Array<{ name: string; args: (dir: string) => string[]; exportCmd?: boolean }> = [
  { name: 'export --format nquads', args: (d) => ['export', '--data', d, '-o', out('nq')], exportCmd: true },
  { name: 'export --format turtle', args: (d) => ['export', '--data', d, '--format', 'turtle', '-o', out('ttl')], exportCmd: true },
  { name: 'export --format prolog --provenance', args: (d) => ['export', '--data', d, '--format', 'prolog', '--provenance', '-o', out('pl')], exportCmd: true },
  { name: 'export --format warc', args: (d) => ['export', '--data', d, '--format', 'warc', '-o', out('warc.gz')], exportCmd: true },
  { name: 'verify', args: (d) => ['verify', '--data', d, '--json'] },
  { name: 'stats', args: (d) => ['stats', '--data', d, '--json'] },
];

async function run(root: string, name: string, args: string[]): Promise<Measured> {
  const m = await measure([...cliOf(root), ...args]);
  for (const f of fs.readdirSync(tmp)) if (f.startsWith('out-')) fs.rmSync(path.join(tmp, f), { force: true });
  process.stderr.write(`${name}: ${(m.rssKb / 1024).toFixed(0)} MB, ${m.seconds.toFixed(1)} s${m.ok ? '' : ` (${m.note})`}\n`);
  return m;
}

const small = await build(Math.max(100, Math.round(DOCS / 10)));
const large = await build(DOCS);
const floor = await measure([...cliOf(ROOT), '--help']);
const rows: string[] = [];
const mb = (m: Measured) => (m.ok ? `${(m.rssKb / 1024).toFixed(0)} MB` : `failed (${m.note}) at ${(m.rssKb / 1024).toFixed(0)} MB`);
for (const c of [...COMMANDS, { name: 'CDX domain query paged to its end over HTTP + dashboard overview reads (in one process)', args: () => [] as string[], probe: true }]) {
  // The probe is the one the bounded-memory test runs (src/server/cdx-probe.ts), paged by the route's default 10,000 lines.
  const argsOf = (d: string) => ('probe' in c ? [path.join(ROOT, 'bin/run-ts.mjs'), path.join(ROOT, 'src/server/cdx-probe.ts'), d, '10000'] : c.args(d));
  const runOn = (root: string, d: string) => ('probe' in c ? measure([process.execPath, ...argsOf(d)]) : run(root, c.name, argsOf(d)));
  const a = await runOn(ROOT, small.dir);
  const b = await runOn(ROOT, large.dir);
  const before = BASELINE && 'exportCmd' in c && c.exportCmd ? await run(BASELINE, `${c.name} (baseline)`, c.args(large.dir)) : undefined;
  rows.push(`| ${c.name} | ${mb(a)} | ${mb(b)} | ${(b.rssKb / a.rssKb).toFixed(2)}x | ${b.seconds.toFixed(1)} s |${BASELINE ? ` ${before ? mb(before) : ''} |` : ''}`);
}

const sizeOf = (n: number, x: typeof small) => `${n.toLocaleString('en')} documents: ${x.entries.toLocaleString('en')} log entries, ${formatBytes(x.bytes)} on disk, built in ${x.seconds.toFixed(0)} s`;
console.log(`## Scale: peak RSS of whole-archive commands\n`);
console.log(`Archives: ${sizeOf(Math.max(100, Math.round(DOCS / 10)), small)}; ${sizeOf(DOCS, large)}. CLI floor (\`datamonitor --help\`): ${(floor.rssKb / 1024).toFixed(0)} MB.\n`);
console.log(`| command | peak RSS, small | peak RSS, large | large / small | wall, large |${BASELINE ? ` before (${path.basename(BASELINE)}), large |` : ''}`);
console.log(`|---|---|---|---|---|${BASELINE ? '---|' : ''}`);
for (const r of rows) console.log(r);
console.log(`\nMachine: ${os.cpus().length} cores, node ${process.version}; shared with other jobs while it ran (wall times are not comparable, RSS is).`);
