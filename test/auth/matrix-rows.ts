// The matrix rows of the auth role and of the games routes; other roles keep their own tables beside their tests.
import type { MatrixFixture, MatrixRow } from './matrix.js';

const admin = { admin: true } as const;
const user = { user: true } as const;
const basicOrToken: MatrixRow['credentials'] = ['basic', 'token'];
const G = '/restv2/auth/game/{apiKey}';

/** A collaborator the owner adds now, so that the success case has one to change or remove. */
async function freshCollaborator(fx: MatrixFixture): Promise<string> {
  const account = await fx.newAccount('collab');
  await fx.as(fx.owner, 'POST', `${G.replace('{apiKey}', fx.game)}/collaborators`, {
    email: account.username,
    groupNames: ['ReadOnly'],
  });
  return account.username;
}

async function freshGroup(fx: MatrixFixture): Promise<string> {
  const name = fx.unique('group');
  await fx.as(fx.owner, 'POST', `${G.replace('{apiKey}', fx.game)}/groups`, {
    name,
    permissions: { nosql: 1 },
  });
  return name;
}

export const AUTH_ROWS: MatrixRow[] = [
  { method: 'GET', path: '/restv2/auth/user', need: user, credentials: ['basic'], ok: 200 },
  {
    method: 'DELETE',
    path: '/restv2/auth/user',
    need: user,
    credentials: ['token'],
    ok: 200,
    // Logging out revokes the token: each success case logs out a session of its own.
    prepare: async (fx) => {
      const res = await fx.inject('GET', '/restv2/auth/user', await fx.credential('basic', fx.member));
      return { headers: { 'x-svcaccesstoken': res.json()['X-SVCAccessToken'] } };
    },
  },
  { method: 'GET', path: '/restv2/auth/user/token', need: user, credentials: ['token'], ok: 200 },
  {
    method: 'DELETE',
    path: '/restv2/auth/user/sessions',
    need: user,
    credentials: basicOrToken,
    ok: 200,
    // Logging out everywhere ends every session of the account: each success case uses an account of its own.
    prepare: async (fx, kind) => ({ headers: await fx.credential(kind, await fx.newAccount('everywhere')) }),
  },
  {
    method: 'PUT',
    path: '/restv2/auth/user/password',
    need: user,
    credentials: basicOrToken,
    ok: 200,
    body: { password: 'another-password-1' },
    // Changing a password ends the account's other sessions: each success case uses an account of its own.
    prepare: async (fx, kind) => {
      const account = await fx.newAccount('pw');
      return {
        headers: await fx.credential(kind, account),
        body: { oldPassword: account.password, password: 'another-password-1' },
      };
    },
  },
  {
    method: 'GET',
    path: `${G}/jwt`,
    // Declared "any user"; the handler then requires a part in the game (owner or collaborator, any level).
    need: { permission: ['game', 0] },
    credentials: basicOrToken,
    ok: 200,
  },
  {
    method: 'GET',
    path: `${G}/jwt/{filter}`,
    need: { permission: ['game', 0] },
    credentials: basicOrToken,
    ok: 200,
    params: { filter: 'nosql' },
  },
  { method: 'GET', path: '/restv2/auth/.well-known/jwks.json', need: { public: true }, ok: 200 },
  { method: 'GET', path: '/restv2/auth/permissions', need: { public: true }, ok: 200 },
  { method: 'POST', path: '/restv2/auth/keys/rotate', need: admin, credentials: basicOrToken, ok: 200 },
  {
    method: 'POST',
    path: '/restv2/auth/users',
    need: admin,
    credentials: basicOrToken,
    ok: 201,
    prepare: async (fx) => ({
      body: { username: `${fx.unique('new')}@matrix.test`, password: 'new-password-1', country: 'DE' },
    }),
  },
  { method: 'GET', path: '/restv2/auth/users', need: admin, credentials: basicOrToken, ok: 200 },
  {
    method: 'GET',
    path: '/restv2/auth/users/{username}',
    need: admin,
    credentials: basicOrToken,
    ok: 200,
    prepare: async (fx) => ({ params: { username: fx.member.username } }),
  },
  {
    method: 'PUT',
    path: '/restv2/auth/users/{username}',
    need: admin,
    credentials: basicOrToken,
    ok: 200,
    prepare: async (fx) => ({
      params: { username: (await fx.newAccount('disable')).username },
      body: { disabled: true },
    }),
  },
  { method: 'GET', path: '/restv2/auth/games', need: user, credentials: basicOrToken, ok: 200 },
  { method: 'GET', path: `${G}/permissions`, need: { permission: ['game', 0] }, ok: 200 },
  { method: 'GET', path: `${G}/groups`, need: { permission: ['admin.permissions', 1] }, ok: 200 },
  {
    method: 'POST',
    path: `${G}/groups`,
    need: { permission: ['admin.permissions', 2] },
    ok: 201,
    prepare: async (fx) => ({ body: { name: fx.unique('group'), permissions: { nosql: 1 } } }),
  },
  {
    method: 'GET',
    path: `${G}/groups/{name}`,
    need: { permission: ['admin.permissions', 1] },
    ok: 200,
    params: { name: 'Administrator' },
  },
  {
    method: 'PUT',
    path: `${G}/groups/{name}`,
    need: { permission: ['admin.permissions', 2] },
    ok: 200,
    prepare: async (fx) => ({ params: { name: await freshGroup(fx) }, body: { permissions: { nosql: 2 } } }),
  },
  {
    method: 'DELETE',
    path: `${G}/groups/{name}`,
    need: { permission: ['admin.permissions', 2] },
    ok: 200,
    prepare: async (fx) => ({ params: { name: await freshGroup(fx) } }),
  },
  { method: 'GET', path: `${G}/collaborators`, need: { permission: ['admin.permissions', 1] }, ok: 200 },
  {
    method: 'POST',
    path: `${G}/collaborators`,
    need: { permission: ['admin.permissions', 2] },
    ok: 201,
    prepare: async (fx) => ({
      body: { email: (await fx.newAccount('collab')).username, groupNames: ['DataExplorer'] },
    }),
  },
  {
    method: 'GET',
    path: `${G}/collaborators/{email}`,
    need: { permission: ['admin.permissions', 1] },
    ok: 200,
    prepare: async (fx) => ({ params: { email: fx.member.username } }),
  },
  {
    method: 'PUT',
    path: `${G}/collaborators/{email}`,
    need: { permission: ['admin.permissions', 2] },
    ok: 200,
    prepare: async (fx) => ({
      params: { email: await freshCollaborator(fx) },
      body: { groupNames: ['Developer'] },
    }),
  },
  {
    method: 'DELETE',
    path: `${G}/collaborators/{email}`,
    need: { permission: ['admin.permissions', 2] },
    ok: 200,
    prepare: async (fx) => ({ params: { email: await freshCollaborator(fx) } }),
  },
  {
    method: 'PUT',
    path: `${G}/owner`,
    // Declared admin.permissions 2; the handler then requires the owner (a holder of the level alone gets 403).
    need: { permission: ['admin.permissions', 2] },
    ok: 200,
    body: { email: 'nobody@matrix.test' },
    prepare: async (fx, kind) => {
      const owner = await fx.newAccount('owner');
      const apiKey = await fx.newGame(owner);
      const heir = await fx.newAccount('heir');
      return {
        params: { apiKey },
        headers: await fx.credential(kind, owner, apiKey),
        body: { email: heir.username },
      };
    },
  },
];

