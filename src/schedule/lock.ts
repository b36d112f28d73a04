import fs from 'node:fs';
import path from 'node:path';

/**
 * The cycle lock: a file created exclusively in the data directory. Two cycles never overlap, in
 * one process or across processes on one machine; a lock left by a dead process is taken over.
 */
export interface CycleLock {
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock, or returns the holder's description when another live process has it. */
export function acquireCycleLock(dataDir: string): CycleLock | { heldBy: string } {
  const file = path.join(dataDir, 'cycle.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }));
      fs.closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          fs.rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let holder: { pid?: number; since?: string } = {};
      try {
        holder = JSON.parse(fs.readFileSync(file, 'utf8'));
      } catch {
        // half-written by a process that died at once: stale
      }
      if (holder.pid && alive(holder.pid) && holder.pid !== process.pid) return { heldBy: `process ${holder.pid} since ${holder.since}` };
      if (holder.pid === process.pid) return { heldBy: `this process since ${holder.since}` };
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  return { heldBy: 'another process (lock could not be taken)' };
}
