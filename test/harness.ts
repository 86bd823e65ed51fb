// Test harness: a real server on a fresh store (a cloned PGlite folder, or a fresh PostgreSQL schema).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import pg from 'pg';
import { createServer, type Server, type StartOptions } from '../src/server.js';
import { loadSettings, type Settings } from '../src/settings.js';
import { openStore, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { cloneTemplate, ensureTemplate } from './template.js';

export const TEST_DATABASE_URL = process.env.PLAYBASE_TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.PLAYBASE_TEST_REDIS_URL || undefined;
export const storeKind = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export const ADMIN = { username: 'admin@playbase.test', password: 'admin-password-1' };

export interface TestServer extends Server {
  settings: Settings;
  /** Controllable clock (epoch ms); advance() moves it. */
  now: { value: number; advance(ms: number): void };
  /** Basic credentials header for the administrator. */
  adminBasic: string;
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/**
 * The fresh store's data on one connection, so that checks of session state (pg_prepared_statements) read the
 * session the statements ran in: a pool of one on the same PostgreSQL schema (the caller closes it), or the
 * embedded store itself, whose pool has one session.
 */
export async function oneConnection(fresh: { store: Store; schema?: string }): Promise<Store> {
  if (!TEST_DATABASE_URL) return fresh.store;
  return openStore({
    databaseUrl: TEST_DATABASE_URL,
    dataDir: '',
    statementTimeoutMs: 10_000,
    schema: fresh.schema,
    poolSize: 1,
  });
}

/**
 * A fresh store: PostgreSQL schema when PLAYBASE_TEST_DATABASE_URL is set, else a clone of the PGlite template.
 * `statementTimeoutMs` is the statement limit of its pool (PLAYBASE_STATEMENT_TIMEOUT_MS of a test server).
 */
export async function freshStore(statementTimeoutMs = 10_000): Promise<{
  store: Store;
  dataDir: string;
  schema?: string;
  drop(): Promise<void>;
}> {
  if (TEST_DATABASE_URL) {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const store = await openStore({
      databaseUrl: TEST_DATABASE_URL,
      dataDir: '',
      statementTimeoutMs,
      schema,
      poolSize: 10,
    });
    await migrate(store.pool);
    return {
      store,
      dataDir: '',
      schema,
      async drop() {
        const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      },
    };
  }
  await ensureTemplate();
  const dataDir = cloneTemplate();
  const store = await openStore({ dataDir, statementTimeoutMs });
  return {
    store,
    dataDir,
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function startTestServer(
  env: Record<string, string> = {},
  options: Pick<StartOptions, 'extraRegistrars' | 'logger'> = {},
): Promise<TestServer> {
  const fresh = await freshStore(Number(env.PLAYBASE_STATEMENT_TIMEOUT_MS ?? 10_000));
  const settings = loadSettings({
    PORT: '0',
    LOG_LEVEL: process.env.PLAYBASE_TEST_LOG_LEVEL ?? 'silent',
    PLAYBASE_ADMIN_USERNAME: ADMIN.username,
    PLAYBASE_ADMIN_PASSWORD: ADMIN.password,
    PLAYBASE_DATA_DIR: fresh.dataDir || '/nonexistent',
    ...(TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL } : {}),
    // Test servers share one Redis and one administrator name: each gets its own keys, and limits high enough
    // that only the tests of limits (which set their own) meet them.
    PLAYBASE_REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}`,
    PLAYBASE_LIMIT_USER_PER_MINUTE: '1000000',
    PLAYBASE_LIMIT_GAME_PER_MINUTE: '1000000',
    PLAYBASE_LOGIN_FAILURES_PER_ADDRESS: '1000',
    // No Cloud Code timer loop: the tests of timers drive it themselves (test/script/timers.test.ts).
    PLAYBASE_SCRIPT_TIMER_CHECK_MS: '0',
    ...env,
  });
  const now = {
    value: Date.parse('2026-11-22T12:00:00Z'),
    advance(ms: number) {
      now.value += ms;
    },
  };
  const server = await createServer(settings, { ...options, store: fresh.store, clock: () => now.value });
  const close = server.close.bind(server);
  return Object.assign(server, {
    settings,
    now,
    adminBasic: basic(ADMIN.username, ADMIN.password),
    async close() {
      await close();
      await fresh.drop();
    },
  });
}
