/**
 * With DATAMONITOR_CPU_LOG=FILE, each test file appends one JSON line to FILE when it ends: the CPU
 * seconds its process spent (all its threads, plus the child processes it waited for: CLI runs,
 * servers) and its wall seconds. On a shared machine wall time follows the load, CPU time much less,
 * so bench/suite-cpu.ts sums these to estimate what the suite costs (bench/SUITE.md).
 * Each file runs in a fork of its own (vitest.config.ts: pool forks, isolated), so the process's
 * counters are the file's, its start-up and module loading included.
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
  // biome-ignore lint/correctness/noEmptyPattern: vitest takes the suite as the second argument, after a destructured context
  afterAll(({}, suite) => {
    const cpu = cpuSeconds();
    if (!cpu) return;
    const file = 'filepath' in suite ? String(suite.filepath) : suite.name;
    const line = { file, pid: process.pid, self: cpu.self, children: cpu.children, wall: process.uptime() };
    fs.appendFileSync(log, `${JSON.stringify(line)}\n`);
  });
}
