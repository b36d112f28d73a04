// The one esbuild set-up, for both its callers: `npm run build` (scripts/bundle.mjs: the CLI and the
// query worker of dist/ into dist/bundle/) and `vitest run` (test/setup/bundle-sources.ts: every module
// the sources boot as a thread or process, from src/, into a directory of the run).
//
// - Packages stay external: they are loaded from node_modules (Oxigraph's WebAssembly, the native
//   SQLite binding, CommonJS packages), all but commander, which every command loads: its eight
//   CommonJS files are bundled (`require` of node's modules then needs the banner's createRequire).
// - Each command's dynamic import becomes a chunk of its own (splitting): a command still loads only
//   what it runs; and the CLI's early entry (what bin/datamonitor.mjs runs before main) shares its
//   modules with main through a common chunk, so both see the one query thread it started.
// - A module that finds a file beside itself (a worker thread's entry, package.json) uses
//   import.meta; in a chunk that would be the chunk's URL, so each module's import.meta.url, dirname
//   and filename are rewritten to name its own source file (ownImportMeta).
// - Class and function names stay as in the sources (errors print them).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The build's entries: name in dist/bundle/ → module under dist/, without its extension. */
export const BUILD_ENTRIES = { early: 'cli/early', main: 'cli/main', 'query-worker': 'query/engine/worker' };

/**
 * The modules of `srcRoot` (src/, .ts) booted as threads or processes, relative to it: what
 * siblingModule(import.meta.url, './x.ts') names, the CLI, and the CDX probe
 * (test/server/cdx-bounded.test.ts runs it under a 32 MB heap, where tsx's own transforms would take
 * a share of the cap that the route under test must have).
 */
export function bootedEntries(srcRoot = path.join(ROOT, 'src')) {
  const entries = new Set(['cli/early.ts', 'cli/main.ts', 'server/cdx-probe.ts']);
  for (const rel of fs.readdirSync(srcRoot, { recursive: true })) {
    if (!rel.endsWith('.ts')) continue;
    const text = fs.readFileSync(path.join(srcRoot, rel), 'utf8');
    for (const m of text.matchAll(/siblingModule\(import\.meta\.url, '([^']+\.ts)'\)/g)) {
      entries.add(path.relative(srcRoot, path.resolve(srcRoot, path.dirname(rel), m[1])));
    }
  }
  return [...entries].sort();
}

/**
 * Rewrites import.meta in each module under `sourceRoot` to its own file. A bundle that ships with
 * its tree (dist/bundle/ in the package) names it relative to the chunk, which works only when every
 * output file is in `outdir` itself (`flat`); a bundle that stays where it was built (a test run's)
 * names it by its absolute path.
 */
function ownImportMeta(sourceRoot, outdir, flat) {
  return {
    name: 'own-import-meta',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async (args) => {
        if (!args.path.startsWith(sourceRoot + path.sep)) return undefined;
        const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!source.includes('import.meta')) return { contents: source, loader };
        let url, dir, file;
        if (flat) {
          const rel = (p) => path.relative(outdir, p).split(path.sep).join('/');
          const at = (p) => `new URL(${JSON.stringify(p)}, import.meta.url)`;
          url = `${at(rel(args.path))}.href`;
          dir = `decodeURIComponent(${at(`${rel(path.dirname(args.path))}/`)}.pathname).replace(/\\/$/, '')`;
          file = `decodeURIComponent(${at(rel(args.path))}.pathname)`;
        } else {
          [url, dir, file] = [pathToFileURL(args.path).href, path.dirname(args.path), args.path].map((s) => JSON.stringify(s));
        }
        const contents = source.replaceAll('import.meta.url', `(${url})`).replaceAll('import.meta.dirname', `(${dir})`).replaceAll('import.meta.filename', `(${file})`);
        return { contents, loader };
      });
    },
  };
}

/** Every package the project names (and its subpaths) but commander. */
function external() {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.devDependencies });
  return names.filter((d) => d !== 'commander').flatMap((d) => [d, `${d}/*`]);
}

/**
 * Bundles `entries` (output name → file under `sourceRoot`) into `outdir`, which it empties first.
 * `outExtension` is the extension of the output files ('.js' or '.mjs').
 */
export async function bundle({ sourceRoot, entries, outdir, outExtension = '.js', logLevel = 'warning' }) {
  const flat = Object.keys(entries).every((name) => !name.includes('/'));
  fs.rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, path.join(sourceRoot, file)])),
    outdir,
    outExtension: { '.js': outExtension },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: external(),
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    keepNames: true,
    plugins: [ownImportMeta(sourceRoot, outdir, flat)],
    logLevel,
  });
}
