import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Tests that start server processes run in their own phase, one file at a time (scripts/test.mjs), so
    // their timings do not depend on what else the machine runs.
    // The browser tests (test/browser) are a phase of their own too.
    exclude: [
      '**/node_modules/**',
      ...(process.env.PLAYBASE_TEST_PHASE === 'process' ? [] : ['test/process/**']),
      ...(process.env.PLAYBASE_TEST_PHASE === 'browser' ? [] : ['test/browser/**']),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is cores - 1: one worker on a 2-core machine, which ran the suite file after file. The
    // tests wait on PostgreSQL, servers and sockets much of the time, so two workers at least (measured on the
    // 2-core CI machine, embedded store: 602 s with one worker, 368 s with two, the same tests passing).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/global-setup.ts'],
  },
});
