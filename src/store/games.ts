// The games table: one row per game (its name, cluster and owner), the recycle bin's deleted_at, and the
// configuration version that runtime servers poll. Every call takes the game's API key first (games have no stage).
import type pg from 'pg';
import type { Db } from './scope.js';

export interface GameRow {
  api_key: string;
  name: string;
  cluster: string;
  owner: string;
  created_at: Date;
  deleted_at: Date | null;
}

export interface NewGame {
  name: string;
  cluster: string;
  owner: string;
  createdAt: Date;
}

export async function insertGame(db: Db, apiKey: string, game: NewGame): Promise<GameRow> {
  const { rows } = await db.query<GameRow>(
    'INSERT INTO games (api_key, name, cluster, owner, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [apiKey, game.name, game.cluster, game.owner, game.createdAt],
  );
  return rows[0] as GameRow;
}

/** Renames a game that is not in the recycle bin: its new row, or undefined when there is none. */
export async function renameGameRow(db: Db, apiKey: string, name: string): Promise<GameRow | undefined> {
  const { rows } = await db.query<GameRow>(
    'UPDATE games SET name = $2 WHERE api_key = $1 AND deleted_at IS NULL RETURNING *',
    [apiKey, name],
  );
  return rows[0];
}

/** The game, unless it does not exist or is in the recycle bin. */
export async function selectGame(db: Db, apiKey: string): Promise<GameRow | undefined> {
  const { rows } = await db.query<GameRow>('SELECT * FROM games WHERE api_key = $1 AND deleted_at IS NULL', [
    apiKey,
  ]);
  return rows[0];
}

/** The game's name and cluster, in the recycle bin or not. */
export async function selectNameAndCluster(
  db: Db,
  apiKey: string,
): Promise<{ name: string; cluster: string } | undefined> {
  const { rows } = await db.query<{ name: string; cluster: string }>(
    'SELECT name, cluster FROM games WHERE api_key = $1',
    [apiKey],
  );
  return rows[0];
}

/** Moves the game to the recycle bin; false when it does not exist or is there already. */
export async function markDeleted(db: Db, apiKey: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE games SET deleted_at = $2 WHERE api_key = $1 AND deleted_at IS NULL',
    [apiKey, at],
  );
  return Boolean(rowCount);
}

/** Brings the owner's game back from the recycle bin; undefined when it is not there (or not theirs). */
export async function markRestored(db: Db, apiKey: string, owner: string): Promise<GameRow | undefined> {
  const { rows } = await db.query<GameRow>(
    'UPDATE games SET deleted_at = NULL WHERE api_key = $1 AND owner = $2 AND deleted_at IS NOT NULL RETURNING *',
    [apiKey, owner],
  );
  return rows[0];
}

/** The owner's games in the recycle bin, oldest deletion first (not scoped to one game: a listing by owner). */
export async function selectDeletedGames(db: Db, owner: string): Promise<GameRow[]> {
  const { rows } = await db.query<GameRow>(
    'SELECT * FROM games WHERE owner = $1 AND deleted_at IS NOT NULL ORDER BY deleted_at',
    [owner],
  );
  return rows;
}

/** Removes for good every game deleted at or before `before` (their groups and collaborators cascade). */
export async function purgeDeletedGames(db: Db, before: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM games WHERE deleted_at IS NOT NULL AND deleted_at <= $1', [
    before,
  ]);
  return rowCount ?? 0;
}

/**
 * Locks the game's row until the transaction ends (configuration, snapshot and publish writers all take it);
 * false when the game does not exist or is in the recycle bin.
 */
export async function lockGameRow(client: pg.PoolClient, apiKey: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'SELECT 1 FROM games WHERE api_key = $1 AND deleted_at IS NULL FOR UPDATE',
    [apiKey],
  );
  return Boolean(rowCount);
}

/** Raises the configuration version and answers the new one; runtime servers poll it to notice changes. */
export async function bumpConfigVersion(db: Db, apiKey: string): Promise<number> {
  const { rows } = await db.query<{ config_version: string }>(
    'UPDATE games SET config_version = config_version + 1 WHERE api_key = $1 RETURNING config_version',
    [apiKey],
  );
  return Number(rows[0]?.config_version ?? 0);
}

/** The configuration version; undefined when the game does not exist or is in the recycle bin. */
export async function selectConfigVersion(db: Db, apiKey: string): Promise<number | undefined> {
  const { rows } = await db.query<{ config_version: string }>(
    'SELECT config_version FROM games WHERE api_key = $1 AND deleted_at IS NULL',
    [apiKey],
  );
  return rows[0] ? Number(rows[0].config_version) : undefined;
}
