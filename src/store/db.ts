// The store: one pg.Pool over embedded PGlite (data folder) or over PostgreSQL 15+ (DATABASE_URL).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Settings } from '../settings.js';
import { guardPoolClients } from './connection-failures.js';
import { CHANNEL_NAME, listenPostgres } from './listen-postgres.js';
import { lockDataDir } from './lock.js';
import { openPgliteWorker } from './pglite-pool.js';
import { allowCachedPlansOnSharedSession, allowPreparedStatements } from './query.js';
import type { Db } from './scope.js';

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  kind: StoreKind;
  pool: pg.Pool;
  /**
   * Calls onNotify with each payload sent to `channel` (pg_notify) by any process of the database. While the
   * notification connection is down, isLive() is false; onGap is called when it goes down and again when it is
   * back (notifications in between are lost).
   */
  listen(channel: string, onNotify: (payload: string) => void, onGap: () => void): Promise<Subscription>;
  close(): Promise<void>;
}

export interface Subscription {
  isLive(): boolean;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Unset: embedded PGlite in `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  statementTimeoutMs: number;
  /** PostgreSQL only: a schema to work in (tests give each app its own). */
  schema?: string | undefined;
  poolSize?: number;
  /** PostgreSQL only: longest wait for a connection of the pool (default: the statement timeout). */
  connectTimeoutMs?: number | undefined;
  /** PostgreSQL only: application_name of every connection, as pg_stat_activity shows it. */
  applicationName?: string | undefined;
}

/** The store the server's settings name (main.ts opens it early; createServer otherwise). */
export function storeOptionsOf(
  settings: Pick<
    Settings,
    'databaseUrl' | 'dataDir' | 'statementTimeoutMs' | 'databasePoolSize' | 'databaseConnectTimeoutMs'
  >,
  schema?: string,
): StoreOptions {
  return {
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    statementTimeoutMs: settings.statementTimeoutMs,
    poolSize: settings.databasePoolSize,
    connectTimeoutMs: settings.databaseConnectTimeoutMs,
    schema,
  };
}

// Keep int8 and numeric exact: they come back as strings, never as lossy JS numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);

export async function openStore(options: StoreOptions): Promise<Store> {
  return options.databaseUrl ? openPostgres(options, options.databaseUrl) : openPglite(options);
}

async function openPostgres(options: StoreOptions, url: string): Promise<Store> {
  // JIT compiles plans of queries over the JSONB key functions for longer than they run (seconds against
  // milliseconds, measured): the short queries of this server never gain from it.
  const serverOptions = ['-c jit=off', ...(options.schema ? [`-c search_path=${options.schema}`] : [])].join(
    ' ',
  );
  const connectTimeoutMs = options.connectTimeoutMs ?? options.statementTimeoutMs;
  // pg_stat_activity names the connections; a DATABASE_URL's application_name parameter wins (pg reads the URL
  // last), and PGAPPNAME wins over the fallback.
  const connection: pg.ClientConfig = {
    connectionString: url,
    options: serverOptions,
    ...(options.applicationName
      ? { application_name: options.applicationName }
      : { fallback_application_name: 'playbase' }),
    connectionTimeoutMillis: connectTimeoutMs,
  };
  const pool = new pg.Pool({
    ...connection,
    max: options.poolSize ?? 10,
    statement_timeout: options.statementTimeoutMs,
  });
  // No lost connection may end the process, whether its client is idle in the pool or checked out.
  guardPoolClients(pool);
  // Each connection is one session of its own: statements whose plan has no choice run prepared (query.ts).
  allowPreparedStatements(pool);
  if (options.schema) {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(options.schema))
      throw new Error(`Invalid schema name ${options.schema}`);
    // Concurrent CREATE SCHEMA IF NOT EXISTS can still collide on the catalog's unique index.
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema}`).catch((e: { code?: string }) => {
      if (e.code !== '23505' && e.code !== '42P06') throw e;
    });
  }
  return {
    kind: 'postgres',
    pool,
    listen: (channel, onNotify, onGap) => listenPostgres(connection, channel, onNotify, onGap),
    close: () => pool.end(),
  };
}

async function openPglite(options: StoreOptions): Promise<Store> {
  mkdirSync(options.dataDir, { recursive: true });
  const release = lockDataDir(options.dataDir);
  try {
    // PGlite runs in a worker thread: a long statement cannot stall this one, and the statement limit ends
    // and reopens the worker (PGlite cannot cancel a statement itself).
    const embedded = openPgliteWorker(join(options.dataDir, 'pgdata'), options.statementTimeoutMs);
    allowCachedPlansOnSharedSession(embedded.pool);
    try {
      await embedded.pool.query('SELECT 1');
    } catch (e) {
      await embedded.close();
      throw e;
    }
    return {
      kind: 'pglite',
      pool: embedded.pool,
      async listen(channel, onNotify, onGap) {
        if (!CHANNEL_NAME.test(channel)) throw new Error(`Invalid channel name ${channel}`);
        // One process owns the data folder: the notifications come from the worker's one session.
        return embedded.listen(channel, { onNotify, onGap });
      },
      async close() {
        await embedded.close();
        release();
      },
    };
  } catch (e) {
    release();
    throw e;
  }
}

/** Resolves once the store answers a trivial statement (the readiness check); rejects with its failure. */
export async function ping(pool: pg.Pool): Promise<void> {
  await pool.query('SELECT 1');
}

/**
 * Runs `fn` in a transaction on one client; rolls back on any throw. `begin` may ask for another isolation. A
 * connection lost meanwhile rejects the statement in flight; the pool's guard (guardPoolClients) takes the
 * client's 'error' event, and pg-pool destroys the client on release.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (client: pg.PoolClient) => Promise<T>,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** The schema the connection works in (search_path): the one the store's tables and their triggers are in. */
export async function currentSchema(db: Db): Promise<string | undefined> {
  const { rows } = await db.query<{ s: string }>('SELECT current_schema() AS s');
  return rows[0]?.s;
}

/**
 * Runs `fn` under a savepoint of the caller's transaction on `client`: a throw rolls back to it (leaving the
 * transaction usable) and is rethrown. `name` is a fixed identifier of the caller's, never user input.
 */
export async function withSavepoint<T>(
  client: pg.PoolClient,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  // A savepoint's name is an identifier (no bind parameter): only a plain one reaches the statement.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`Invalid savepoint name ${name}`);
  await client.query(`SAVEPOINT ${name}`);
  try {
    const result = await fn();
    await client.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (e) {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
    throw e;
  }
}
