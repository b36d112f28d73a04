#!/usr/bin/env node
// The CLI entry. The installed package has no src/: it runs the compiled dist/ on plain node.
// A checkout (src/ beside this file, tsx installed as a dev dependency) runs the sources through
// tsx instead, even when a dist/ was built: what you edit is what runs, and the tests, which spawn
// this file, test the sources and never a stale build. DATAMONITOR_DIST=1 runs dist/ in a
// checkout too (after `npm run build`), to try the build or time its start-up. Under `vitest run`
// (DATAMONITOR_SRC_BUNDLES, see src/util/ts-thread.ts) the sources come bundled into plain JavaScript
// at the run's start: the same code without tsx's 0.6 CPU-s per process, which the suite pays hundreds of times.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// `datamonitor export | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const sources = new URL('../src/cli/main.ts', import.meta.url);
let main;
const bundles = process.env.DATAMONITOR_SRC_BUNDLES;
const checkout = fileURLToPath(new URL('..', import.meta.url));
if (process.env.DATAMONITOR_DIST !== '1' && existsSync(sources) && bundles && path.resolve(bundles).startsWith(checkout)) {
  const bundle = path.join(bundles, 'cli/main.mjs');
  if (existsSync(bundle)) ({ main } = await import(pathToFileURL(bundle).href));
}
if (!main && process.env.DATAMONITOR_DIST !== '1' && existsSync(sources)) {
  const tsx = await import('tsx/esm/api').catch(() => undefined); // absent after `npm ci --omit=dev`: then dist/
  if (tsx) {
    tsx.register();
    ({ main } = await import(sources.href));
  }
}
if (!main) {
  const built = new URL('../dist/cli/main.js', import.meta.url);
  if (!existsSync(built)) {
    process.stderr.write('datamonitor: this checkout has no build (dist/) and no tsx to run the sources: run `npm ci` (it builds), or `npm run build`.\n');
    process.exit(70);
  }
  ({ main } = await import(built.href));
}
await main(process.argv);
