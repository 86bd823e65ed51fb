import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Tests that touch no store (pure units and document checks): the PostgreSQL run of scripts/test.mjs leaves them
// out (PLAYBASE_TEST_STORE_RUN=postgres), as running them twice checks nothing more. A new such file is added here.
export const STORE_INDEPENDENT = [
  'src/**/*.test.ts',
  'test/admin/matrix.test.ts',
  'test/auth/matrix.test.ts',
  'test/console/bundle.test.ts',
  'test/export/canonical-json.test.ts',
  'test/foundation/architecture.test.ts',
  'test/foundation/openapi-complete.test.ts',
  'test/foundation/settings.test.ts',
  'test/nosql/query-regressions.test.ts',
  'test/runtime/core.test.ts',
];

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
      ...(process.env.PLAYBASE_TEST_STORE_RUN === 'postgres' ? STORE_INDEPENDENT : []),
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Files share their worker's module graph instead of importing the server (and compiling PGlite's
    // WebAssembly) again for each file: the embedded run went from 446 s to 206 s on the 2-core CI machine, the
    // same tests passing. Each test builds its own server and store; what modules keep is constants, caches keyed
    // by objects (WeakMaps) and prom-client's process metrics, made to be shared by every server of a process.
    isolate: false,
    // Vitest's default is cores - 1: one worker on a 2-core machine, which ran the suite file after file. The
    // tests wait on PostgreSQL, servers and sockets much of the time, so two workers at least (measured on the
    // 2-core CI machine, embedded store: 602 s with one worker, 368 s with two, the same tests passing).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    globalSetup: ['test/global-setup.ts'],
  },
});
