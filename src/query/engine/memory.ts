import fs from 'node:fs';
import { execFile } from 'node:child_process';

/**
 * Resident memory of another process, bytes (undefined when it cannot be read, e.g. the process is gone).
 * V8's resourceLimits do not count WebAssembly memory, so the engine watches the whole process instead:
 * /proc on Linux, ps(1) elsewhere.
 */
export async function residentBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await fs.promises.readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s*(\d+)\s*kB/m.exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || fs.existsSync('/proc/self/status')) return undefined;
  }
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'rss=', '-p', String(pid)], (err, out) => {
      const kb = Number(String(out).trim());
      resolve(err || !Number.isFinite(kb) || kb <= 0 ? undefined : kb * 1024);
    });
  });
}
