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
    globalSetup: ['test/global-setup.ts'],
  },
});
