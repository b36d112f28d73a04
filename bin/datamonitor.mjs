#!/usr/bin/env node
// The CLI entry: loads the TypeScript sources through tsx so that no build step is needed.
import { register } from 'tsx/esm/api';
// `datamonitor export | head` closes the pipe early: that is not an error.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});
register();
const { main } = await import('../src/cli/main.ts');
await main(process.argv);
