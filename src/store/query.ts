// One statement on the store, keeping the connection after an SQL error.
//
// pg.Pool#query destroys its client when the statement fails. On the embedded store every client shares the
// one PGlite connection object, and destroying a client ends that shared connection under the next client:
// the following statements fail ("Connection terminated unexpectedly") or read another statement's rows.
// An SQL error (one with a SQLSTATE) leaves a connection usable, so the client goes back to the pool intact.
import pg from 'pg';
import { isConnectionFailure } from './connection-failures.js';
import type { Db } from './scope.js';

function isSqlError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

export function query<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  // (text, values) as given: a compute thread's stand-in for the pool (compute/remote-db.ts) takes only these.
  if (!(db instanceof pg.Pool)) return db.query<T>(text, values);
  return onPoolClient(db, (client) => client.query<T>(text, values));
}

/** The same, with pg's whole statement config (row mode, type parsers): a compute thread's text answers. */
export function queryWith<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  config: pg.QueryConfig,
): Promise<pg.QueryResult<T>> {
  if (!(db instanceof pg.Pool)) return db.query<T>(config);
  return onPoolClient(db, (client) => client.query<T>(config));
}

async function onPoolClient<R>(pool: pg.Pool, run: (client: pg.PoolClient) => Promise<R>): Promise<R> {
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    return await run(client);
  } catch (e) {
    // 57P01 and its kin carry a SQLSTATE but leave no connection behind: that client is destroyed too.
    if (!isSqlError(e) || isConnectionFailure(e)) failure = e as Error;
    throw e;
  } finally {
    client.release(failure);
  }
}
