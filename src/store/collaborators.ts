// The game_groups and collaborators tables: a game's groups (named permission sets) and the accounts that take
// part in it through them, with the reads of a game's owner that go with them (who may do what, transfer of
// ownership). Every call takes the db, then the game (its api key) written or read; selectGamesOf alone is
// account-level (the games of one account, across games). Validation and errors are the callers'
// (src/auth/collaborators.ts, game-access.ts).
import type { Db } from './scope.js';

export interface GroupRow<P> {
  name: string;
  permissions: P;
}

export interface CollaboratorRow {
  email: string;
  group_names: string[];
}

/** Adds a group; false when the game has one by that name already (left as it is). */
export async function insertGroup<P>(db: Db, apiKey: string, name: string, permissions: P): Promise<boolean> {
  const res = await db.query(
    'INSERT INTO game_groups (api_key, name, permissions) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [apiKey, name, permissions],
  );
  return res.rowCount !== 0;
}

/** The game's groups, by name. */
export async function selectGroups<P>(db: Db, apiKey: string): Promise<GroupRow<P>[]> {
  const { rows } = await db.query<GroupRow<P>>(
    'SELECT name, permissions FROM game_groups WHERE api_key = $1 ORDER BY name',
    [apiKey],
  );
  return rows;
}

export async function selectGroup<P>(db: Db, apiKey: string, name: string): Promise<GroupRow<P> | undefined> {
  const { rows } = await db.query<GroupRow<P>>(
    'SELECT name, permissions FROM game_groups WHERE api_key = $1 AND name = $2',
    [apiKey, name],
  );
  return rows[0];
}

/** Which of `names` are groups of the game. */
export async function selectGroupNames(db: Db, apiKey: string, names: string[]): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'SELECT name FROM game_groups WHERE api_key = $1 AND name = ANY ($2)',
    [apiKey, names],
  );
  return rows.map((r) => r.name);
}

/** False when the game has no group by that name. */
export async function updateGroupPermissions<P>(
  db: Db,
  apiKey: string,
  name: string,
  permissions: P,
): Promise<boolean> {
  const res = await db.query('UPDATE game_groups SET permissions = $3 WHERE api_key = $1 AND name = $2', [
    apiKey,
    name,
    permissions,
  ]);
  return res.rowCount !== 0;
}

export async function deleteGroupRow(db: Db, apiKey: string, name: string): Promise<void> {
  await db.query('DELETE FROM game_groups WHERE api_key = $1 AND name = $2', [apiKey, name]);
}

/** The game's groups as the source game's are now (same names take the source's permissions). */
export async function copyGroups(db: Db, apiKey: string, sourceApiKey: string): Promise<void> {
  await db.query(
    `INSERT INTO game_groups (api_key, name, permissions)
     SELECT $2, name, permissions FROM game_groups WHERE api_key = $1
     ON CONFLICT (api_key, name) DO UPDATE SET permissions = EXCLUDED.permissions`,
    [sourceApiKey, apiKey],
  );
}

/** The game's collaborators, by email. */
export async function selectCollaborators(db: Db, apiKey: string): Promise<CollaboratorRow[]> {
  const { rows } = await db.query<CollaboratorRow>(
    'SELECT email, group_names FROM collaborators WHERE api_key = $1 ORDER BY email',
    [apiKey],
  );
  return rows;
}

export async function selectCollaborator(
  db: Db,
  apiKey: string,
  email: string,
): Promise<CollaboratorRow | undefined> {
  const { rows } = await db.query<CollaboratorRow>(
    'SELECT email, group_names FROM collaborators WHERE api_key = $1 AND email = $2',
    [apiKey, email],
  );
  return rows[0];
}

/** The emails of the game's collaborators in the group, in order. */
export async function selectGroupMembers(db: Db, apiKey: string, group: string): Promise<string[]> {
  const { rows } = await db.query<{ email: string }>(
    'SELECT email FROM collaborators WHERE api_key = $1 AND $2 = ANY (group_names) ORDER BY email',
    [apiKey, group],
  );
  return rows.map((r) => r.email);
}

/** Adds a collaborator; false when the account is one already (left as it is). */
export async function insertCollaborator(
  db: Db,
  apiKey: string,
  email: string,
  groupNames: string[],
): Promise<boolean> {
  const res = await db.query(
    'INSERT INTO collaborators (api_key, email, group_names) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [apiKey, email, groupNames],
  );
  return res.rowCount !== 0;
}

