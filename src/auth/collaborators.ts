// Groups and collaborators of a game, and transfer of ownership.
import type pg from 'pg';
import { withTransaction } from '../store/db.js';
import { normalizeUsername } from './accounts.js';
import { authErrors } from './errors.js';
import { DEFAULT_GROUPS, isKnownKey, type Permissions } from './permissions.js';

export interface Group {
  name: string;
  permissions: Permissions;
}

export interface Collaborator {
  email: string;
  groupNames: string[];
}

function validatePermissions(permissions: Record<string, unknown>): Permissions {
  for (const [key, level] of Object.entries(permissions)) {
    if (!isKnownKey(key) || (level !== 0 && level !== 1 && level !== 2))
      throw authErrors.unknownPermission(`${key}=${String(level)}`);
  }
  return permissions as Permissions;
}

export async function createDefaultGroups(client: pg.PoolClient | pg.Pool, apiKey: string): Promise<void> {
  for (const [name, permissions] of Object.entries(DEFAULT_GROUPS)) {
    await client.query(
      'INSERT INTO game_groups (api_key, name, permissions) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [apiKey, name, permissions],
    );
  }
}

export async function listGroups(pool: pg.Pool, apiKey: string): Promise<Group[]> {
  const { rows } = await pool.query<Group>(
    'SELECT name, permissions FROM game_groups WHERE api_key = $1 ORDER BY name',
    [apiKey],
  );
  return rows;
}

export async function getGroup(pool: pg.Pool, apiKey: string, name: string): Promise<Group> {
  const { rows } = await pool.query<Group>(
    'SELECT name, permissions FROM game_groups WHERE api_key = $1 AND name = $2',
    [apiKey, name],
  );
  if (!rows[0]) throw authErrors.groupNotFound(name);
  return rows[0];
}

export async function createGroup(pool: pg.Pool, apiKey: string, group: Group): Promise<Group> {
  const permissions = validatePermissions(group.permissions);
  const res = await pool.query(
    'INSERT INTO game_groups (api_key, name, permissions) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [apiKey, group.name, permissions],
  );
  if (res.rowCount === 0) throw authErrors.groupExists(group.name);
  return { name: group.name, permissions };
}

export async function updateGroup(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  permissions: Record<string, unknown>,
): Promise<Group> {
  const valid = validatePermissions(permissions);
  const res = await pool.query('UPDATE game_groups SET permissions = $3 WHERE api_key = $1 AND name = $2', [
    apiKey,
    name,
    valid,
  ]);
  if (res.rowCount === 0) throw authErrors.groupNotFound(name);
  return { name, permissions: valid };
}

export async function deleteGroup(pool: pg.Pool, apiKey: string, name: string): Promise<void> {
  await getGroup(pool, apiKey, name);
  const { rows } = await pool.query<{ email: string }>(
    'SELECT email FROM collaborators WHERE api_key = $1 AND $2 = ANY (group_names) ORDER BY email',
    [apiKey, name],
  );
  if (rows.length > 0)
    throw authErrors.groupInUse(
      name,
      rows.map((r) => r.email),
    );
  await pool.query('DELETE FROM game_groups WHERE api_key = $1 AND name = $2', [apiKey, name]);
}

async function checkGroupsExist(
  pool: pg.Pool | pg.PoolClient,
  apiKey: string,
  names: string[],
): Promise<void> {
  const { rows } = await pool.query<{ name: string }>(
    'SELECT name FROM game_groups WHERE api_key = $1 AND name = ANY ($2)',
    [apiKey, names],
  );
  const found = new Set(rows.map((r) => r.name));
  const missing = names.find((n) => !found.has(n));
  if (missing !== undefined) throw authErrors.groupNotFound(missing);
}

export async function listCollaborators(pool: pg.Pool, apiKey: string): Promise<Collaborator[]> {
  const { rows } = await pool.query<{ email: string; group_names: string[] }>(
    'SELECT email, group_names FROM collaborators WHERE api_key = $1 ORDER BY email',
    [apiKey],
  );
  return rows.map((r) => ({ email: r.email, groupNames: r.group_names }));
}

export async function getCollaborator(pool: pg.Pool, apiKey: string, email: string): Promise<Collaborator> {
  const { rows } = await pool.query<{ email: string; group_names: string[] }>(
    'SELECT email, group_names FROM collaborators WHERE api_key = $1 AND email = $2',
    [apiKey, normalizeUsername(email)],
  );
  if (!rows[0]) throw authErrors.collaboratorNotFound(email);
  return { email: rows[0].email, groupNames: rows[0].group_names };
}

