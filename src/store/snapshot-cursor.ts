// Reads a large result from one consistent snapshot in bounded memory: a REPEATABLE READ transaction and a cursor.
import type pg from 'pg';

export const SNAPSHOT_BATCH = 1000;

/**
 * Rows of `text` in batches of `batchSize`, all from the snapshot taken at the first statement, so writes that
 * land during a long read are not half seen. The connection is held until the generator finishes or is
 * abandoned (return/throw), and always released: on the embedded store it is the only one.
 */
export async function* readSnapshot<T extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[],
  batchSize = SNAPSHOT_BATCH,
): AsyncGenerator<T[]> {
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new RangeError('batchSize must be >= 1');
  const client = await pool.connect();
  let finished = false;
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`DECLARE snapshot_cursor NO SCROLL CURSOR FOR ${text}`, values);
    for (;;) {
      const { rows } = await client.query<T>(`FETCH ${batchSize} FROM snapshot_cursor`);
      if (rows.length === 0) break;
      yield rows;
    }
    finished = true;
  } finally {
    // A read-only transaction has nothing to keep: COMMIT and ROLLBACK differ only in what they report.
    await client.query(finished ? 'COMMIT' : 'ROLLBACK').catch(() => {
      broken = true;
    });
    client.release(broken);
  }
}
