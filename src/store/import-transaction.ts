// The transaction one import runs in: one import per game and stage at a time (a transaction-scoped advisory lock,
// so two never wait on each other's rows), a statement timeout for the work after the last batch, and a
// connection whose transaction or settings could not be ended discarded rather than handed to the next request.
import type pg from 'pg';
import type { GameScope } from './scope.js';

/** What an import does inside its transaction: its batches, then the work after the last one. */
export interface ImportSteps<T> {
  write(client: pg.PoolClient): Promise<T>;
  finish(client: pg.PoolClient): Promise<void>;
}

/** The steps' result once committed, or `locked` (nothing written) when another import of the stage runs. */
export type ImportOutcome<T> = { locked: true } | { locked: false; result: T };

export async function importTransaction<T>(
  pool: pg.Pool,
  scope: GameScope,
  finishTimeoutMs: number,
  steps: ImportSteps<T>,
): Promise<ImportOutcome<T>> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
      [`playbase import ${scope.game} ${scope.stage}`],
    );
    if (!rows[0]?.locked) {
      await client.query('ROLLBACK');
      return { locked: true };
    }
    const result = await steps.write(client);
    await client.query(`SET statement_timeout = ${Math.trunc(finishTimeoutMs)}`);
    await steps.finish(client);
    await client.query('COMMIT');
    return { locked: false, result };
  } catch (e) {
    await client.query('ROLLBACK').catch((failure: Error) => {
      broken = failure;
    });
    throw e;
  } finally {
    if (!broken) {
      await client.query('RESET statement_timeout').catch((failure: Error) => {
        broken = failure;
      });
    }
    client.release(broken);
  }
}
