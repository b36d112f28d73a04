/**
 * `datamonitor …` as a user runs it, measured: wall time, CPU (GNU time: the CLI and the query process it
 * reaped; on a shared machine the wall time is mostly waiting for a core, the CPU time is what the command
 * cost) and peak RSS summed over the CLI and its descendants, sampled every 20 ms.
 */
import fs from 'node:fs';
import { spawn } from 'node:child_process';

export interface CliRun { ms: number; cpuMs: number; peakRss: number; stdout: string; stderr: string; code: number | null }

/** Sum of VmRSS over a process and its descendants (the CLI and its query process). */
export function treeRss(pid: number): number {
  let total = 0;
  const visit = (p: number) => {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const c of children ? children.split(/\s+/) : []) visit(Number(c));
      }
    } catch {
      // the process ended meanwhile
    }
  };
  visit(pid);
  return total;
}

/** Runs `bin/datamonitor.mjs …argv` (from the repository's root) under GNU time. */
export function runCli(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const t = performance.now();
    const child = spawn('/usr/bin/time', ['-f', 'dm-cpu %U %S', process.execPath, 'bin/datamonitor.mjs', ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let peakRss = 0;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, treeRss(child.pid!))), 20);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const cpu = /dm-cpu ([\d.]+) ([\d.]+)/.exec(stderr);
      resolve({ ms: performance.now() - t, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : NaN, peakRss, stdout, stderr, code });
    });
  });
}
