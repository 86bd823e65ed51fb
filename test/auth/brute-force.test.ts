// Brute-force protection of Basic logins: per account after 5 failures, per address at a higher threshold.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLogin } from '../../src/auth/accounts.js';
import { basic, startTestServer, TEST_REDIS_URL, type TestServer } from '../harness.js';
import { call, createGame, createUser, tokenHeader, type User } from './helpers.js';

// The harness raises the per-address threshold for every other test; these tests use the real defaults.
const DEFAULTS = { PLAYBASE_LOGIN_FAILURES_PER_ACCOUNT: '5', PLAYBASE_LOGIN_FAILURES_PER_ADDRESS: '20' };

const attempt = (server: TestServer, username: string, password: string, url = '/restv2/auth/user') =>
  call(server, 'GET', url, { authorization: basic(username, password) });

function expectThrottled(res: Awaited<ReturnType<typeof attempt>>): void {
  expect(res.statusCode).toBe(429);
  const body = res.json();
  expect(body).toEqual({
    message: 'Too many failed logins; try again later',
    code: 'LOGIN_THROTTLED',
    requestId: res.headers['x-request-id'],
  });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(300);
}

describe('failed logins of one account', () => {
  let server: TestServer;
  let victim: User;
  let neighbour: User;
  beforeAll(async () => {
    server = await startTestServer(DEFAULTS);
    victim = await createUser(server, 'victim@brute.test');
    neighbour = await createUser(server, 'neighbour@brute.test');
  });
  afterAll(() => server.close());

  it('5 wrong passwords → the right one is refused with 429, Retry-After and the error body', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await attempt(server, victim.username, `wrong-${i}`);
      expect([i, res.statusCode, res.json().code]).toEqual([i, 401, 'AUTH_INVALID']);
    }
    expectThrottled(await attempt(server, victim.username, victim.password));
    // Any route taking Basic is throttled alike, whatever the case of the user name.
    const game = await createGame(server, victim);
    expectThrottled(
      await attempt(server, 'VICTIM@brute.test', victim.password, `/restv2/auth/game/${game}/jwt`),
    );
  });

  it('while the account is throttled → another account logs in from the same address', async () => {
    expect((await attempt(server, neighbour.username, neighbour.password)).statusCode).toBe(200);
  });

  it('while the account is throttled → its access tokens keep working (only logins are refused)', async () => {
    expect((await call(server, 'GET', '/restv2/auth/games', tokenHeader(victim.token))).statusCode).toBe(200);
  });

  it('4 failures, a success, 4 failures → still not throttled (a success clears the account’s count)', async () => {
    const user = await createUser(server, 'careless@brute.test');
    for (let i = 0; i < 4; i++)
      expect((await attempt(server, user.username, 'nope-nope')).statusCode).toBe(401);
    expect((await attempt(server, user.username, user.password)).statusCode).toBe(200);
    for (let i = 0; i < 4; i++)
      expect((await attempt(server, user.username, 'nope-nope')).statusCode).toBe(401);
    expect((await attempt(server, user.username, user.password)).statusCode).toBe(200);
  });
});

describe('failed logins from one address across many accounts', () => {
  let server: TestServer;
  let users: User[];
  beforeAll(async () => {
    server = await startTestServer(DEFAULTS);
    users = [];
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g'])
      users.push(await createUser(server, `${name}@spray.test`));
  });
  afterAll(() => server.close());

  it('19 failures over many accounts → correct logins of others still work; the 20th → every login from the address 429', async () => {
    // Four failures each on four real accounts and three unknown names: no account reaches its own limit.
    const targets = [...users.slice(0, 4).map((u) => u.username), 'ghost1@spray.test', 'ghost2@spray.test'];
    let failures = 0;
    for (const name of targets) {
      for (let i = 0; i < 4 && failures < 19; i++, failures++) {
        expect((await attempt(server, name, 'sprayed-password')).statusCode).toBe(401);
      }
    }
    expect(failures).toBe(19);
    const [, , , , e, f, g] = users as [User, User, User, User, User, User, User];
    expect((await attempt(server, e.username, e.password)).statusCode).toBe(200);
    expect((await attempt(server, 'ghost3@spray.test', 'sprayed-password')).statusCode).toBe(401);
    expectThrottled(await attempt(server, f.username, f.password));
    expectThrottled(await attempt(server, g.username, g.password));
  });
});

describe('the per-address threshold is a setting', () => {
  it('PLAYBASE_LOGIN_FAILURES_PER_ADDRESS=3 → the 4th login from the address is refused', async () => {
    const server = await startTestServer({ ...DEFAULTS, PLAYBASE_LOGIN_FAILURES_PER_ADDRESS: '3' });
    try {
      const user = await createUser(server, 'strict@brute.test');
      for (const name of ['x@brute.test', 'y@brute.test', 'z@brute.test']) {
        expect((await attempt(server, name, 'wrong-password')).statusCode).toBe(401);
      }
      expectThrottled(await attempt(server, user.username, user.password));
    } finally {
      await server.close();
    }
  });
});

