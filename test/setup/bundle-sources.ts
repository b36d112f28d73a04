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
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { TestProject } from 'vitest/node';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
const CACHE = path.join(ROOT, '.cache/src-bundles');

/**
 * src-relative paths of the modules booted as threads or processes: siblingModule(import.meta.url, './x.ts')
 * calls, the CLI, and the CDX probe (test/server/cdx-bounded.test.ts runs it under a 32 MB heap, where
 * tsx's own transforms would take a share of the cap that the route under test must have).
 */
export function bootedEntries(): string[] {
  const entries = new Set(['cli/early.ts', 'cli/main.ts', 'server/cdx-probe.ts']);
  for (const rel of fs.readdirSync(SRC, { recursive: true }) as string[]) {
    if (!rel.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(SRC, rel), 'utf8');
    for (const m of text.matchAll(/siblingModule\(import\.meta\.url, '([^']+\.ts)'\)/g)) {
      entries.add(path.relative(SRC, path.resolve(SRC, path.dirname(rel), m[1])));
    }
  }
  return [...entries].sort();
}

/**
 * Each module keeps its own import.meta.url and dirname, as under tsx: siblingModule() and the paths
 * to package.json or shared data are computed from them, and would otherwise point into the bundle.
 */
const ownMeta: Plugin = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      const text = fs.readFileSync(args.path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path));
      return { contents: text, loader: 'ts' };
    });
  },
};

/** Bundles `entries` (src-relative) into `outdir`, each as its src-relative path with .mjs; packages stay imports. */
export async function bundleSources(entries: string[], outdir: string): Promise<void> {
  await build({
    entryPoints: Object.fromEntries(entries.map((e) => [e.replace(/\.[cm]?ts$/, ''), path.join(SRC, e)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true, // the CLI's lazily imported commands stay lazy
    packages: 'external', // resolved from the checkout's node_modules, as under tsx
    platform: 'node',
    format: 'esm',
    target: 'node20',
    keepNames: true, // class and function names as in the sources (errors print them)
    plugins: [ownMeta],
    logLevel: 'error',
  });
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