export async function addCollaborator(pool: pg.Pool, apiKey: string, c: Collaborator): Promise<Collaborator> {
  const email = normalizeUsername(c.email);
  const { rows: owners } = await pool.query<{ owner: string }>('SELECT owner FROM games WHERE api_key = $1', [
    apiKey,
  ]);
  if (email === owners[0]?.owner) throw authErrors.ownerIsNotCollaborator();
  const groupNames = [...new Set(c.groupNames)];
  await checkGroupsExist(pool, apiKey, groupNames);
  const { rows } = await pool.query('SELECT 1 FROM accounts WHERE username = $1', [email]);
  if (rows.length === 0) throw authErrors.accountNotFound(email);
  const res = await pool.query(
    'INSERT INTO collaborators (api_key, email, group_names) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
    [apiKey, email, groupNames],
  );
  if (res.rowCount === 0) throw authErrors.collaboratorExists(email);
  return { email, groupNames };
}

export async function updateCollaborator(
  pool: pg.Pool,
  apiKey: string,
  email: string,
  groupNames: string[],
): Promise<Collaborator> {
  const unique = [...new Set(groupNames)];
  await checkGroupsExist(pool, apiKey, unique);
  const res = await pool.query(
    'UPDATE collaborators SET group_names = $3 WHERE api_key = $1 AND email = $2',
    [apiKey, normalizeUsername(email), unique],
  );
  if (res.rowCount === 0) throw authErrors.collaboratorNotFound(email);
  return { email: normalizeUsername(email), groupNames: unique };
}

export async function removeCollaborator(pool: pg.Pool, apiKey: string, email: string): Promise<void> {
  const res = await pool.query('DELETE FROM collaborators WHERE api_key = $1 AND email = $2', [
    apiKey,
    normalizeUsername(email),
  ]);
  if (res.rowCount === 0) throw authErrors.collaboratorNotFound(email);
}

/** The new owner stops being a collaborator; the old owner becomes an Administrator collaborator. */
export async function transferOwnership(
  pool: pg.Pool,
  apiKey: string,
  from: string,
  to: string,
): Promise<void> {
  const target = normalizeUsername(to);
  const { rows } = await pool.query('SELECT 1 FROM accounts WHERE username = $1 AND NOT disabled', [target]);
  if (rows.length === 0) throw authErrors.accountNotFound(target);
  await withTransaction(pool, async (client) => {
    // The store says who owns the game: a JWT's owner claim may predate the last transfer.
    const moved = await client.query('UPDATE games SET owner = $2 WHERE api_key = $1 AND owner = $3', [
      apiKey,
      target,
      from,
    ]);
    if (moved.rowCount === 0) throw authErrors.forbidden('owner', 2);
    // To oneself: nothing to do, and the owner must not become a collaborator of their own game.
    if (target === from) return;
    await client.query('DELETE FROM collaborators WHERE api_key = $1 AND email = $2', [apiKey, target]);
    await createDefaultGroups(client, apiKey);
    await client.query(
      `INSERT INTO collaborators (api_key, email, group_names) VALUES ($1, $2, ARRAY['Administrator'])
       ON CONFLICT (api_key, email) DO UPDATE SET group_names = ARRAY['Administrator']`,
      [apiKey, from],
    );
  });
}

export async function listGamesOf(
  pool: pg.Pool,
  username: string,
): Promise<
  { apiKey: string; name: string; cluster: string; owner: string; created: string; groups: string[] }[]
> {
  const { rows } = await pool.query<{
    api_key: string;
    name: string;
    cluster: string;
    owner: string;
    created_at: Date;
    group_names: string[] | null;
  }>(
    `SELECT g.api_key, g.name, g.cluster, g.owner, g.created_at, c.group_names
     FROM games g LEFT JOIN collaborators c ON c.api_key = g.api_key AND c.email = $1
     WHERE g.deleted_at IS NULL AND (g.owner = $1 OR c.email IS NOT NULL) ORDER BY g.created_at, g.api_key`,
    [username],
  );
  return rows.map((r) => ({
    apiKey: r.api_key,
    name: r.name,
    cluster: r.cluster,
    owner: r.owner,
    created: r.created_at.toISOString(),
    groups: r.group_names ?? [],
  }));
}
