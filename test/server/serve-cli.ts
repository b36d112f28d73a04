import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers.ts';

/**
 * `datamonitor serve --data DIR --port 0 --json [args]` as a child process, once it has printed its first line.
 * `heapMb` caps its heap (`--max-old-space-size`); `exited` says whether, and with what, it ended since.
 */
export async function serveCli(dataDir: string, args: string[] = [], opts: { heapMb?: number } = {}): Promise<{ info: { url: string; writes?: boolean }; stderr: () => string; stop: () => Promise<void>; exited: () => { code: number | null; signal: string | null } | undefined }> {
  const heap = opts.heapMb === undefined ? [] : [`--max-old-space-size=${opts.heapMb}`];
  const child = spawn(process.execPath, [...heap, path.join(repoRoot, 'bin/datamonitor.mjs'), 'serve', '--data', dataDir, '--port', '0', '--json', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: '/', env: { ...process.env, DATAMONITOR_TOKEN: '' } });
  let exit: { code: number | null; signal: string | null } | undefined;
  child.once('exit', (code, signal) => (exit = { code, signal }));
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const closed = new Promise((r) => child.once('close', r));
  const stop = async () => {
    child.kill('SIGTERM');
    await closed;
  };
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    return { info: JSON.parse(line), stderr: () => err, stop, exited: () => exit };
  } catch (e) {
    await stop();
    throw e;
  }
}
