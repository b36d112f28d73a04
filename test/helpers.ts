import fs from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { LOG_ROWS_SQL } from '../src/store/warc-ids.ts';
import { unpackDigest } from '../src/store/schema.ts';

export const repoRoot = path.resolve(import.meta.dirname, '..');

// One 'exit' listener removes them all: one per directory passed Node's limit of ten (MaxListenersExceededWarning).
const tempDirs: string[] = [];
let exitHandled = false;

/** A fresh temporary directory, removed when the process exits. */
export function tempDir(prefix = 'dm-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (!exitHandled) {
    exitHandled = true;
    process.on('exit', removeTempDirs);
  }
  tempDirs.push(dir);
  return dir;
}

/** Removes the directories `tempDir` made so far: at the end of each test file (test/setup/temp-dirs.ts). */
export function removeTempDirs(): void {
  for (const d of tempDirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
}

/**
 * Rows of a table of a data directory's metadata store, read straight from its SQLite file (what a user would
 * inspect), with its digests spelled as text (SQLite keeps their bytes: src/store/schema.ts packDigest).
 */
function rows(dataDir: string, sql: string): Array<Record<string, any>> {
  const db = new Database(path.join(dataDir, 'meta.sqlite'), { readonly: true });
  try {
    const out = db.prepare(sql).all() as Array<Record<string, any>>;
    for (const r of out) {
      if (r.checksum != null) r.checksum = unpackDigest(r.checksum, 'sha1');
      if (r.graph_hash != null) r.graph_hash = unpackDigest(r.graph_hash, 'hex');
    }
    return out;
  } finally {
    db.close();
  }
}

export const crawlLog = (dataDir: string) => rows(dataDir, `${LOG_ROWS_SQL} ORDER BY c.id`);
export const documents = (dataDir: string) => rows(dataDir, 'SELECT * FROM documents');

export function warcFiles(dataDir: string): string[] {
  const root = path.join(dataDir, 'warc');
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.warc.gz') || f.endsWith('.warc.gz.open')).map((f) => path.join(root, f));
}

/**
 * The directory as a process would see it on read-only media. Root writes through any file mode, so
 * as root the view is a read-only bind mount (writes fail with EROFS); otherwise the modes are taken
 * away. undefined when neither can be made here (the caller skips, saying so). Call `release` after.
 */
export function readOnlyView(dir: string): { path: string; release(): void } | undefined {
  if (process.getuid?.() !== 0) {
    setModes(dir, 0o555, 0o444);
    return { path: dir, release: () => setModes(dir, 0o755, 0o644) };
  }
  const view = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-ro-'));
  const run = (args: string[]) => spawnSync('mount', args).status === 0;
  if (!run(['--bind', dir, view])) return undefined;
  if (!run(['-o', 'remount,bind,ro', view])) {
    spawnSync('umount', [view]);
    return undefined;
  }
  return { path: view, release: () => void (spawnSync('umount', [view]), fs.rmSync(view, { recursive: true, force: true })) };
}

function setModes(dir: string, dirMode: number, fileMode: number): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isDirectory()) setModes(p, dirMode, fileMode);
    else fs.chmodSync(p, fileMode);
  }
  fs.chmodSync(dir, dirMode);
}

/**
 * The time limit for a test (or hook) whose work is the point: a crawl, a child process, a browser. On a
 * 2-core machine at load 50 (the suite beside other work, #14) a few CPU-seconds take minutes of wall
 * time, past vitest's 60 s. Tests assert behaviour; this only keeps a slow machine from failing them.
 */
export const LOADED_TIMEOUT_MS = 300_000;

/** Runs the `datamonitor` command as a user would (a process of its own): exit code, stdout, stderr. */
export function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args], { cwd: opts.cwd, env: opts.env && { ...process.env, ...opts.env } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

/**
 * RFC 4648 base32 written here, apart from the archive's own encoder, so that tests of digests compare
 * against an independent spelling (WARC digests are `sha1:` + base32, as Heritrix and warcio write them).
 */
export function base32(buf: Buffer, pad = false): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '', bits = 0, v = 0;
  for (const b of buf) {
    v = (v << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(v >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(v << (5 - bits)) & 31];
  while (pad && out.length % 8) out += '=';
  return out;
}

/** Whether a process is still running (signal 0 tests for it without touching it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}


/**
 * Runs a whole command line through the CLI's `main` in this process, as `datamonitor ARGS` would run
 * it after start-up: what it wrote on stdout and stderr, and its exit status. No child process: a
 * process booting the sources through tsx costs about a CPU-second (tens of seconds on a loaded
 * machine). What only a process shows (signals, the entry script, memory caps) stays with `cli`.
 */
export async function runMain(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { main } = await import('../src/cli/main.ts');
  const captured = { out: '', err: '' };
  const capture = (stream: NodeJS.WriteStream, key: 'out' | 'err') => {
    const write = stream.write;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured[key] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (done) queueMicrotask(done);
      return true;
    }) as typeof stream.write;
    return () => void (stream.write = write);
  };
  const restore = [capture(process.stdout, 'out'), capture(process.stderr, 'err')];
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  try {
    await main(['node', 'datamonitor', ...args]);
    return { code: Number(process.exitCode ?? 0), ...captured };
  } finally {
    for (const r of restore) r();
    process.exitCode = exitCode;
  }
}

/**
 * runMain for a command line that must succeed: what it printed on stdout. A failure throws, with its exit
 * status and what it said on stderr (`await expect(runMainOk(args)).rejects.toThrow(/message/)`).
 */
export async function runMainOk(args: string[]): Promise<string> {
  const r = await runMain(args);
  if (r.code !== 0) throw new Error(`datamonitor ${args.join(' ')}: exit status ${r.code}: ${r.err}`);
  return r.out;
}
