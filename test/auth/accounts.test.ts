// Accounts and access tokens: administration, login, lifetime, hashing, disabling, passwords, log out.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startTestServer, type TestServer } from '../harness.js';
import {
  adminToken,
  call,
  createGame,
  createUser,
  issueJwt,
  jwtHeader,
  login,
  tokenHeader,
  type User,
} from './helpers.js';

describe('accounts administered by the administrator', () => {
  let server: TestServer;
  let admin: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer();
    admin = tokenHeader(await adminToken(server));
  });
  afterAll(() => server.close());

  it('POST users → 201 with the account (user name lower-cased), never the password or its hash', async () => {
    const res = await call(server, 'POST', '/restv2/auth/users', admin, {
      username: 'Ada@Example.COM',
      password: 'analytical-engine',
      country: 'GB',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      username: 'ada@example.com',
      country: 'GB',
      isAdmin: false,
      disabled: false,
      created: new Date(server.now.value).toISOString(),
    });
    expect(res.body).not.toContain('analytical');
    expect(res.body).not.toContain('scrypt');
  });

  it('the stored password → a scrypt hash with its parameters and salt, not the password', async () => {
    await createUser(server, 'hash@example.com');
    const { rows } = await server.store.pool.query<{ password_hash: string }>(
      'SELECT password_hash FROM accounts WHERE username = $1',
      ['hash@example.com'],
    );
    const hash = rows[0]?.password_hash ?? '';
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain('hash-password');
  });

  it('same user name again (any case) → 409 ACCOUNT_EXISTS; short password → 400 PASSWORD_WEAK', async () => {
    const body = { username: 'twice@example.com', password: 'long-enough-1', country: '' };
    expect((await call(server, 'POST', '/restv2/auth/users', admin, body)).statusCode).toBe(201);
    const again = await call(server, 'POST', '/restv2/auth/users', admin, {
      ...body,
      username: 'TWICE@example.com',
    });
    expect([again.statusCode, again.json().code]).toEqual([409, 'ACCOUNT_EXISTS']);
    const weak = await call(server, 'POST', '/restv2/auth/users', admin, {
      ...body,
      username: 'weak@example.com',
      password: 'short',
    });
    expect([weak.statusCode, weak.json().code]).toEqual([400, 'PASSWORD_WEAK']);
  });

  it('user name that is not an e-mail address → 400 VALIDATION_FAILED naming the field', async () => {
    const res = await call(server, 'POST', '/restv2/auth/users', admin, {
      username: 'not-an-email',
      password: 'long-enough-1',
      country: 'FR',
    });
    expect([res.statusCode, res.json().code, res.json().details[0].field]).toEqual([
      400,
      'VALIDATION_FAILED',
      'body.username',
    ]);
  });

  it('GET users → every account; GET users/{username} → one; unknown → 404 ACCOUNT_NOT_FOUND', async () => {
    await createUser(server, 'listed@example.com', 'NO');
    const list = (await call(server, 'GET', '/restv2/auth/users', admin)).json();
    expect(list.map((a: { username: string }) => a.username)).toEqual(
      expect.arrayContaining(['admin@playbase.test', 'listed@example.com']),
    );
    expect(list.find((a: { username: string }) => a.username === 'admin@playbase.test').isAdmin).toBe(true);
    const one = await call(server, 'GET', '/restv2/auth/users/LISTED@example.com', admin);
    expect([one.statusCode, one.json().country]).toEqual([200, 'NO']);
    const missing = await call(server, 'GET', '/restv2/auth/users/nobody@example.com', admin);
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
  });

  it('disable → access token, Basic and JWT refused at once; enable → Basic works again, old tokens stay revoked', async () => {
    const user = await createUser(server, 'disabled@example.com');
    const game = await createGame(server, user);
    const jwt = await issueJwt(server, user, game);
    const url = `/restv2/auth/game/${game}/permissions`;
    expect((await call(server, 'GET', url, jwtHeader(jwt))).statusCode).toBe(200);

    const res = await call(server, 'PUT', '/restv2/auth/users/disabled@example.com', admin, {
      disabled: true,
    });
    expect([res.statusCode, res.json().disabled]).toEqual([200, true]);
    const byToken = await call(server, 'GET', url, tokenHeader(user.token));
    expect([byToken.statusCode, byToken.json().code]).toEqual([401, 'TOKEN_INVALID']);
    const byBasic = await call(server, 'GET', url, { authorization: basic(user.username, user.password) });
    expect([byBasic.statusCode, byBasic.json().code]).toEqual([401, 'AUTH_INVALID']);
    // The JWT check caches "not disabled" for one second to keep the accounts table off the JWT path.
    server.now.advance(1000);
    const byJwt = await call(server, 'GET', url, jwtHeader(jwt));
    expect([byJwt.statusCode, byJwt.json().code]).toEqual([401, 'JWT_INVALID']);

    await call(server, 'PUT', '/restv2/auth/users/disabled@example.com', admin, { disabled: false });
    expect((await call(server, 'GET', url, tokenHeader(user.token))).statusCode).toBe(401);
    const token = await login(server, user.username, user.password);
    expect((await call(server, 'GET', url, tokenHeader(token))).statusCode).toBe(200);
  });

  it('JWT of an account disabled before the JWT was ever used → refused without waiting', async () => {
    const user = await createUser(server, 'fresh-jwt@example.com');
    const game = await createGame(server, user);
    const jwt = await issueJwt(server, user, game);
    await call(server, 'PUT', '/restv2/auth/users/fresh-jwt@example.com', admin, { disabled: true });
    const res = await call(server, 'GET', `/restv2/auth/game/${game}/permissions`, jwtHeader(jwt));
    expect([res.statusCode, res.json().code]).toEqual([401, 'JWT_INVALID']);
  });

  it('administrator resets a password → old password and old tokens refused, new password works', async () => {
    const user = await createUser(server, 'reset@example.com');
    const res = await call(server, 'PUT', '/restv2/auth/users/reset@example.com', admin, {
      password: 'brand-new-password',
    });
    expect(res.statusCode).toBe(200);
    const old = await call(server, 'GET', '/restv2/auth/user', {
      authorization: basic(user.username, user.password),
    });
    expect([old.statusCode, old.json().code]).toEqual([401, 'AUTH_INVALID']);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(401);
    expect(await login(server, user.username, 'brand-new-password')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('PUT users/{unknown} → 404 ACCOUNT_NOT_FOUND; unknown field → 400 VALIDATION_FAILED', async () => {
    const missing = await call(server, 'PUT', '/restv2/auth/users/ghost@example.com', admin, {
      disabled: true,
    });
    expect([missing.statusCode, missing.json().code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const extra = await call(server, 'PUT', '/restv2/auth/users/admin@playbase.test', admin, {
      isAdmin: true,
    });
    expect([extra.statusCode, extra.json().code]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('access tokens', () => {
  let server: TestServer;
  let user: User;
  beforeAll(async () => {
    server = await startTestServer();
    user = await createUser(server, 'token@example.com', 'SE');
  });
  afterAll(() => server.close());

  it('GET user with Basic → country, username, expiresAt one hour on, a 43-character token', async () => {
    const res = await call(server, 'GET', '/restv2/auth/user', {
      authorization: basic(user.username, user.password),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['X-SVCAccessToken', 'country', 'expiresAt', 'username']);
    expect(body).toMatchObject({
      country: 'SE',
      username: user.username,
      expiresAt: server.now.value + 3_600_000,
    });
    expect(body['X-SVCAccessToken']).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('only the SHA-256 of a token is stored', async () => {
    const token = await login(server, user.username, user.password);
    const digest = createHash('sha256').update(token).digest();
    const { rows } = await server.store.pool.query('SELECT * FROM access_tokens WHERE token_hash = $1', [
      digest,
    ]);
    expect(rows).toHaveLength(1);
    // The row holds the digest, the owner and two instants: nothing the token could be read back from.
    expect(Object.keys(rows[0]).sort()).toEqual(['created_at', 'expires_at', 'token_hash', 'username']);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('expireInSeconds=120 → expiresAt two minutes on; works at 119 s, 401 TOKEN_EXPIRED at 120 s', async () => {
    const res = await call(server, 'GET', '/restv2/auth/user?expireInSeconds=120', {
      authorization: basic(user.username, user.password),
    });
    const { expiresAt, 'X-SVCAccessToken': token } = res.json();
    expect(expiresAt).toBe(server.now.value + 120_000);
    server.now.advance(119_000);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(token))).statusCode).toBe(200);
    server.now.advance(1_000);
    const expired = await call(server, 'GET', '/restv2/auth/games', tokenHeader(token));
    expect([expired.statusCode, expired.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
  });

  it('expireInSeconds 0, 86401 or abc → 400 EXPIRY_INVALID', async () => {
    for (const bad of ['0', '86401', 'abc']) {
      const res = await call(server, 'GET', `/restv2/auth/user?expireInSeconds=${bad}`, {
        authorization: basic(user.username, user.password),
      });
      expect([bad, res.statusCode, res.json().code]).toEqual([bad, 400, 'EXPIRY_INVALID']);
    }
  });

  it('unknown or malformed token → 401 TOKEN_INVALID; malformed Basic → 401 AUTH_INVALID', async () => {
    for (const token of ['A'.repeat(43), 'short', `${'A'.repeat(42)}!`]) {
      const res = await call(server, 'GET', '/restv2/auth/games', tokenHeader(token));
      expect([res.statusCode, res.json().code]).toEqual([401, 'TOKEN_INVALID']);
    }
    const res = await call(server, 'GET', '/restv2/auth/games', { authorization: 'Basic bm9jb2xvbg==' });
    expect([res.statusCode, res.json().code]).toEqual([401, 'AUTH_INVALID']);
  });

  it('DELETE user (log out) → that token refused at once; another session of the account goes on', async () => {
    const a = await login(server, user.username, user.password);
    const b = await login(server, user.username, user.password);
    const res = await call(server, 'DELETE', '/restv2/auth/user', tokenHeader(a));
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'SUCCESS' }]);
    const after = await call(server, 'GET', '/restv2/auth/games', tokenHeader(a));
    expect([after.statusCode, after.json().code]).toEqual([401, 'TOKEN_INVALID']);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(b))).statusCode).toBe(200);
  });

  it('GET user/token → the owner of the token (what split servers ask the auth server)', async () => {
    const token = await login(server, user.username, user.password);
    const res = await call(server, 'GET', '/restv2/auth/user/token', tokenHeader(token));
    expect(res.json()).toEqual({
      username: user.username,
      country: 'SE',
      isAdmin: false,
      expiresAt: server.now.value + 3_600_000,
    });
  });
});

describe('the token check split servers make', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ PLAYBASE_LIMIT_USER_PER_MINUTE: '3' });
  });
  afterAll(() => server.close());

  it('GET user/token (header or query parameter) → not counted against the user: the caller’s request was', async () => {
    const user = await createUser(server, 'counted@limits.test'); // its login: 1 of 3
    for (let i = 0; i < 4; i++) {
      const res = await call(server, 'GET', '/restv2/auth/user/token', tokenHeader(user.token));
      expect(res.statusCode).toBe(200);
      const byQuery = `/restv2/auth/user/token?X-SVCAccessToken=${encodeURIComponent(user.token)}`;
      expect((await call(server, 'GET', byQuery)).statusCode).toBe(200);
    }
    const counted = await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token)); // 2 of 3
    expect(counted.statusCode).toBe(200);
    expect(counted.headers['ratelimit-remaining']).toBe('1');
  });
});

