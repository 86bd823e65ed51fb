// Runs the test suite on the embedded store, then again on PostgreSQL, with Redis when it answers.
// Under CI=true a PostgreSQL or Redis that does not answer fails the run instead of being skipped.
import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';

const PG_URL = process.env.PLAYBASE_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.PLAYBASE_TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const ci = process.env.CI === 'true';

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || defaultPort), hostname || '127.0.0.1');
    socket.setTimeout(2000);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}

const pgUp = await reachable(PG_URL, 5432);
const redisUp = await reachable(REDIS_URL, 6379);
const skipped = [];
if (!pgUp) skipped.push(`PostgreSQL (${PG_URL}) does not answer: the PostgreSQL run of the suite is skipped`);
if (!redisUp) skipped.push(`Redis (${REDIS_URL}) does not answer: tests that need Redis are skipped`);
if (ci && skipped.length > 0) {
  for (const s of skipped) console.error(`CI=true and ${s.replace(/: .*/, '')} does not answer.`);
  process.exit(1);
}

const extraArgs = process.argv.slice(2);
function vitest(args, env) {
  const res = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...args], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return res.status === 0;
}

/** The suite in parallel, then the tests that start server processes one file at a time, then the browser's. */
function run(label, env) {
  console.log(`\n=== tests on ${label} ===`);
  const parallel = vitest(extraArgs, env);
  if (extraArgs.length > 0) return parallel;
  console.log(`\n=== process tests on ${label} (one file at a time) ===`);
  const sequential = vitest(['--no-file-parallelism', 'test/process'], {
    ...env,
    PLAYBASE_TEST_PHASE: 'process',
  });
  // The web console in a real browser (test/browser): one Chromium and one server for the file.
  console.log(`\n=== browser tests on ${label} ===`);
  const browser = vitest(['--no-file-parallelism', 'test/browser'], {
    ...env,
    PLAYBASE_TEST_PHASE: 'browser',
  });
  return parallel && sequential && browser;
}

const redisEnv = redisUp ? { PLAYBASE_TEST_REDIS_URL: REDIS_URL } : {};
let ok = run('the embedded store (PGlite)', { PLAYBASE_TEST_DATABASE_URL: '', ...redisEnv });
// The tests that touch no store (STORE_INDEPENDENT in vitest.config.ts) ran in the embedded run; the PostgreSQL
// run leaves them out.
if (pgUp) {
  console.log(
    '\n(the PostgreSQL run leaves out the tests that touch no store: they ran in the embedded run)',
  );
  ok =
    run(`PostgreSQL (${PG_URL})`, {
      PLAYBASE_TEST_DATABASE_URL: PG_URL,
      PLAYBASE_TEST_STORE_RUN: 'postgres',
      ...redisEnv,
    }) && ok;
}

if (skipped.length > 0) {
  console.log('\nSkipped:');
  for (const s of skipped) console.log(`  - ${s}`);
}
process.exit(ok ? 0 : 1);
