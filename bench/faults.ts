/**
 * `npm run faults [-- --scale test|full] [--bound SECONDS] [--json] [CASE...]`: every case of the
 * fault kit (src/testkit/faults) at the sizes of issue #12 (100 MB robots.txt, 1 GiB bombs, ...),
 * each crawled beside a healthy host in a process of its own (so one case's memory or hang cannot
 * spoil the next one's figures, and a hung crawl is killed), then one table: case, ended in,
 * reasons seen, RSS, verify. Exit status 1 when any case fails.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAULT_CASES, faultCase, faultProblems, runFaultCase, type FaultResult, type FaultScale } from '../src/testkit/faults/index.ts';

const MiB = 1024 * 1024;
const RESULT = 'FAULT-RESULT ';

interface Row {
  name: string;
  result?: FaultResult;
  maxRssBytes?: number;
  problems: string[];
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function child(name: string, scale: FaultScale, boundMs: number): Promise<void> {
  // The kit talks to 127.0.0.1 only: the tests' guard makes any other name lookup fail at once.
  await import('../test/setup/no-network.ts');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dm-fault-${name}-`));
  try {
    const result = await runFaultCase(faultCase(name), dir, { scale, boundMs });
    const maxRssBytes = process.resourceUsage().maxRSS * 1024;
    process.stdout.write(`${RESULT}${JSON.stringify({ result, maxRssBytes })}\n`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // A hung crawl may still hold sockets and timers: the result is out, so leave.
  process.exit(0);
}

function runChild(name: string, scale: FaultScale, boundMs: number): Promise<Row> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.resolve('bin/run-ts.mjs'), path.resolve('bench/faults.ts'), '--child', name, '--scale', scale, '--bound', String(boundMs / 1000)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err = (err + d).slice(-4000)));
    // The child ends by itself at the bound; this is for a case that even the abort cannot stop.
    const kill = setTimeout(() => p.kill('SIGKILL'), boundMs + 60_000);
    p.on('close', (code, signal) => {
      clearTimeout(kill);
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (!line) return resolve({ name, problems: [`the case process ended without a result (${signal ?? `exit ${code}`}): ${err.trim().split('\n').slice(-3).join(' | ')}`] });
      const { result, maxRssBytes } = JSON.parse(line.slice(RESULT.length)) as { result: FaultResult; maxRssBytes: number };
      resolve({ name, result, maxRssBytes, problems: faultProblems(result, 1024 * MiB) });
    });
  });
}

function table(rows: Row[]): string {
  const head = ['case', 'ended in', 'reasons seen', 'RSS +/max', 'verify', 'result'];
  const body = rows.map((r) => {
    const x = r.result;
    return [
      r.name,
      !x ? '-' : x.ended ? `${(x.endedMs / 1000).toFixed(1)} s` : `> ${x.boundMs / 1000} s (hung)`,
      !x ? '-' : x.fates.map((f) => (f.length > 40 ? `${f.slice(0, 37)}...` : f)).join(', ') || '(none logged)',
      !x ? '-' : `${Math.round(x.rssGrowthBytes / MiB)}/${Math.round((r.maxRssBytes ?? 0) / MiB)} MiB`,
      !x ? '-' : x.verify.ok ? 'ok' : 'FAIL',
      r.problems.length ? 'FAIL' : 'ok',
    ];
  });
  const widths = head.map((h, i) => Math.min(70, Math.max(h.length, ...body.map((b) => b[i].length))));
  const line = (cells: string[]) => cells.map((c, i) => c.slice(0, widths[i]).padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const scale = (arg('--scale') ?? 'full') as FaultScale;
  if (scale !== 'test' && scale !== 'full') throw new Error(`--scale is test or full, got ${scale}`);
  // A case that times out is tried maxRetries + 1 times (slow-loris-body: 4 × the 4 s total deadline and 7 s of back-off at test scale).
  const boundMs = Number(arg('--bound') ?? (scale === 'full' ? 90 : 40)) * 1000;
  const childName = arg('--child');
  if (childName) return child(childName, scale, boundMs);

  const valued = new Set(['--scale', '--bound']);
  const names = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !valued.has(all[i - 1]));
  const cases = names.length ? names.map((n) => faultCase(n)) : FAULT_CASES;
  const rows: Row[] = [];
  for (const c of cases) {
    process.stderr.write(`${c.name}: ${c.about} ... `);
    const row = await runChild(c.name, scale, boundMs);
    process.stderr.write(`${row.problems.length ? 'FAIL' : 'ok'}\n`);
    rows.push(row);
  }
  if (process.argv.includes('--json')) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
  } else {
    process.stdout.write(`\nfault kit, ${scale} sizes, bound ${boundMs / 1000} s per case\n\n${table(rows)}\n`);
    const failing = rows.filter((r) => r.problems.length);
    if (failing.length) {
      process.stdout.write(`\n${failing.length} of ${rows.length} cases fail:\n`);
      for (const r of failing) process.stdout.write(`  ${r.name}\n${r.problems.map((p) => `    - ${p}`).join('\n')}\n`);
    } else process.stdout.write(`\nall ${rows.length} cases hold\n`);
  }
  process.exitCode = rows.some((r) => r.problems.length) ? 1 : 0;
}

await main();
