// The permission catalogue: hierarchical keys, levels 0 none / 1 read / 2 read and write, scopes, default groups.
// Keys are persisted in groups and JWTs: add keys, never rename them.

export type Level = 0 | 1 | 2;
export type Permissions = Record<string, Level>;

export interface PermissionKey {
  key: string;
  description: string;
}

export const CATALOGUE: PermissionKey[] = [
  {
    key: 'game',
    description: 'The game itself: read its details and endpoints (1); rename, delete, restore (2).',
  },
  { key: 'admin', description: 'Game administration (parent of the admin.* keys).' },
  { key: 'admin.snapshots', description: 'List and read snapshots (1); create, delete, revert, copy (2).' },
  { key: 'admin.publish', description: 'Publish and unpublish snapshots to the Live stage (2).' },
  { key: 'admin.pushNotifications', description: 'Send push notification tests (2).' },
  { key: 'admin.audit', description: 'Read the audit log (1).' },
  {
    key: 'admin.permissions',
    description: 'Read (1) and manage (2) groups and collaborators; transfer ownership is owner-only.',
  },
  { key: 'configurator', description: 'Game configuration (parent of the configurator.* keys).' },
  { key: 'configurator.events', description: 'Events and their attributes.' },
  { key: 'configurator.runningTotals', description: 'Running totals.' },
  { key: 'configurator.leaderboards', description: 'Leaderboards.' },
  {
    key: 'configurator.credentials',
    description: 'Server credentials of the runtime API; reading never shows secrets.',
  },
  { key: 'configurator.indexedTypes', description: 'Data-service types and their indexed fields.' },
  {
    key: 'configurator.pushCredentials',
    description: 'APNs and FCM credentials (stored encrypted, never returned).',
  },
  {
    key: 'configurator.cloudCode',
    description: 'Cloud Code scripts: list, read, export (1); write, delete, import (2).',
  },
  {
    key: 'configurator.config',
    description: 'The whole configuration document: GET /config (1), PUT /config (2).',
  },
  { key: 'manage', description: 'Admin screens (parent of the manage.* keys).' },
  { key: 'manage.screens', description: 'Admin screens.' },
  { key: 'manage.snippets', description: 'Admin snippets.' },
  { key: 'manage.queries', description: 'Admin queries.' },
  {
    key: 'nosql',
    description: 'Runtime data: find, count, aggregate, stats (1); insert, update, remove, save (2).',
  },
  {
    key: 'nosql.admin',
    description: 'Collection administration: indexes, drop, meta and runtime collection creation (2).',
  },
  {
    key: 'nosql.dataExplorer',
    description: 'Data Explorer: the mongo and data exports (1); the mongo and data imports (2).',
  },
  { key: 'nosql.data', description: 'The key-value data service: get and query (1); put and delete (2).' },
  {
    key: 'nosql.players',
    description:
      'Player management: search, read, export (1); edit, ban, unban, reset sessions, erase (2). Audited.',
  },
  {
    key: 'nosql.leaderboards',
    description:
      'Leaderboard management: boards, entries, next reset (1); delete an entry, reset now (2). Audited.',
  },
  {
    key: 'nosql.snippets',
    description:
      "Run admin snippets' Cloud Code on the nosql server (2; a script may write runtime data). Audited.",
  },
];

const KNOWN = new Set(CATALOGUE.map((p) => p.key));
export const ROOT_KEYS = CATALOGUE.filter((p) => !p.key.includes('.')).map((p) => p.key);

export function isKnownKey(key: string): boolean {
  return KNOWN.has(key);
}

/** Scopes of `jwt/{filter}`: the root keys each keeps. */
export const SCOPES: Record<string, string[]> = {
  nosql: ['nosql'],
  config: ['configurator', 'game'],
  admin: ['admin', 'manage', 'game'],
};

/** The level of `key`: its own entry, else its nearest ancestor's, else 0. */
export function levelOf(permissions: Permissions, key: string): Level {
  let k = key;
  for (;;) {
    const level = permissions[k];
    if (level !== undefined) return level;
    const dot = k.lastIndexOf('.');
    if (dot < 0) return 0;
    k = k.slice(0, dot);
  }
}

/** Union of several permission sets: the highest level per key wins, ancestors included. */
export function mergePermissions(sets: Permissions[]): Permissions {
  const keys = new Set(sets.flatMap((s) => Object.keys(s)));
  const merged: Permissions = {};
  for (const key of keys) {
    merged[key] = Math.max(...sets.map((s) => levelOf(s, key))) as Level;
  }
  return merged;
}

export function filterByScope(permissions: Permissions, scope: string): Permissions {
  const roots = SCOPES[scope] ?? [];
  return Object.fromEntries(
    Object.entries(permissions).filter(([key]) => roots.some((r) => key === r || key.startsWith(`${r}.`))),
  );
}

/** The owner holds every permission: every root key at 2. */
export const OWNER_PERMISSIONS: Permissions = Object.fromEntries(ROOT_KEYS.map((k) => [k, 2 as Level]));

/** Groups every new game starts with. */
export const DEFAULT_GROUPS: Record<string, Permissions> = {
  Administrator: { ...OWNER_PERMISSIONS },
  Developer: {
    game: 1,
    configurator: 2,
    manage: 2,
    nosql: 2,
    'nosql.admin': 2,
    'nosql.dataExplorer': 1,
    'nosql.players': 2,
    'nosql.leaderboards': 2,
    admin: 1,
    'admin.snapshots': 2,
    'admin.pushNotifications': 2,
    'admin.permissions': 1,
  },
  DataExplorer: { game: 1, nosql: 1, 'nosql.dataExplorer': 1 },
  ReadOnly: { game: 1, configurator: 1, manage: 1, nosql: 1, admin: 1, 'nosql.dataExplorer': 0 },
};