export const GAME_ROWS: MatrixRow[] = [
  {
    method: 'POST',
    path: '/restv2/games',
    need: user,
    credentials: basicOrToken,
    ok: 201,
    body: { name: 'matrix game' },
  },
  { method: 'GET', path: '/restv2/games', need: user, credentials: basicOrToken, ok: 200 },
  { method: 'GET', path: '/restv2/games/deleted', need: user, credentials: basicOrToken, ok: 200 },
  { method: 'GET', path: '/restv2/game/{apiKey}', need: { permission: ['game', 1] }, ok: 200 },
  {
    method: 'PATCH',
    path: '/restv2/game/{apiKey}',
    need: { permission: ['game', 2] },
    ok: 200,
    body: { name: 'renamed by the matrix' },
  },
  {
    method: 'DELETE',
    path: '/restv2/game/{apiKey}',
    need: { permission: ['game', 2] },
    ok: 200,
    // Each success case deletes a game made for it (with the same collaborators as the fixture game).
    prepare: async (fx) => ({ params: { apiKey: await fx.newGame() } }),
  },
  {
    method: 'POST',
    path: '/restv2/game/{apiKey}/restore',
    // Declared "any user"; the handler restores only a game the caller owns. A JWT, bound to one game, is refused.
    need: user,
    credentials: basicOrToken,
    ok: 200,
    prepare: async (fx, kind) => {
      const game = (await fx.as(fx.member, 'POST', '/restv2/games', { name: 'to restore' })) as {
        apiKey: string;
      };
      await fx.as(fx.member, 'DELETE', `/restv2/game/${game.apiKey}`);
      return { params: { apiKey: game.apiKey }, headers: await fx.credential(kind, fx.member) };
    },
  },
  { method: 'GET', path: '/restv2/game/{gameApiKey}/endpoints', need: { permission: ['game', 1] }, ok: 200 },
];
