import fs from 'node:fs';

/** Bytes an unprivileged process may still write on the file system holding `dir`; undefined when unknown. */
export function freeBytes(dir: string): number | undefined {
  try {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return undefined;
  }
}

/** Whether this process may create files in `dir` (false on read-only media, or without the permission). */
export function writableDir(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
