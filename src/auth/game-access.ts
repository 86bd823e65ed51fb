// Who may do what on a game: the owner holds everything, collaborators hold the union of their groups.
import type pg from 'pg';
import { selectGameAccess } from '../store/collaborators.js';
import { authErrors } from './errors.js';
import { mergePermissions, OWNER_PERMISSIONS, type Permissions } from './permissions.js';

export interface GameAccess {
  apiKey: string;
  owner: boolean;
  groups: string[];
  permissions: Permissions;
}

/** 404 when the game does not exist (or is in the recycle bin), 403 when the user has no part in it. */
export async function resolveGameAccess(
  pool: pg.Pool,
  apiKey: string,
  username: string,
): Promise<GameAccess> {
  const row = await selectGameAccess<Permissions>(pool, apiKey, username);
  if (!row) throw authErrors.gameNotFound(apiKey);
  if (row.owner === username)
    return { apiKey, owner: true, groups: [], permissions: { ...OWNER_PERMISSIONS } };
  if (row.group_names === null) throw authErrors.noGameAccess(apiKey);
  return {
    apiKey,
    owner: false,
    groups: row.group_names,
    permissions: mergePermissions(row.permissions ?? []),
  };
}
