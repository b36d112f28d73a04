#!/usr/bin/env node
// Runs a TypeScript entry point without a build step (tsx's loader), so a fresh clone needs only `npm ci`:
// the file named on the command line (`node bin/run-ts.mjs FILE.ts args…`, and the query engine's process),
// or, in a worker thread that src/util/ts-thread.ts started, the module its workerData names.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { isMainThread, workerData } from 'node:worker_threads';
import path from 'node:path';
register();
if (!isMainThread && typeof workerData?.entry === 'string') {
  await import(workerData.entry);
} else {
  const [entry, ...rest] = process.argv.slice(2);
  if (!entry) { console.error('usage: run-ts.mjs FILE.ts [args...]'); process.exit(2); }
  process.argv = [process.argv[0], path.resolve(entry), ...rest];
  await import(pathToFileURL(path.resolve(entry)).href);
}
