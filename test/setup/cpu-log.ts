/**
 * With DATAMONITOR_CPU_LOG=FILE, each test file appends one JSON line to FILE when it ends: the CPU
 * seconds its process spent (all its threads, plus the child processes it waited for: CLI runs,
 * servers) and its wall seconds. On a shared machine wall time follows the load, CPU time much less,
 * so bench/suite-cpu.ts sums these to estimate what the suite costs (bench/SUITE.md).
 * Forks run file after file without isolation (vitest.config.ts), so a file's figures are the
 * differences of the process's counters between its start (this setup file runs before each file) and
 * its end: the modules it is the first to load count for it, those already loaded do not.
 */
import fs from 'node:fs';
import { afterAll } from 'vitest';

const log = process.env.DATAMONITOR_CPU_LOG;

/** utime+stime of this process and cutime+cstime of its reaped children, in seconds (Linux /proc). */
function cpuSeconds(): { self: number; children: number } | undefined {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime field 14.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
    const tick = 100; // USER_HZ: 100 on Linux for every architecture Node runs on
    return { self: (f[11] + f[12]) / tick, children: (f[13] + f[14]) / tick };
  } catch {
    return undefined;
  }
}

if (log) {
  // Read when this setup file runs, before the test file is imported: its imports count for it.
  const start = cpuSeconds();
  const startWall = process.uptime();
  // biome-ignore lint/correctness/noEmptyPattern: vitest takes the suite as the second argument, after a destructured context
  afterAll(({}, suite) => {
    const cpu = cpuSeconds();
    if (!cpu) return;
    const file = 'filepath' in suite ? String(suite.filepath) : suite.name;
    const since = start ?? { self: 0, children: 0 };
    const line = { file, pid: process.pid, self: cpu.self - since.self, children: cpu.children - since.children, wall: process.uptime() - startWall };
    fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
