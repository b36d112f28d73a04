/**
 * vitest's globalSetup: bundles the entry points that tests boot as threads or processes of their own
 * (the worker-thread modules named by siblingModule(), the CLI) into plain JavaScript once per
 * `vitest run`, and names the directory in DATAMONITOR_SRC_BUNDLES, which the test files' processes
 * and the commands they spawn inherit. src/util/ts-thread.ts and bin/datamonitor.mjs then boot these
 * instead of the sources through tsx's loader: the same code, built from the sources a moment ago, for
 * 0.15 CPU-s a thread instead of 0.7 (bench/SUITE.md).
 * Watch mode keeps tsx: there a source edited between runs must run as edited; so does
 * DATAMONITOR_SRC_BUNDLES=off.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { bootedEntries, bundle } from '../../scripts/bundle-config.mjs';

export { bootedEntries };

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const CACHE = path.join(ROOT, '.cache/src-bundles');

/** Bundles `entries` (src-relative) into `outdir`, each as its src-relative path with .mjs (scripts/bundle-config.mjs). */
export async function bundleSources(entries: string[], outdir: string): Promise<void> {
  const named = Object.fromEntries(entries.map((e) => [e.replace(/\.[cm]?ts$/, ''), e]));
  await bundle({ sourceRoot: SRC, entries: named, outdir, outExtension: '.mjs', logLevel: 'error' });
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  // DATAMONITOR_SRC_BUNDLES=off: everything through tsx, as before (to compare, or to test that path).
  if (project.config.watch || process.env.DATAMONITOR_SRC_BUNDLES === 'off') {
    delete process.env.DATAMONITOR_SRC_BUNDLES;
    return undefined;
  }
  // Runs that ended without their teardown (killed) leave their directory: gone after a day.
  fs.mkdirSync(CACHE, { recursive: true });
  for (const old of fs.readdirSync(CACHE)) {
    const p = path.join(CACHE, old);
    if (Date.now() - fs.statSync(p).mtimeMs > 86_400_000) fs.rmSync(p, { recursive: true, force: true });
  }
  const outdir = fs.mkdtempSync(path.join(CACHE, 'run-')); // one per run: two runs in one checkout do not meet
  await bundleSources(bootedEntries(), outdir);
  process.env.DATAMONITOR_SRC_BUNDLES = outdir;
  return () => fs.rmSync(outdir, { recursive: true, force: true });
}
