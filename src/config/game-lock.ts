// Serializes configuration writes per game: the game's row is locked and its config_version raised in one transaction.
import type pg from 'pg';
import { authErrors } from '../auth/errors.js';
import { withTransaction } from '../store/db.js';

import type { Db } from '../store/scope.js';

export type { Db };

/** Locks the game's row until the transaction ends; 404 when the game does not exist or is in the recycle bin. */
export async function lockGame(client: pg.PoolClient, apiKey: string): Promise<void> {
  const { rowCount } = await client.query(
    'SELECT 1 FROM games WHERE api_key = $1 AND deleted_at IS NULL FOR UPDATE',
    [apiKey],
  );
  if (!rowCount) throw authErrors.gameNotFound(apiKey);
}

/** Raises the configuration version; runtime servers poll it to notice changes. */
export async function bumpConfigVersion(client: pg.PoolClient, apiKey: string): Promise<number> {
  const { rows } = await client.query<{ config_version: string }>(
    'UPDATE games SET config_version = config_version + 1 WHERE api_key = $1 RETURNING config_version',
    [apiKey],
  );
  return Number(rows[0]?.config_version ?? 0);
}

/**
 * Runs a change on the write's client with its audit entry: the configuration read before and after it and the
 * entry written on the same client (config-audit.ts), so the entry commits or rolls back with the change.
 */
export type AuditWrap = <T>(client: pg.PoolClient, apiKey: string, change: () => Promise<T>) => Promise<T>;

/**
 * Runs one configuration change atomically: lock the game, change (audited when `audit` is given), raise the
 * version, commit. Concurrent writers to one game wait for each other, so no acknowledged change is lost, and
 * each audit entry's before and after are those of its own change.
 */
export async function changeGame<T>(
  pool: pg.Pool,
  apiKey: string,
  change: (client: pg.PoolClient) => Promise<T>,
  audit?: AuditWrap,
): Promise<T> {
  return withTransaction(pool, async (client) => {
    await lockGame(client, apiKey);
    const result = audit ? await audit(client, apiKey, () => change(client)) : await change(client);
    await bumpConfigVersion(client, apiKey);
    return result;
  });
}

/** The game's configuration version; 404 when the game does not exist or is in the recycle bin. */
export async function getConfigVersion(db: Db, apiKey: string): Promise<number> {
  const { rows } = await db.query<{ config_version: string }>(
    'SELECT config_version FROM games WHERE api_key = $1 AND deleted_at IS NULL',
    [apiKey],
  );
  if (!rows[0]) throw authErrors.gameNotFound(apiKey);
  return Number(rows[0].config_version);
}
