#!/usr/bin/env node
// The CLI entry. The installed package has no src/: it runs the compiled dist/ on plain node (the
// build's bundle of it, dist/bundle/, when there is one: fewer files load faster).
// A checkout (src/ beside this file, tsx installed as a dev dependency) runs the sources through
// tsx instead, even when a dist/ was built: what you edit is what runs, and the tests, which spawn
// this file, test the sources and never a stale build. DATAMONITOR_DIST=1 runs dist/ in a
// checkout too (after `npm run build`), to try the build or time its start-up. Under `vitest run`
// (DATAMONITOR_SRC_BUNDLES, see src/util/ts-thread.ts) the sources come bundled into plain JavaScript
// at the run's start: the same code without tsx's 0.6 CPU-s per process, which the suite pays hundreds of times.
// early.ts comes first: what a command can start before its command line is parsed (a query's thread).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// `datamonitor export | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const args = process.argv.slice(2);
const here = (rel) => new URL(rel, import.meta.url);
const useSources = process.env.DATAMONITOR_DIST !== '1' && existsSync(here('../src/cli/main.ts'));
let entry;
const bundles = process.env.DATAMONITOR_SRC_BUNDLES;
if (useSources && bundles && path.resolve(bundles).startsWith(fileURLToPath(here('..')))) {
  const [early, main] = ['cli/early.mjs', 'cli/main.mjs'].map((f) => path.join(bundles, f));
  if (existsSync(early) && existsSync(main)) entry = { early: pathToFileURL(early), main: pathToFileURL(main) };
}
if (!entry && useSources) {
  const tsx = await import('tsx/esm/api').catch(() => undefined); // absent after `npm ci --omit=dev`: then dist/
  if (tsx) {
    tsx.register();
    entry = { early: here('../src/cli/early.ts'), main: here('../src/cli/main.ts') };
  }
}
if (!entry) {
  // dist/cli/ has the same code as modules, for a dist/ built by tsc alone.
  entry = existsSync(here('../dist/bundle/main.js'))
    ? { early: here('../dist/bundle/early.js'), main: here('../dist/bundle/main.js') }
    : { early: here('../dist/cli/early.js'), main: here('../dist/cli/main.js') };
  if (!existsSync(entry.main)) {
    process.stderr.write('datamonitor: this checkout has no build (dist/) and no tsx to run the sources: run `npm ci` (it builds), or `npm run build`.\n');
    process.exit(70);
  }
}
(await import(entry.early.href)).startEarly(args);
const { main } = await import(entry.main.href);
await main(process.argv);
// A query answered, its archive closed: what is left is node tearing down its environment (Oxigraph's
// WebAssembly, the query's companion thread), ~15 ms of a ~350 ms query (bench/RESULTS.md#startup), which
// exit skips. Only once every byte is out (a pipe on macOS is written asynchronously); other commands
// may leave work that ends on its own (a log file's last lines).
if (args[0] === 'query' && !process.exitCode && !process.stdout.writableLength && !process.stderr.writableLength) process.exit();