/** Adds the collaborator, or replaces the groups of one that is already there. */
export async function upsertCollaborator(
  db: Db,
  apiKey: string,
  email: string,
  groupNames: string[],
): Promise<void> {
  await db.query(
    `INSERT INTO collaborators (api_key, email, group_names) VALUES ($1, $2, $3)
     ON CONFLICT (api_key, email) DO UPDATE SET group_names = EXCLUDED.group_names`,
    [apiKey, email, groupNames],
  );
}

/** False when the account is not a collaborator of the game. */
export async function updateCollaboratorGroups(
  db: Db,
  apiKey: string,
  email: string,
  groupNames: string[],
): Promise<boolean> {
  const res = await db.query('UPDATE collaborators SET group_names = $3 WHERE api_key = $1 AND email = $2', [
    apiKey,
    email,
    groupNames,
  ]);
  return res.rowCount !== 0;
}

/** False when the account was not a collaborator of the game. */
export async function deleteCollaborator(db: Db, apiKey: string, email: string): Promise<boolean> {
  const res = await db.query('DELETE FROM collaborators WHERE api_key = $1 AND email = $2', [apiKey, email]);
  return res.rowCount !== 0;
}

/**
 * The game's collaborators as the source game's are now: the game's owner never becomes one, and the source's
 * owner joins as an Administrator.
 */
export async function copyCollaborators(db: Db, apiKey: string, sourceApiKey: string): Promise<void> {
  await db.query(
    `INSERT INTO collaborators (api_key, email, group_names)
     SELECT $2, c.email, c.group_names FROM collaborators c
      WHERE c.api_key = $1 AND c.email <> (SELECT owner FROM games WHERE api_key = $2)
     UNION ALL
     SELECT $2, g.owner, ARRAY['Administrator'] FROM games g
      WHERE g.api_key = $1 AND g.owner <> (SELECT owner FROM games WHERE api_key = $2)
     ON CONFLICT (api_key, email) DO UPDATE SET group_names = EXCLUDED.group_names`,
    [sourceApiKey, apiKey],
  );
}

/** The game's owner (in the recycle bin or not), or undefined when there is no such game. */
export async function selectGameOwner(db: Db, apiKey: string): Promise<string | undefined> {
  const { rows } = await db.query<{ owner: string }>('SELECT owner FROM games WHERE api_key = $1', [apiKey]);
  return rows[0]?.owner;
}

/** Makes `to` the owner of the game if `from` owns it; false when `from` does not (any more). */
export async function updateGameOwner(db: Db, apiKey: string, from: string, to: string): Promise<boolean> {
  const moved = await db.query('UPDATE games SET owner = $2 WHERE api_key = $1 AND owner = $3', [
    apiKey,
    to,
    from,
  ]);
  return moved.rowCount !== 0;
}

export interface AccessRow<P> {
  owner: string;
  /** Null when the account is no collaborator of the game. */
  group_names: string[] | null;
  /** The permissions of the collaborator's groups. */
  permissions: P[] | null;
}

/** The account's part in the game; undefined when the game does not exist or is in the recycle bin. */
export async function selectGameAccess<P>(
  db: Db,
  apiKey: string,
  username: string,
): Promise<AccessRow<P> | undefined> {
  const { rows } = await db.query<AccessRow<P>>(
    `SELECT g.owner, c.group_names,
            (SELECT array_agg(gg.permissions) FROM game_groups gg
              WHERE gg.api_key = g.api_key AND gg.name = ANY (c.group_names)) AS permissions
     FROM games g LEFT JOIN collaborators c ON c.api_key = g.api_key AND c.email = $2
     WHERE g.api_key = $1 AND g.deleted_at IS NULL`,
    [apiKey, username],
  );
  return rows[0];
}

export interface GameOfRow {
  api_key: string;
  name: string;
  cluster: string;
  owner: string;
  created_at: Date;
  /** Null where the account owns the game. */
  group_names: string[] | null;
}

/** Account-level: the games (not in the recycle bin) the account owns or collaborates on, oldest first. */
export async function selectGamesOf(db: Db, username: string): Promise<GameOfRow[]> {
  const { rows } = await db.query<GameOfRow>(
    `SELECT g.api_key, g.name, g.cluster, g.owner, g.created_at, c.group_names
     FROM games g LEFT JOIN collaborators c ON c.api_key = g.api_key AND c.email = $1
     WHERE g.deleted_at IS NULL AND (g.owner = $1 OR c.email IS NOT NULL) ORDER BY g.created_at, g.api_key`,
    [username],
  );
  return rows;
}
