#!/usr/bin/env node
// `npm run build`, after tsc: bundles the CLI and the query worker into dist/bundle/ (esbuild,
// scripts/bundle-config.mjs), so a command loads a few files instead of dozens of small ESM modules:
// node's ESM loader pays a resolve, an asynchronous read and a compile per module, and start-up is
// most of what a small query costs (bench/STARTUP.md). dist/'s modules stay as they are: they are the
// library (the exports map), and the bundle's modules find the files beside them (worker entries,
// package.json) there.
import path from 'node:path';
import { BUILD_ENTRIES, bundle } from './bundle-config.mjs';

const dist = path.resolve(import.meta.dirname, '../dist');
const entries = Object.fromEntries(Object.entries(BUILD_ENTRIES).map(([name, mod]) => [name, `${mod}.js`]));
await bundle({ sourceRoot: dist, entries, outdir: path.join(dist, 'bundle') });
