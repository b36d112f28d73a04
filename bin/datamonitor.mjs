#!/usr/bin/env node
// The CLI entry: loads the TypeScript sources through tsx so that no build step is needed.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
