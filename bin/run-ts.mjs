#!/usr/bin/env node
// Runs a TypeScript entry point without a build step (tsx's loader), so a fresh clone needs only `npm ci`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
register();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) { console.error('usage: run-ts.mjs FILE.ts [args...]'); process.exit(2); }
process.argv = [process.argv[0], path.resolve(entry), ...rest];
await import(pathToFileURL(path.resolve(entry)).href);
