// The remembered credential checks: answers are reused, and any write that could take a credential or a
// permission away (through the API, or straight into the tables) is seen by the next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/store/db.js';
import { startTestServer, storeKind, type TestServer } from '../harness.js';
import { call, createGame, createUser, tokenHeader, type User } from './helpers.js';

/** Waits until `check` holds (a notification from another connection takes a moment); fails after 3 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 3000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached within 3 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('remembered access-token and game-access checks', () => {
  let server: TestServer;
  let owner: User;
  let apiKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await createUser(server, 'cache-owner@example.com');
    apiKey = await createGame(server, owner);
    await eventually(() => backendActive(server));
  });
  afterAll(async () => server?.close());

  const gameRead = (token: string) =>
    call(server, 'GET', `/restv2/game/${apiKey}/endpoints`, tokenHeader(token));

  it('a token checked once → answered from memory until a write is announced', async () => {
    const user = await createUser(server, 'cache-memory@example.com');
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(200);
    // Deleted with triggers off (replica mode): no announcement, so the remembered answer stands.
    await withTransaction(server.store.pool, async (client) => {
      await client.query(`SET LOCAL session_replication_role = replica`);
      await client.query('DELETE FROM access_tokens WHERE username = $1', [user.username]);
    });
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(200);
    // Any statement on the table is announced (a statement-level trigger), even one that changes no row.
    await server.store.pool.query('DELETE FROM access_tokens WHERE false');
    await eventually(
      async () =>
        (await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode === 401,
    );
  });

  it.skipIf(storeKind !== 'postgres')(
    'the notification connection lost → nothing answered from memory until it is back',
    async () => {
      const user = await createUser(server, 'cache-gap@example.com');
      const games = () => call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token));
      expect((await games()).statusCode).toBe(200);
      await server.store.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN playbase_auth%'`,
      );
      // Give the loss a moment to reach the process, then delete unannounced: the token must not be remembered.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await withTransaction(server.store.pool, async (client) => {
        await client.query(`SET LOCAL session_replication_role = replica`);
        await client.query('DELETE FROM access_tokens WHERE username = $1', [user.username]);
      });
      expect((await games()).statusCode).toBe(401);
      await eventually(() => backendActive(server));
    },
  );

  it('a token deleted straight in the table → refused by the next requests', async () => {
    const user = await createUser(server, 'cache-sql@example.com');
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(200);
    await server.store.pool.query('DELETE FROM access_tokens WHERE username = $1', [user.username]);
    await eventually(
      async () =>
        (await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode === 401,
    );
  });

  it('an account disabled by the administrator → its remembered token refused at once', async () => {
    const user = await createUser(server, 'cache-disabled@example.com');
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(200);
    const admin = (
      await call(server, 'GET', '/restv2/auth/user', { authorization: server.adminBasic })
    ).json();
    const disable = await call(
      server,
      'PUT',
      `/restv2/auth/users/${user.username}`,
      tokenHeader(admin['X-SVCAccessToken']),
      { disabled: true },
    );
    expect(disable.statusCode).toBe(200);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(401);
  });

  it('a collaborator removed from the game → their remembered access refused at once', async () => {
    const user = await createUser(server, 'cache-collab@example.com');
    const add = await call(
      server,
      'POST',
      `/restv2/auth/game/${apiKey}/collaborators`,
      tokenHeader(owner.token),
      {
        email: user.username,
        groupNames: ['ReadOnly'],
      },
    );
    expect(add.statusCode).toBe(201);
    expect((await gameRead(user.token)).statusCode).toBe(200);
    const remove = await call(
      server,
      'DELETE',
      `/restv2/auth/game/${apiKey}/collaborators/${user.username}`,
      tokenHeader(owner.token),
    );
    expect(remove.statusCode).toBeLessThan(300);
    expect((await gameRead(user.token)).statusCode).toBe(403);
  });

  it("a group's permissions changed straight in the table → the next requests see the new level", async () => {
    const user = await createUser(server, 'cache-group@example.com');
    await call(server, 'POST', `/restv2/auth/game/${apiKey}/collaborators`, tokenHeader(owner.token), {
      email: user.username,
      groupNames: ['ReadOnly'],
    });
    expect((await gameRead(user.token)).statusCode).toBe(200);
    await server.store.pool.query(
      `UPDATE game_groups SET permissions = '{}'::jsonb WHERE api_key = $1 AND name = 'ReadOnly'`,
      [apiKey],
    );
    await eventually(async () => (await gameRead(user.token)).statusCode === 403);
  });

  it('a remembered token past its expiry → 401 token expired, without asking the store', async () => {
    const res = await call(server, 'GET', '/restv2/auth/user?expireInSeconds=60', {
      authorization: server.adminBasic,
    });
    const token = res.json()['X-SVCAccessToken'] as string;
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(token))).statusCode).toBe(200);
    server.now.advance(61_000);
    const expired = await call(server, 'GET', '/restv2/auth/games', tokenHeader(token));
    expect(expired.statusCode).toBe(401);
    expect(expired.json().code).toBe('TOKEN_EXPIRED');
  });
});

/** True once the server's cache listens for changes (it starts asynchronously). */
async function backendActive(server: TestServer): Promise<boolean> {
  const res = await server.store.pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity WHERE query ILIKE 'LISTEN playbase_auth%'`,
  );
  return server.store.kind === 'pglite' || Number(res.rows[0]?.n ?? 0) > 0;
}
