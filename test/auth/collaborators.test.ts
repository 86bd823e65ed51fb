// Groups, collaborators, effective permissions, the caller's games and transfer of ownership.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GROUPS, OWNER_PERMISSIONS } from '../../src/auth/permissions.js';
import { startTestServer, type TestServer } from '../harness.js';
import {
  addCollaborator,
  call,
  createGame,
  createUser,
  issueJwt,
  jwtHeader,
  tokenHeader,
  type User,
} from './helpers.js';

describe('groups and collaborators of a game', () => {
  let server: TestServer;
  let owner: User;
  let alice: User;
  let bob: User;
  let game: string;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@collab.test');
    alice = await createUser(server, 'alice@collab.test');
    bob = await createUser(server, 'bob@collab.test');
    game = await createGame(server, owner, 'collab game');
    base = `/restv2/auth/game/${game}`;
  });
  afterAll(() => server.close());

  const asOwner = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
    call(server, method, `${base}${path}`, tokenHeader(owner.token), body);

  it('new game → the four default groups with their documented permissions', async () => {
    const res = await asOwner('GET', '/groups');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(
      Object.entries(DEFAULT_GROUPS)
        .map(([name, permissions]) => ({ name, permissions }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
    expect((await asOwner('GET', '/groups/DataExplorer')).json().permissions['nosql.dataExplorer']).toBe(1);
  });

  it('owner → GET permissions says owner with every root key at 2', async () => {
    const res = await asOwner('GET', '/permissions');
    expect(res.json()).toEqual({ apiKey: game, owner: true, groups: [], permissions: OWNER_PERMISSIONS });
  });

  it('collaborator in two groups → effective permissions are the union, highest level per key', async () => {
    await asOwner('POST', '/groups', { name: 'Exports', permissions: { 'nosql.dataExplorer': 1, nosql: 0 } });
    await addCollaborator(server, owner, game, alice.username, ['ReadOnly', 'Exports']);
    const res = await call(server, 'GET', `${base}/permissions`, tokenHeader(alice.token));
    expect(res.json()).toMatchObject({ owner: false, groups: ['ReadOnly', 'Exports'] });
    expect(res.json().permissions).toEqual({
      game: 1,
      configurator: 1,
      manage: 1,
      nosql: 1,
      admin: 1,
      'nosql.dataExplorer': 1,
    });
    // The JWT carries the same set.
    const jwt = await issueJwt(server, alice, game);
    const viaJwt = await call(server, 'GET', `${base}/permissions`, jwtHeader(jwt));
    expect(viaJwt.json().permissions).toEqual(res.json().permissions);
  });

  it('group changed → the collaborator’s token sees the new level on the next request', async () => {
    await asOwner('POST', '/groups', { name: 'Managers', permissions: { 'admin.permissions': 1 } });
    await addCollaborator(server, owner, game, bob.username, ['Managers']);
    const add = () =>
      call(server, 'POST', `${base}/groups`, tokenHeader(bob.token), { name: 'ByBob', permissions: {} });
    const refused = await add();
    expect([refused.statusCode, refused.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const put = await asOwner('PUT', '/groups/Managers', { permissions: { 'admin.permissions': 2 } });
    expect(put.json()).toEqual({ name: 'Managers', permissions: { 'admin.permissions': 2 } });
    expect((await add()).statusCode).toBe(201);
  });

  it('group with an unknown key or level 3 → 400 PERMISSION_UNKNOWN; same name twice → 409 GROUP_EXISTS', async () => {
    const unknown = await asOwner('POST', '/groups', { name: 'Bad', permissions: { 'nosql.everything': 1 } });
    expect([unknown.statusCode, unknown.json().code]).toEqual([400, 'PERMISSION_UNKNOWN']);
    const level = await asOwner('POST', '/groups', { name: 'Bad', permissions: { nosql: 3 } });
    expect([level.statusCode, level.json().code]).toEqual([400, 'PERMISSION_UNKNOWN']);
    const twice = await asOwner('POST', '/groups', { name: 'Developer', permissions: {} });
    expect([twice.statusCode, twice.json().code]).toEqual([409, 'GROUP_EXISTS']);
    const put = await asOwner('PUT', '/groups/Developer', { permissions: { 'no.such': 2 } });
    expect([put.statusCode, put.json().code]).toEqual([400, 'PERMISSION_UNKNOWN']);
  });

  it('wrong JSON types (a level "2", groupNames one string) → 400 VALIDATION_FAILED naming the field; nothing changes', async () => {
    const before = (await asOwner('GET', '/groups/Developer')).json();
    const cases: [string, 'POST' | 'PUT', string, unknown, string][] = [
      [
        'a level as a string',
        'PUT',
        '/groups/Developer',
        { permissions: { nosql: '2' } },
        'body.permissions.nosql',
      ],
      [
        'a level null',
        'PUT',
        '/groups/Developer',
        { permissions: { nosql: null } },
        'body.permissions.nosql',
      ],
      [
        'a new group with a level true',
        'POST',
        '/groups',
        { name: 'Typed', permissions: { nosql: true } },
        'body.permissions.nosql',
      ],
      [
        'groupNames one string',
        'POST',
        '/collaborators',
        { email: bob.username, groupNames: 'ReadOnly' },
        'body.groupNames',
      ],
      [
        'groupNames one string',
        'PUT',
        `/collaborators/${bob.username}`,
        { groupNames: 'ReadOnly' },
        'body.groupNames',
      ],
    ];
    for (const [name, method, path, body, field] of cases) {
      const res = await asOwner(method, path, body);
      expect([name, res.statusCode, res.json().code]).toEqual([name, 400, 'VALIDATION_FAILED']);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
      expect(res.json().requestId).toBeTypeOf('string');
    }
    expect((await asOwner('GET', '/groups/Developer')).json()).toEqual(before);
    expect((await asOwner('GET', '/groups/Typed')).statusCode).toBe(404);
    expect((await asOwner('GET', `/collaborators/${bob.username}`)).json().groupNames).toEqual(['Managers']);
  });

  it('delete a group still given to someone → 409 GROUP_IN_USE naming them; unused → 200, then 404', async () => {
    const inUse = await asOwner('DELETE', '/groups/Exports');
    expect([inUse.statusCode, inUse.json().code]).toEqual([409, 'GROUP_IN_USE']);
    expect(inUse.json().message).toContain(alice.username);
    await asOwner('POST', '/groups', { name: 'Temp', permissions: { nosql: 1 } });
    expect((await asOwner('DELETE', '/groups/Temp')).json()).toEqual({ message: 'SUCCESS' });
    const gone = await asOwner('GET', '/groups/Temp');
    expect([gone.statusCode, gone.json().code]).toEqual([404, 'GROUP_NOT_FOUND']);
  });

  it('collaborators: list, read, change groups, and the errors of adding', async () => {
    const list = (await asOwner('GET', '/collaborators')).json();
    expect(list).toEqual([
      { email: alice.username, groupNames: ['ReadOnly', 'Exports'] },
      { email: bob.username, groupNames: ['Managers'] },
    ]);
    const one = await asOwner('GET', `/collaborators/${encodeURIComponent(alice.username.toUpperCase())}`);
    expect(one.json()).toEqual({ email: alice.username, groupNames: ['ReadOnly', 'Exports'] });
    const put = await asOwner('PUT', `/collaborators/${alice.username}`, { groupNames: ['DataExplorer'] });
    expect(put.json()).toEqual({ email: alice.username, groupNames: ['DataExplorer'] });
    const cases: [unknown, number, string][] = [
      [{ email: 'ghost@collab.test', groupNames: [] }, 404, 'ACCOUNT_NOT_FOUND'],
      [{ email: alice.username, groupNames: [] }, 409, 'COLLABORATOR_EXISTS'],
      [{ email: owner.username, groupNames: [] }, 400, 'OWNER_NOT_COLLABORATOR'],
      [{ email: bob.username, groupNames: ['Nope'] }, 404, 'GROUP_NOT_FOUND'],
      [{ email: 'not-an-email', groupNames: [] }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const res = await asOwner('POST', '/collaborators', body);
      expect([body, res.statusCode, res.json().code]).toEqual([body, status, code]);
    }
    const missing = await asOwner('GET', '/collaborators/ghost@collab.test');
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'COLLABORATOR_NOT_FOUND']);
  });

  it('collaborator removed → their token gets 403 GAME_ACCESS_DENIED at once', async () => {
    const carol = await createUser(server, 'carol@collab.test');
    await addCollaborator(server, owner, game, carol.username, ['ReadOnly']);
    expect((await call(server, 'GET', `${base}/permissions`, tokenHeader(carol.token))).statusCode).toBe(200);
    expect((await asOwner('DELETE', `/collaborators/${carol.username}`)).json()).toEqual({
      message: 'SUCCESS',
    });
    const res = await call(server, 'GET', `${base}/permissions`, tokenHeader(carol.token));
    expect([res.statusCode, res.json().code]).toEqual([403, 'GAME_ACCESS_DENIED']);
  });

  it("GET /restv2/auth/games → the caller's own and shared games with their groups, not others'", async () => {
    // Listed oldest first: the frozen clock moves so that the order is defined.
    server.now.advance(1000);
    const mine = await createGame(server, alice, 'alice own');
    await createGame(server, bob, 'bob own');
    const res = await call(server, 'GET', '/restv2/auth/games', tokenHeader(alice.token));
    const games = res.json() as { apiKey: string; owner: string; groups: string[] }[];
    expect(games.map((g) => [g.apiKey, g.owner, g.groups])).toEqual([
      [game, owner.username, ['DataExplorer']],
      [mine, alice.username, []],
    ]);
  });
});

describe('transfer of ownership', () => {
  let server: TestServer;
  let owner: User;
  let heir: User;
  let admin: User;
  let game: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@transfer.test');
    heir = await createUser(server, 'heir@transfer.test');
    admin = await createUser(server, 'admin@transfer.test');
    game = await createGame(server, owner);
    await addCollaborator(server, owner, game, heir.username, ['ReadOnly']);
    await addCollaborator(server, owner, game, admin.username, ['Administrator']);
  });
  afterAll(() => server.close());

  const transfer = (by: User, email: string) =>
    call(server, 'PUT', `/restv2/auth/game/${game}/owner`, tokenHeader(by.token), { email });

  it('collaborator of the Administrator group (every permission) → 403: only the owner transfers', async () => {
    const res = await transfer(admin, admin.username);
    expect([res.statusCode, res.json().code]).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('to an unknown account → 404 ACCOUNT_NOT_FOUND, nothing changes', async () => {
    const res = await transfer(owner, 'ghost@transfer.test');
    expect([res.statusCode, res.json().code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const perms = await call(
      server,
      'GET',
      `/restv2/auth/game/${game}/permissions`,
      tokenHeader(owner.token),
    );
    expect(perms.json().owner).toBe(true);
  });

  it('owner → collaborator: the heir owns it (no longer a collaborator), the old owner is an Administrator', async () => {
    const res = await transfer(owner, heir.username);
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'SUCCESS' }]);
    const heirs = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, tokenHeader(heir.token));
    expect(heirs.json()).toMatchObject({ owner: true, permissions: OWNER_PERMISSIONS });
    const old = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, tokenHeader(owner.token));
    expect(old.json()).toMatchObject({ owner: false, groups: ['Administrator'] });
    const collaborators = await call(
      server,
      'GET',
      `/restv2/auth/game/${game}/collaborators`,
      tokenHeader(heir.token),
    );
    expect(collaborators.json().map((c: { email: string }) => c.email)).toEqual([
      admin.username,
      owner.username,
    ]);
    const again = await transfer(owner, owner.username);
    expect([again.statusCode, again.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const game1 = await call(server, 'GET', `/restv2/game/${game}`, tokenHeader(heir.token));
    expect(game1.json().owner).toBe(heir.username);
  });
});

describe('transfer of ownership is decided by the store, not by a JWT claim', () => {
  let server: TestServer;
  let owner: User;
  let heir: User;
  let game: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@stale.test');
    heir = await createUser(server, 'heir@stale.test');
    game = await createGame(server, owner);
  });
  afterAll(() => server.close());

  it('former owner replaying a JWT issued while they owned the game → 403, the heir keeps the game', async () => {
    const staleJwt = await issueJwt(server, owner, game);
    const url = `/restv2/auth/game/${game}/owner`;
    expect(
      (await call(server, 'PUT', url, tokenHeader(owner.token), { email: heir.username })).statusCode,
    ).toBe(200);
    const replay = await call(server, 'PUT', url, jwtHeader(staleJwt), { email: owner.username });
    expect([replay.statusCode, replay.json().code]).toEqual([403, 'PERMISSION_DENIED']);
    const g = await call(server, 'GET', `/restv2/game/${game}`, tokenHeader(heir.token));
    expect(g.json().owner).toBe(heir.username);
  });

  it('owner transfers to themselves → 200 and nothing changes (the owner never becomes a collaborator)', async () => {
    const mine = await createGame(server, owner, 'kept');
    const res = await call(server, 'PUT', `/restv2/auth/game/${mine}/owner`, tokenHeader(owner.token), {
      email: owner.username.toUpperCase(),
    });
    expect(res.statusCode).toBe(200);
    const collaborators = await call(
      server,
      'GET',
      `/restv2/auth/game/${mine}/collaborators`,
      tokenHeader(owner.token),
    );
    expect(collaborators.json()).toEqual([]);
    const perms = await call(
      server,
      'GET',
      `/restv2/auth/game/${mine}/permissions`,
      tokenHeader(owner.token),
    );
    expect(perms.json()).toMatchObject({ owner: true, groups: [] });
  });
});
