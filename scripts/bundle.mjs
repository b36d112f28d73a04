#!/usr/bin/env node
// `npm run build`, after tsc: bundles the CLI and the query worker into dist/bundle/ (esbuild), so a
// command loads a few files instead of dozens of small ESM modules: node's ESM loader pays a resolve,
// an asynchronous read and a compile per module, and start-up is most of what a small query costs
// (bench/STARTUP.md). dist/'s modules stay as they are: they are the library (the exports map).
//
// - Packages stay external: they are loaded from node_modules as before (Oxigraph's WebAssembly, the
//   native SQLite binding, CommonJS packages), all but commander, which every command loads: its eight
//   CommonJS files are bundled (`require` of node's modules then needs the banner's createRequire).
// - Each command's dynamic import becomes a chunk of its own (splitting): a command still loads only
//   what it runs; and early.js (what bin/datamonitor.mjs runs before main.js) shares its modules with
//   main.js through a common chunk, so both see the one query thread it started.
// - A module that finds a file beside itself (a worker thread's entry, package.json) uses
//   import.meta.url; in a chunk that would be the chunk's URL, so each module's import.meta.url and
//   import.meta.dirname are rewritten to name its own file in dist/, which the bundle ships beside it.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
const outdir = path.join(dist, 'bundle');

/** import.meta.url / dirname of a dist/ module, as an expression valid in any chunk of outdir. */
const ownLocation = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep)) return undefined;
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!source.includes('import.meta')) return { contents: source, loader: 'js' };
      const rel = (p) => path.relative(outdir, p).split(path.sep).join('/');
      const url = `new URL(${JSON.stringify(rel(args.path))}, import.meta.url).href`;
      const dir = `decodeURIComponent(new URL(${JSON.stringify(`${rel(path.dirname(args.path))}/`)}, import.meta.url).pathname).replace(/\\/$/, '')`;
      const contents = source.replaceAll('import.meta.url', `(${url})`).replaceAll('import.meta.dirname', `(${dir})`);
      return { contents, loader: 'js' };
    });
  },
};

/** Every dependency (and its subpaths) but commander. */
function external() {
  const { dependencies } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return Object.keys(dependencies).filter((d) => d !== 'commander').flatMap((d) => [d, `${d}/*`]);
}

fs.rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { early: path.join(dist, 'cli/early.js'), main: path.join(dist, 'cli/main.js'), 'query-worker': path.join(dist, 'query/engine/worker.js') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: external(),
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  plugins: [ownLocation],
  logLevel: 'warning',
});
