// One statement on the store, keeping the connection after an SQL error.
//
// pg.Pool#query destroys its client when the statement fails. On the embedded store every client shares the
// one PGlite connection object, and destroying a client ends that shared connection under the next client:
// the following statements fail ("Connection terminated unexpectedly") or read another statement's rows.
// An SQL error (one with a SQLSTATE) leaves a connection usable, so the client goes back to the pool intact.
//
// On PostgreSQL a SELECT runs as a named prepared statement: the compiled JSONB key expressions take the planner
// far longer than the index lookup takes to run (≈2 ms against ≈0.2 ms measured), and a prepared statement
// lets PostgreSQL keep a generic plan per connection after five runs. Statement texts depend on the query's
// shape, never on its values; the first PREPARED_MAX shapes a process sees are prepared, later ones run unnamed
// (a bound on the memory each connection spends on plans).
import { hash } from 'node:crypto';
import pg from 'pg';
import { preparesStatements } from '../store/db.js';
import type { Db } from './scope.js';

const PREPARED_MAX = 200;
const prepared = new Map<string, string>();

/** The name to prepare `text` under, or undefined to run it unnamed. */
function statementName(db: pg.Pool, text: string, values: unknown[]): string | undefined {
  if (values.length === 0 || !preparesStatements(db) || !/^(?:SELECT|WITH)\b/.test(text)) return undefined;
  let name = prepared.get(text);
  if (name === undefined && prepared.size < PREPARED_MAX) {
    name = `pb_${hash('sha256', text, 'base64url').slice(0, 24)}`;
    prepared.set(text, name);
  }
  return name;
}

function isSqlError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

export async function query<T extends pg.QueryResultRow = Record<string, unknown>>(
  db: Db,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  if (!(db instanceof pg.Pool)) return db.query<T>(text, values);
  const name = statementName(db, text, values);
  const client = await db.connect();
  let failure: Error | undefined;
  try {
    return await (name ? client.query<T>({ name, text, values }) : client.query<T>(text, values));
  } catch (e) {
    if (!isSqlError(e)) failure = e as Error;
    throw e;
  } finally {
    client.release(failure);
  }
}
