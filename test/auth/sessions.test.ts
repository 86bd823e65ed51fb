// Ending an account's sessions: disabling, a password change or reset and "log out everywhere" move the account's
// "tokens not before" instant; every JWT and access token issued before it is refused, also after re-enabling.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { basic, startTestServer, type TestServer } from '../harness.js';
import {
  adminToken,
  call,
  createGame,
  createUser,
  decodeJwt,
  issueJwt,
  jwtHeader,
  login,
  tokenHeader,
  type User,
} from './helpers.js';

describe('tokens not before', () => {
  let server: TestServer;
  let admin: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    admin = tokenHeader(await adminToken(server));
  });
  afterAll(() => server.close());

  /** A new account owning a new game, with a JWT for it. */
  async function player(name: string): Promise<{ user: User; game: string; jwt: string }> {
    const user = await createUser(server, `${name}@sessions.test`);
    const game = await createGame(server, user);
    return { user, game, jwt: await issueJwt(server, user, game) };
  }
  const asJwt = async (game: string, jwt: string) => {
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, jwtHeader(jwt));
    return [res.statusCode, res.statusCode >= 400 ? res.json().code : undefined];
  };
  const asToken = async (token: string) => {
    const res = await call(server, 'GET', '/restv2/auth/games', tokenHeader(token));
    return [res.statusCode, res.statusCode >= 400 ? res.json().code : undefined];
  };
  const changeAccount = (username: string, body: unknown) =>
    call(server, 'PUT', `/restv2/auth/users/${username}`, admin, body);

  it('disabled, password reset, enabled again → the JWT issued before stays refused (401 TOKEN_REVOKED); a new one works', async () => {
    const { user, game, jwt } = await player('incident');
    expect(await asJwt(game, jwt)).toEqual([200, undefined]);
    server.now.advance(1000);
    expect((await changeAccount(user.username, { disabled: true })).statusCode).toBe(200);
    expect((await changeAccount(user.username, { password: 'after-the-incident' })).statusCode).toBe(200);
    expect((await changeAccount(user.username, { disabled: false })).statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
    const token = await login(server, user.username, 'after-the-incident');
    expect(await asToken(token)).toEqual([200, undefined]);
    const fresh = await issueJwt(server, { ...user, token }, game);
    expect(await asJwt(game, fresh)).toEqual([200, undefined]);
  });

  it('disabled then enabled (no password change) → earlier JWTs stay refused', async () => {
    const { user, game, jwt } = await player('paused');
    expect((await changeAccount(user.username, { disabled: true })).statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'JWT_INVALID']);
    expect((await changeAccount(user.username, { disabled: false })).statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it('password reset by the administrator → earlier JWTs refused at once', async () => {
    const { user, game, jwt } = await player('reset');
    expect((await changeAccount(user.username, { password: 'reset-by-admin' })).statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it('own password changed with a token → earlier JWTs and other tokens refused; this session and a JWT issued right after (same millisecond) work', async () => {
    const { user, game, jwt } = await player('changer');
    const other = await login(server, user.username, user.password);
    const res = await call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(user.token), {
      oldPassword: user.password,
      password: 'changed-password',
    });
    expect(res.statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
    expect((await asToken(other))[0]).toBe(401);
    // The test clock has not moved: the new JWT is issued in the very millisecond of the change, and stamped 1 ms
    // past it.
    expect(await asToken(user.token)).toEqual([200, undefined]);
    const after = await issueJwt(server, user, game);
    expect(decodeJwt(after).claims.iatMs).toBe(server.now.value + 1);
    expect(await asJwt(game, after)).toEqual([200, undefined]);
  });

  it('JWT issued earlier in the same second as a password change → refused; one issued later in that second → works', async () => {
    const { user, game } = await player('same-second');
    server.now.value = Math.floor(server.now.value / 1000) * 1000 + 1000 + 100;
    const before = await issueJwt(server, user, game);
    server.now.advance(400);
    const res = await call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(user.token), {
      oldPassword: user.password,
      password: 'same-second-password',
    });
    expect(res.statusCode).toBe(200);
    server.now.advance(400);
    const after = await issueJwt(server, user, game);
    expect(decodeJwt(before).claims.iat).toBe(decodeJwt(after).claims.iat);
    expect(await asJwt(game, before)).toEqual([401, 'TOKEN_REVOKED']);
    expect(await asJwt(game, after)).toEqual([200, undefined]);
  });

  it('DELETE user/sessions (log out everywhere) → every token, this one included, and every JWT of the account refused; others unaffected', async () => {
    const { user, game, jwt } = await player('everywhere');
    const bystander = await player('bystander');
    const second = await login(server, user.username, user.password);
    const res = await call(server, 'DELETE', '/restv2/auth/user/sessions', tokenHeader(user.token));
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'SUCCESS' }]);
    expect((await asToken(user.token))[0]).toBe(401);
    expect((await asToken(second))[0]).toBe(401);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
    expect(await asJwt(bystander.game, bystander.jwt)).toEqual([200, undefined]);
    expect(await asToken(bystander.user.token)).toEqual([200, undefined]);
    // The password still works: a new session starts at once.
    const token = await login(server, user.username, user.password);
    expect(await asToken(token)).toEqual([200, undefined]);
  });

  it('DELETE user/sessions with Basic → 200; the account’s JWTs refused', async () => {
    const { user, game, jwt } = await player('basic-everywhere');
    const res = await call(server, 'DELETE', '/restv2/auth/user/sessions', {
      authorization: basic(user.username, user.password),
    });
    expect(res.statusCode).toBe(200);
    expect(await asJwt(game, jwt)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it('access token written before the account was disabled but left in the table, enabled again → 401 TOKEN_REVOKED', async () => {
    const { user } = await player('racer');
    const t0 = server.now.value;
    server.now.advance(1000);
    expect((await changeAccount(user.username, { disabled: true })).statusCode).toBe(200);
    expect((await changeAccount(user.username, { disabled: false })).statusCode).toBe(200);
    // As a login racing the change would leave it: checked before the change, written after its deletion.
    const token = randomBytes(32).toString('base64url');
    await server.store.pool.query(
      'INSERT INTO access_tokens (token_hash, username, expires_at, created_at) VALUES ($1, $2, $3, $4)',
      [hashToken(token), user.username, new Date(t0 + 3_600_000), new Date(t0)],
    );
    expect(await asToken(token)).toEqual([401, 'TOKEN_REVOKED']);
  });

  it('sessions ended twice within one millisecond → a JWT issued between the two is refused by the second', async () => {
    const { user, game } = await player('twice');
    const end = () =>
      call(server, 'DELETE', '/restv2/auth/user/sessions', {
        authorization: basic(user.username, user.password),
      });
    expect((await end()).statusCode).toBe(200);
    const between = await issueJwt(
      server,
      { ...user, token: await login(server, user.username, user.password) },
      game,
    );
    expect(await asJwt(game, between)).toEqual([200, undefined]);
    expect((await end()).statusCode).toBe(200);
    expect(await asJwt(game, between)).toEqual([401, 'TOKEN_REVOKED']);
  });
});
