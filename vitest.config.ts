import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Built once per run: the entry points tests boot as threads and processes (the file says why).
    globalSetup: ['test/setup/bundle-sources.ts'],
    setupFiles: ['test/setup/no-network.ts', 'test/setup/cpu-log.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker less than the CPUs: one on a 2-core machine, so the suite ran file
    // after file while most files wait (on servers, politeness delays, child processes), not compute.
    // Four at once (#14: the suite within 8 minutes); tests assert behaviour, never speed.
    maxWorkers: 4,
    reporters: ['default'],
  },
});
