#!/usr/bin/env node
// The CLI entry. The installed package has no src/: it runs the compiled dist/ on plain node (the
// build's bundle of it, dist/bundle/, when there is one: fewer files load faster).
// A checkout (src/ beside this file, tsx installed as a dev dependency) runs the sources through
// tsx instead, even when a dist/ was built: what you edit is what runs, and the tests, which spawn
// this file, test the sources and never a stale build. DATAMONITOR_DIST=1 runs dist/ in a
// checkout too (after `npm run build`), to try the build or time its start-up.
// early.ts comes first: what a command can start before its command line is parsed (a query's thread).
import { existsSync } from 'node:fs';

// `datamonitor export | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const args = process.argv.slice(2);
let entry;
if (process.env.DATAMONITOR_DIST !== '1' && existsSync(new URL('../src/cli/main.ts', import.meta.url))) {
  const tsx = await import('tsx/esm/api').catch(() => undefined); // absent after `npm ci --omit=dev`: then dist/
  if (tsx) {
    tsx.register();
    entry = { early: '../src/cli/early.ts', main: '../src/cli/main.ts' };
  }
}
if (!entry) {
  // dist/cli/ has the same code as modules, for a dist/ built by tsc alone.
  entry = existsSync(new URL('../dist/bundle/main.js', import.meta.url))
    ? { early: '../dist/bundle/early.js', main: '../dist/bundle/main.js' }
    : { early: '../dist/cli/early.js', main: '../dist/cli/main.js' };
  if (!existsSync(new URL(entry.main, import.meta.url))) {
    process.stderr.write('datamonitor: this checkout has no build (dist/) and no tsx to run the sources: run `npm ci` (it builds), or `npm run build`.\n');
    process.exit(70);
  }
}
(await import(new URL(entry.early, import.meta.url).href)).startEarly(args);
const { main } = await import(new URL(entry.main, import.meta.url).href);
await main(process.argv);
