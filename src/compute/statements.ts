// A compute thread's statement, run on the event loop's pool: the answer stays text (`doc::text` or not), for
// the thread to parse. Like nosql/sql.ts, a failed statement gives its connection back intact unless the
// connection itself was lost.
import pg from 'pg';
import { isConnectionFailure } from '../store/connection-failures.js';
import type { TextResult } from './protocol.js';

const asText = { getTypeParser: () => (value: string) => value };

function isSqlError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

async function onClient(
  client: pg.PoolClient | pg.Pool,
  text: string,
  values: unknown[],
): Promise<TextResult> {
  const result = await client.query<unknown[]>({ text, values, rowMode: 'array', types: asText });
  return {
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rows: result.rows as Array<Array<string | null>>,
    rowCount: result.rowCount,
  };
}

export async function runStatement(
  db: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[],
): Promise<TextResult> {
  if (!(db instanceof pg.Pool)) return onClient(db, text, values);
  const client = await db.connect();
  let failure: Error | undefined;
  try {
    return await onClient(client, text, values);
  } catch (e) {
    if (!isSqlError(e) || isConnectionFailure(e)) failure = e as Error;
    throw e;
  } finally {
    client.release(failure);
  }
}
