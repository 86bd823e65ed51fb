// Groups and collaborators of a game, and transfer of ownership.
import type pg from 'pg';
import { accountExists } from '../store/accounts.js';
import * as store from '../store/collaborators.js';
import { withTransaction } from '../store/db.js';
import type { Db } from '../store/scope.js';
import { normalizeUsername } from './accounts.js';
import type { AuthAudit } from './auth-audit.js';
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

export async function createDefaultGroups(client: Db, apiKey: string): Promise<void> {
  for (const [name, permissions] of Object.entries(DEFAULT_GROUPS)) {
    await store.insertGroup(client, apiKey, name, permissions);
  }
}

export async function listGroups(pool: pg.Pool, apiKey: string): Promise<Group[]> {
  return store.selectGroups<Permissions>(pool, apiKey);
}

export async function getGroup(db: Db, apiKey: string, name: string): Promise<Group> {
  const group = await store.selectGroup<Permissions>(db, apiKey, name);
  if (!group) throw authErrors.groupNotFound(name);
  return group;
}

/**
 * Each write below runs in one transaction with its audit entry (`audit`, auth-audit.ts): the entry commits or
 * rolls back with the write.
 */
export async function createGroup(
  pool: pg.Pool,
  apiKey: string,
  group: Group,
  audit?: AuthAudit,
): Promise<Group> {
  const permissions = validatePermissions(group.permissions);
  return withTransaction(pool, async (client) => {
    if (!(await store.insertGroup(client, apiKey, group.name, permissions)))
      throw authErrors.groupExists(group.name);
    await audit?.(client);
    return { name: group.name, permissions };
  });
}

export async function updateGroup(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  permissions: Record<string, unknown>,
  audit?: AuthAudit,
): Promise<Group> {
  const valid = validatePermissions(permissions);
  return withTransaction(pool, async (client) => {
    if (!(await store.updateGroupPermissions(client, apiKey, name, valid)))
      throw authErrors.groupNotFound(name);
    await audit?.(client);
    return { name, permissions: valid };
  });
}

export async function deleteGroup(
  pool: pg.Pool,
  apiKey: string,
  name: string,
  audit?: AuthAudit,
): Promise<void> {
  await getGroup(pool, apiKey, name);
  const members = await store.selectGroupMembers(pool, apiKey, name);
  if (members.length > 0) throw authErrors.groupInUse(name, members);
  await withTransaction(pool, async (client) => {
    await store.deleteGroupRow(client, apiKey, name);
    await audit?.(client);
  });
}

async function checkGroupsExist(db: Db, apiKey: string, names: string[]): Promise<void> {
  const found = new Set(await store.selectGroupNames(db, apiKey, names));
  const missing = names.find((n) => !found.has(n));
  if (missing !== undefined) throw authErrors.groupNotFound(missing);
}

const toCollaborator = (r: store.CollaboratorRow): Collaborator => ({
  email: r.email,
  groupNames: r.group_names,
});

export async function listCollaborators(pool: pg.Pool, apiKey: string): Promise<Collaborator[]> {
  return (await store.selectCollaborators(pool, apiKey)).map(toCollaborator);
}

export async function getCollaborator(pool: pg.Pool, apiKey: string, email: string): Promise<Collaborator> {
  const row = await store.selectCollaborator(pool, apiKey, normalizeUsername(email));
  if (!row) throw authErrors.collaboratorNotFound(email);
  return toCollaborator(row);
}

export async function addCollaborator(
  pool: pg.Pool,
  apiKey: string,
  c: Collaborator,
  audit?: AuthAudit,
): Promise<Collaborator> {
  const email = normalizeUsername(c.email);
  if (email === (await store.selectGameOwner(pool, apiKey))) throw authErrors.ownerIsNotCollaborator();
  const groupNames = [...new Set(c.groupNames)];
  await checkGroupsExist(pool, apiKey, groupNames);
  if (!(await accountExists(pool, email))) throw authErrors.accountNotFound(email);
  return withTransaction(pool, async (client) => {
    if (!(await store.insertCollaborator(client, apiKey, email, groupNames)))
      throw authErrors.collaboratorExists(email);
    await audit?.(client);
    return { email, groupNames };
  });
}

export async function updateCollaborator(
  pool: pg.Pool,
  apiKey: string,
  email: string,
  groupNames: string[],
  audit?: AuthAudit,
): Promise<Collaborator> {
  const unique = [...new Set(groupNames)];
  await checkGroupsExist(pool, apiKey, unique);
  return withTransaction(pool, async (client) => {
    if (!(await store.updateCollaboratorGroups(client, apiKey, normalizeUsername(email), unique)))
      throw authErrors.collaboratorNotFound(email);
    await audit?.(client);
    return { email: normalizeUsername(email), groupNames: unique };
  });
}

export async function removeCollaborator(
  pool: pg.Pool,
  apiKey: string,
  email: string,
  audit?: AuthAudit,
): Promise<void> {
  await withTransaction(pool, async (client) => {
    if (!(await store.deleteCollaborator(client, apiKey, normalizeUsername(email))))
      throw authErrors.collaboratorNotFound(email);
    await audit?.(client);
  });
}

/** The new owner stops being a collaborator; the old owner becomes an Administrator collaborator. */
export async function transferOwnership(
  pool: pg.Pool,
  apiKey: string,
  from: string,
  to: string,
  audit?: AuthAudit,
): Promise<void> {
  const target = normalizeUsername(to);
  if (!(await accountExists(pool, target, true))) throw authErrors.accountNotFound(target);
  await withTransaction(pool, async (client) => {
    // The store says who owns the game: a JWT's owner claim may predate the last transfer.
    if (!(await store.updateGameOwner(client, apiKey, from, target))) throw authErrors.forbidden('owner', 2);
    await audit?.(client);
    // To oneself: nothing to do, and the owner must not become a collaborator of their own game.
    if (target === from) return;
    await store.deleteCollaborator(client, apiKey, target);
    await createDefaultGroups(client, apiKey);
    await store.upsertCollaborator(client, apiKey, from, ['Administrator']);
  });
}

export async function listGamesOf(
  pool: pg.Pool,
  username: string,
): Promise<
  { apiKey: string; name: string; cluster: string; owner: string; created: string; groups: string[] }[]
> {
  const rows = await store.selectGamesOf(pool, username);
  return rows.map((r) => ({
    apiKey: r.api_key,
    name: r.name,
    cluster: r.cluster,
    owner: r.owner,
    created: r.created_at.toISOString(),
    groups: r.group_names ?? [],
  }));
}