describe('the client address behind a proxy (PLAYBASE_TRUST_PROXY)', () => {
  const fromClient = (server: TestServer, forwardedFor: string, username: string, password: string) =>
    call(server, 'GET', '/restv2/auth/user', {
      authorization: basic(username, password),
      'x-forwarded-for': forwardedFor,
    });

  it('trusting one hop → failures count under the forwarded client, other clients behind the proxy log in', async () => {
    const server = await startTestServer({
      ...DEFAULTS,
      PLAYBASE_LOGIN_FAILURES_PER_ADDRESS: '3',
      PLAYBASE_TRUST_PROXY: '1',
    });
    try {
      const user = await createUser(server, 'proxied@brute.test');
      for (const name of ['p@brute.test', 'q@brute.test', 'r@brute.test']) {
        // A client's own X-Forwarded-For entry (left) is not believed: the proxy's entry (right) is the client.
        expect(
          (await fromClient(server, `10.9.9.${name.length}, 203.0.113.5`, name, 'wrong')).statusCode,
        ).toBe(401);
      }
      expectThrottled(await fromClient(server, '203.0.113.5', user.username, user.password));
      expect((await fromClient(server, '203.0.113.6', user.username, user.password)).statusCode).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('unset → X-Forwarded-For is ignored: forging it does not dodge the per-address count', async () => {
    const server = await startTestServer({ ...DEFAULTS, PLAYBASE_LOGIN_FAILURES_PER_ADDRESS: '3' });
    try {
      const user = await createUser(server, 'unproxied@brute.test');
      for (const [i, name] of ['s@brute.test', 't@brute.test', 'u@brute.test'].entries()) {
        expect((await fromClient(server, `198.51.100.${i}`, name, 'wrong')).statusCode).toBe(401);
      }
      expectThrottled(await fromClient(server, '198.51.100.99', user.username, user.password));
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!TEST_REDIS_URL)('counts shared through Redis', () => {
  it('two servers on one Redis → failures on one throttle the account on the other', async () => {
    const env = { ...DEFAULTS, PLAYBASE_REDIS_KEY_PREFIX: `brute-${randomBytes(6).toString('hex')}` };
    const one = await startTestServer(env);
    const two = await startTestServer(env);
    try {
      const onOne = await createUser(one, 'shared@brute.test');
      const onTwo = await createUser(two, 'shared@brute.test');
      expect(onTwo.password).toBe(onOne.password);
      for (let i = 0; i < 5; i++)
        expect((await attempt(one, onOne.username, 'wrong-password')).statusCode).toBe(401);
      expectThrottled(await attempt(two, onTwo.username, onTwo.password));
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('the account count cannot be dodged by spelling the user name differently', () => {
  it('5 failures under case and space variants of one name → the right password is refused 429', async () => {
    const server = await startTestServer(DEFAULTS);
    try {
      const user = await createUser(server, 'spelled@brute.test');
      for (const name of [
        ' spelled@brute.test',
        'spelled@brute.test ',
        'SPELLED@brute.test',
        '  Spelled@Brute.Test',
        'spelled@brute.test\t',
      ]) {
        const res = await attempt(server, name, 'wrong-password');
        expect([name, res.statusCode]).toEqual([name, 401]);
      }
      expectThrottled(await attempt(server, user.username, user.password));
    } finally {
      await server.close();
    }
  });
});

describe('the current password given to the password-change route counts like a Basic login', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(DEFAULTS);
  });
  afterAll(() => server.close());

  const change = (token: string, oldPassword: string) =>
    call(server, 'PUT', '/restv2/auth/user/password', tokenHeader(token), {
      oldPassword,
      password: 'guessed-its-way-in',
    });

  it('5 wrong current passwords with a token → 429 there, even with the right one, and on Basic logins', async () => {
    const user = await createUser(server, 'stolen-token@brute.test');
    for (let i = 0; i < 5; i++) {
      const res = await change(user.token, `guess-${i}`);
      expect([i, res.statusCode, res.json().code]).toEqual([i, 400, 'PASSWORD_MISMATCH']);
    }
    expectThrottled(await change(user.token, user.password));
    expectThrottled(await attempt(server, user.username, user.password));
    // The throttled change did not happen: the old password is still the account's.
    expect(await verifyLogin(server.store.pool, user.username, user.password)).toMatchObject({
      username: user.username,
    });
  });

  it('4 wrong current passwords, then 1 wrong Basic login → the account is throttled (one count)', async () => {
    const user = await createUser(server, 'mixed@brute.test');
    for (let i = 0; i < 4; i++) expect((await change(user.token, `guess-${i}`)).statusCode).toBe(400);
    expect((await attempt(server, user.username, 'wrong-basic')).statusCode).toBe(401);
    expectThrottled(await change(user.token, user.password));
  });
});
