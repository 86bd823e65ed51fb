// A compute thread's statement, run on the event loop's pool: the answer stays text (`doc::text` or not), for
// the thread to parse. The connection handling is the store's own (store/query.ts).
import type pg from 'pg';
import { queryWith } from '../store/query.js';
import type { TextResult } from './protocol.js';

const asText = { getTypeParser: () => (value: string) => value };

export async function runStatement(
  db: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[],
): Promise<TextResult> {
  const result = await queryWith(db, { text, values, rowMode: 'array', types: asText } as pg.QueryConfig);
  return {
    fields: result.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
    rows: result.rows as unknown as Array<Array<string | null>>,
    rowCount: result.rowCount,
  };
}
