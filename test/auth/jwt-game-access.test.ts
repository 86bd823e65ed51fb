// A JWT follows its holder's current access to its game: removal, a lowered group, the recycle bin, a change made
// straight in the tables. The claims never grant more than the holder has now, nor more than they carry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** Waits until `check` holds (a notification from the store takes a moment); fails after 3 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 3000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached within 3 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("JWTs against the holder's current access to the game", () => {
  let server: TestServer;
  let owner: User;
  let game: string;
  let counter = 0;
  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'owner@jwt-access.test');
    game = await createGame(server, owner, 'jwt access');
  });
  afterAll(() => server.close());

  const configWrite = (jwt: string) =>
    call(server, 'POST', `/restv2/game/${game}/config/~events`, jwtHeader(jwt), {
      name: 'Race',
      shortCode: `race${++counter}`,
      description: 'a race',
    });
  const playerInsert = (jwt: string) =>
    call(server, 'POST', `/preview/restv2/game/${game}/mongo/collection/player/insert`, jwtHeader(jwt), {
      userName: `player${++counter}`,
    });
  const dataExport = (jwt: string) =>
    call(server, 'GET', `/preview/restv2/game/${game}/mongo/export`, jwtHeader(jwt));
  const statusAndCode = async (res: Promise<Awaited<ReturnType<typeof call>>>) => {
    const r = await res;
    return [r.statusCode, r.statusCode >= 400 ? r.json().code : undefined];
  };

  async function collaborator(name: string, groups: string[]): Promise<User> {
    const user = await createUser(server, `${name}@jwt-access.test`);
    await addCollaborator(server, owner, game, user.username, groups);
    return user;
  }

  it('collaborator removed → their JWT refused on the next config write, player insert and export (403 GAME_ACCESS_DENIED)', async () => {
    const dev = await collaborator('removed', ['Administrator']);
    const jwt = await issueJwt(server, dev, game);
    expect(await statusAndCode(configWrite(jwt))).toEqual([201, undefined]);
    expect(await statusAndCode(playerInsert(jwt))).toEqual([200, undefined]);
    expect(await statusAndCode(dataExport(jwt))).toEqual([200, undefined]);

    const removed = await call(
      server,
      'DELETE',
      `/restv2/auth/game/${game}/collaborators/${dev.username}`,
      tokenHeader(owner.token),
    );
    expect(removed.statusCode).toBe(200);
    expect(await statusAndCode(configWrite(jwt))).toEqual([403, 'GAME_ACCESS_DENIED']);
    expect(await statusAndCode(playerInsert(jwt))).toEqual([403, 'GAME_ACCESS_DENIED']);
    expect(await statusAndCode(dataExport(jwt))).toEqual([403, 'GAME_ACCESS_DENIED']);
  });

  it('collaborator deleted straight in the table (another process, an operator) → their JWT refused once announced', async () => {
    const dev = await collaborator('sql-removed', ['Administrator']);
    const jwt = await issueJwt(server, dev, game);
    expect((await playerInsert(jwt)).statusCode).toBe(200);
    await server.store.pool.query('DELETE FROM collaborators WHERE api_key = $1 AND email = $2', [
      game,
      dev.username,
    ]);
    await eventually(async () => (await playerInsert(jwt)).statusCode === 403);
    expect(await statusAndCode(configWrite(jwt))).toEqual([403, 'GAME_ACCESS_DENIED']);
  });

  it('group lowered → the JWT gets the lower level at once (403 PERMISSION_DENIED); raised → never above what the JWT carries', async () => {
    const group = 'Writers';
    const setGroup = (permissions: Record<string, number>) =>
      call(server, 'PUT', `/restv2/auth/game/${game}/groups/${group}`, tokenHeader(owner.token), {
        permissions,
      });
    const created = await call(server, 'POST', `/restv2/auth/game/${game}/groups`, tokenHeader(owner.token), {
      name: group,
      permissions: { game: 1, nosql: 2 },
    });
    expect(created.statusCode).toBe(201);
    const writer = await collaborator('writer', [group]);
    const jwt = await issueJwt(server, writer, game);
    expect((await playerInsert(jwt)).statusCode).toBe(200);

    expect((await setGroup({ game: 1, nosql: 1 })).statusCode).toBe(200);
    expect(await statusAndCode(playerInsert(jwt))).toEqual([403, 'PERMISSION_DENIED']);
    const find = await call(
      server,
      'POST',
      `/preview/restv2/game/${game}/mongo/collection/player/find`,
      jwtHeader(jwt),
      {},
    );
    expect(find.statusCode).toBe(200);
    const seen = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, jwtHeader(jwt));
    expect(seen.json().permissions).toEqual({ game: 1, nosql: 1 });

    // Raised above what the JWT was issued with: writes come back, keys it never carried do not.
    expect((await setGroup({ game: 1, nosql: 2, configurator: 2 })).statusCode).toBe(200);
    expect((await playerInsert(jwt)).statusCode).toBe(200);
    expect(await statusAndCode(configWrite(jwt))).toEqual([403, 'PERMISSION_DENIED']);
  });

  it('game moved to the recycle bin → the owner’s JWT refused 404 GAME_NOT_FOUND; restored → accepted again', async () => {
    const doomed = await createGame(server, owner, 'doomed');
    const jwt = await issueJwt(server, owner, doomed);
    const read = () =>
      call(server, 'GET', `/preview/restv2/game/${doomed}/mongo/collections`, jwtHeader(jwt));
    expect((await read()).statusCode).toBe(200);
    expect(
      (await call(server, 'DELETE', `/restv2/game/${doomed}`, tokenHeader(owner.token))).statusCode,
    ).toBe(200);
    expect(await statusAndCode(read())).toEqual([404, 'GAME_NOT_FOUND']);
    const restored = await call(server, 'POST', `/restv2/game/${doomed}/restore`, tokenHeader(owner.token));
    expect(restored.statusCode).toBe(200);
    expect((await read()).statusCode).toBe(200);
  });

  it('ownership transferred → the former owner’s JWT speaks for an Administrator collaborator, not the owner', async () => {
    const founder = await createUser(server, 'founder@jwt-access.test');
    const heir = await createUser(server, 'heir@jwt-access.test');
    const theirs = await createGame(server, founder, 'inherited');
    const jwt = await issueJwt(server, founder, theirs);
    const mine = () => call(server, 'GET', `/restv2/auth/game/${theirs}/permissions`, jwtHeader(jwt));
    expect((await mine()).json()).toMatchObject({ owner: true });
    const moved = await call(server, 'PUT', `/restv2/auth/game/${theirs}/owner`, tokenHeader(founder.token), {
      email: heir.username,
    });
    expect(moved.statusCode).toBe(200);
    expect((await mine()).json()).toMatchObject({ owner: false, groups: ['Administrator'] });
  });
});
