// The answers and bodies of the auth role's account, group and collaborator routes, with the OpenAPI examples.
import { Type } from 'typebox';

export const ACCOUNT = {
  username: 'ada@studio.example',
  country: 'FR',
  isAdmin: false,
  disabled: false,
  created: '2026-11-22T12:00:00.000Z',
};
export const AccountOut = Type.Object(
  {
    username: Type.String(),
    country: Type.String(),
    isAdmin: Type.Boolean(),
    disabled: Type.Boolean(),
    created: Type.String(),
  },
  { examples: [ACCOUNT] },
);
export const GROUP = { name: 'Designers', permissions: { configurator: 2, 'admin.snapshots': 1 } };
const Permissions = Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 2 }));
export const GroupOut = Type.Object({ name: Type.String(), permissions: Permissions }, { examples: [GROUP] });
export const GroupBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9 _.-]+$' }),
    permissions: Type.Record(Type.String(), Type.Integer()),
  },
  { additionalProperties: false, examples: [GROUP] },
);
export const COLLABORATOR = { email: 'grace@studio.example', groupNames: ['Designers'] };
export const CollaboratorOut = Type.Object(
  { email: Type.String(), groupNames: Type.Array(Type.String()) },
  { examples: [COLLABORATOR] },
);
export const CollaboratorBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' }),
    groupNames: Type.Array(Type.String(), { maxItems: 64 }),
  },
  { additionalProperties: false, examples: [COLLABORATOR] },
);
const MyGame = Type.Object({
  apiKey: Type.String(),
  name: Type.String(),
  cluster: Type.String(),
  owner: Type.String(),
  created: Type.String(),
  groups: Type.Array(Type.String(), { description: "the caller's groups in the game (none for its owner)" }),
});
/** The caller's games, with the groups the caller has in each (shared with GET /restv2/games). */
export const MyGames = Type.Array(MyGame, {
  examples: [
    [
      {
        apiKey: 'k7Qd2mXp9LwZ4rTb8nYc',
        name: 'Space Miners',
        cluster: 'local',
        owner: 'ada@studio.example',
        created: '2026-11-22T12:00:00.000Z',
        groups: [],
      },
    ],
  ],
});
export const CatalogueOut = Type.Object(
  {
    levels: Type.Record(Type.String(), Type.String()),
    permissions: Type.Array(Type.Object({ key: Type.String(), description: Type.String() })),
    scopes: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  {
    examples: [
      {
        levels: { 0: 'none', 1: 'read', 2: 'read and write' },
        permissions: [
          { key: 'admin.publish', description: 'Publish and unpublish snapshots to the Live stage (2).' },
        ],
        scopes: { nosql: ['nosql'], config: ['configurator', 'game'], admin: ['admin', 'manage', 'game'] },
      },
    ],
  },
);
export const GamePermissionsOut = Type.Object(
  {
    apiKey: Type.String(),
    owner: Type.Boolean(),
    groups: Type.Array(Type.String()),
    permissions: Permissions,
  },
  {
    examples: [
      { apiKey: 'k7Qd2mXp9LwZ4rTb8nYc', owner: false, groups: ['Designers'], permissions: GROUP.permissions },
    ],
  },
);