describe('changing one’s own password', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('with a token and the current password → 200; this session goes on, the others end; old password refused', async () => {
    const user = await createUser(server, 'self@example.com');
    const other = await login(server, user.username, user.password);
    const res = await call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(user.token), {
      oldPassword: user.password,
      password: 'my-new-password',
    });
    expect([res.statusCode, res.json()]).toEqual([200, { message: 'SUCCESS' }]);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(user.token))).statusCode).toBe(200);
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(other))).statusCode).toBe(401);
    const old = await call(server, 'GET', '/restv2/auth/user', {
      authorization: basic(user.username, user.password),
    });
    expect(old.statusCode).toBe(401);
    expect(await login(server, user.username, 'my-new-password')).toHaveLength(43);
  });

  it('with a token and a wrong or missing current password → 400 PASSWORD_MISMATCH, password unchanged', async () => {
    const user = await createUser(server, 'mismatch@example.com');
    for (const body of [
      { oldPassword: 'not-my-password', password: 'my-new-password' },
      { password: 'my-new-password' },
    ]) {
      const res = await call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(user.token), body);
      expect([res.statusCode, res.json().code]).toEqual([400, 'PASSWORD_MISMATCH']);
    }
    expect(await login(server, user.username, user.password)).toHaveLength(43);
  });

  it('with Basic (the password just proved) and no current password → 200', async () => {
    const user = await createUser(server, 'basic-self@example.com');
    const res = await call(
      server,
      'PUT',
      '/restv2/auth/user/password',
      { authorization: basic(user.username, user.password) },
      { password: 'changed-by-basic' },
    );
    expect(res.statusCode).toBe(200);
    expect(await login(server, user.username, 'changed-by-basic')).toHaveLength(43);
  });

  it('new password too short → 400 PASSWORD_WEAK', async () => {
    const user = await createUser(server, 'short@example.com');
    const res = await call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(user.token), {
      oldPassword: user.password,
      password: 'short',
    });
    expect([res.statusCode, res.json().code]).toEqual([400, 'PASSWORD_WEAK']);
  });
});
