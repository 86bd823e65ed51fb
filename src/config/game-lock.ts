// Serializes configuration writes per game: the game's row is locked and its config_version raised in one transaction.
import type pg from 'pg';
import { authErrors } from '../auth/errors.js';
import { withTransaction } from '../store/db.js';
import { lockGameRow, bumpConfigVersion as raiseVersion, selectConfigVersion } from '../store/games.js';
import type { Db } from '../store/scope.js';

export type { Db };

/** Locks the game's row until the transaction ends; 404 when the game does not exist or is in the recycle bin. */
export async function lockGame(client: pg.PoolClient, apiKey: string): Promise<void> {
  if (!(await lockGameRow(client, apiKey))) throw authErrors.gameNotFound(apiKey);
}

/** Raises the configuration version; runtime servers poll it to notice changes. */
export async function bumpConfigVersion(client: pg.PoolClient, apiKey: string): Promise<number> {
  return raiseVersion(client, apiKey);
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
  const version = await selectConfigVersion(db, apiKey);
  if (version === undefined) throw authErrors.gameNotFound(apiKey);
  return version;
}
