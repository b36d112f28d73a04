import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Built once per run: the entry points tests boot as threads and processes (the file says why).
    globalSetup: ['test/setup/bundle-sources.ts'],
    setupFiles: ['test/setup/no-network.ts', 'test/setup/cpu-log.ts', 'test/setup/temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A fork runs file after file on one module graph: the suite's files import much the same sources,
    // and isolating each file paid their import again (324 s of the 580 s idle run's summed import time;
    // 866 CPU-s isolated, 714 not, same 1,197 tests passing). Tests restore what they change (process.env,
    // servers, exit codes) and singletons are keyed by what they serve.
    isolate: false,
    // Vitest's default is one worker less than the CPUs: one on a 2-core machine, so the suite ran file
    // after file while most files wait (on servers, politeness delays, child processes), not compute.
    // Four at once (#14: the suite within 8 minutes); tests assert behaviour, never speed.
    maxWorkers: 4,
    reporters: ['default'],
  },
});
