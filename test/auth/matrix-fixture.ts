// The world the authentication matrix runs in: accounts, two games, one collaborator per (key, level), credentials.
import type { LightMyRequestResponse } from 'fastify';
import type { CredentialKind } from '../../src/auth/authenticate.js';
import type { Level } from '../../src/auth/permissions.js';
import { issueAccessToken } from '../../src/auth/tokens.js';
import { ADMIN, basic, type TestServer } from '../harness.js';

export interface Account {
  username: string;
  password: string;
}

type Headers = Record<string, string>;
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface MatrixFixture {
  server: TestServer;
  /** The game every row runs against, owned by `owner`. */
  game: string;
  /** A second game of the same owner; every collaborator of `game` holds the same groups there. */
  otherGame: string;
  owner: Account;
  admin: Account;
  /** An account with no part in either game. */
  stranger: Account;
  /** A collaborator of both games whose group grants nothing (level 0): the caller of "any user" routes. */
  member: Account;
  /** The collaborator holding exactly `key` at `level` (and nothing else) in every fixture game. */
  holder(key: string, level: Level): Promise<Account>;
  /**
   * Headers carrying a valid credential of that kind (a JWT is issued for `apiKey`, default `game`, limited to
   * `scope` when one is named).
   */
  credential(kind: CredentialKind, who: Account, apiKey?: string, scope?: string): Promise<Headers>;
  /** Headers carrying an expired access token or JWT (for `game`) of someone made ready before the clock moved. */
  expired(kind: 'token' | 'jwt', who: Account): Headers;
  newAccount(prefix?: string): Promise<Account>;
  /** A new game owned by `owner` (default: the fixture owner) with every fixture collaborator and group. */
  newGame(owner?: Account): Promise<string>;
  /** Sends a request as `who` (access token) and fails unless it answers 2xx; for preparing success cases. */
  as(who: Account, method: Method, url: string, body?: unknown): Promise<unknown>;
  inject(method: Method, url: string, headers: Headers, body?: unknown): Promise<LightMyRequestResponse>;
  unique(prefix: string): string;
}

const PASSWORD = 'matrix-password-1';

export async function createMatrixFixture(
  server: TestServer,
  holders: [string, Level][],
  expiredFor: (fx: MatrixFixture) => Promise<Account[]>,
): Promise<MatrixFixture> {
  let counter = 0;
  const tokens = new Map<string, string>();
  const jwts = new Map<string, string>();
  const expiredTokens = new Map<string, Headers>();
  const holderAccounts = new Map<string, Account>();
  /** Every collaborator of the fixture games: group name → permissions and members. */
  const groups = new Map<string, { permissions: Record<string, Level>; members: string[] }>();
  const games: string[] = [];

  const inject: MatrixFixture['inject'] = (method, url, headers, body) =>
    server.app.inject({
      method,
      url,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  async function login(who: Account): Promise<string> {
    const res = await inject('GET', '/restv2/auth/user', {
      authorization: basic(who.username, who.password),
    });
    if (res.statusCode !== 200) throw new Error(`login of ${who.username}: ${res.statusCode} ${res.body}`);
    return res.json()['X-SVCAccessToken'];
  }

  async function token(who: Account): Promise<string> {
    let t = tokens.get(who.username);
    if (!t) {
      t = await login(who);
      tokens.set(who.username, t);
    }
    return t;
  }

  async function issueJwt(who: Account, apiKey: string, query = ''): Promise<string> {
    const res = await inject('GET', `/restv2/auth/game/${apiKey}/jwt${query}`, {
      'x-svcaccesstoken': await token(who),
    });
    if (res.statusCode !== 200) throw new Error(`jwt of ${who.username}: ${res.statusCode} ${res.body}`);
    return res.json()['X-SVC-JWT'];
  }

  const as: MatrixFixture['as'] = async (who, method, url, body) => {
    const res = await inject(method, url, { 'x-svcaccesstoken': await token(who) }, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url} as ${who.username}: ${res.body}`);
    return res.body ? res.json() : undefined;
  };

  const admin = { username: ADMIN.username, password: ADMIN.password };
  const unique = (prefix: string) => `${prefix}${++counter}-${Date.now().toString(36)}`;

  async function newAccount(prefix = 'user'): Promise<Account> {
    const account = { username: `${unique(prefix)}@matrix.test`, password: PASSWORD };
    await as(admin, 'POST', '/restv2/auth/users', { ...account, country: 'FR' });
    return account;
  }

  async function addToGame(apiKey: string, group: string): Promise<void> {
    const g = groups.get(group);
    if (!g) return;
    await as(owner, 'POST', `/restv2/auth/game/${apiKey}/groups`, {
      name: group,
      permissions: g.permissions,
    });
    for (const email of g.members) {
      await as(owner, 'POST', `/restv2/auth/game/${apiKey}/collaborators`, { email, groupNames: [group] });
    }
  }

  async function createGame(by: Account): Promise<string> {
    const game = (await as(by, 'POST', '/restv2/games', { name: unique('game') })) as { apiKey: string };
    return game.apiKey;
  }

  async function holder(key: string, level: Level): Promise<Account> {
    const name = `m-${key}-${level}`;
    const known = holderAccounts.get(name);
    if (known) return known;
    const account = await newAccount(`${key}.${level}.`);
    holderAccounts.set(name, account);
    groups.set(name, { permissions: { [key]: level }, members: [account.username] });
    for (const apiKey of games) await addToGame(apiKey, name);
    return account;
  }

  const owner = await newAccount('owner');
  const stranger = await newAccount('stranger');
  games.push(await createGame(owner), await createGame(owner));
  const [game, otherGame] = games as [string, string];

  const fx: MatrixFixture = {
    server,
    game,
    otherGame,
    owner,
    admin,
    stranger,
    member: await holder('game', 0),
    holder,
    async credential(kind, who, apiKey = game, scope = undefined): Promise<Headers> {
      if (kind === 'basic') return { authorization: basic(who.username, who.password) };
      if (kind === 'token') return { 'x-svcaccesstoken': await token(who) };
      const cacheKey = `${who.username} ${apiKey} ${scope ?? ''}`;
      let jwt = jwts.get(cacheKey);
      if (!jwt) {
        jwt = await issueJwt(who, apiKey, scope ? `/${scope}` : '');
        jwts.set(cacheKey, jwt);
      }
      return { 'x-svc-jwt': jwt };
    },
    expired(kind, who) {
      const headers = expiredTokens.get(`${kind} ${who.username}`);
      if (!headers) throw new Error(`no expired ${kind} was made for ${who.username}`);
      return headers;
    },
    newAccount,
    async newGame(by = owner) {
      const apiKey = await createGame(by);
      if (by === owner) {
        games.push(apiKey);
        for (const name of groups.keys()) await addToGame(apiKey, name);
      }
      return apiKey;
    },
    as,
    inject,
    unique,
  };

  for (const [key, level] of holders) await holder(key, level);
  // Credentials that expire: issued for one second, then the server's clock moves on by two.
  for (const who of await expiredFor(fx)) {
    // Straight from the token module: the login route would spend a scrypt on each.
    const t = await issueAccessToken(server.store.pool, who.username, server.now.value, 1);
    expiredTokens.set(`token ${who.username}`, { 'x-svcaccesstoken': t.token });
    if (who !== admin) {
      const jwt = await issueJwt(who, game, '?expireInSeconds=1');
      expiredTokens.set(`jwt ${who.username}`, { 'x-svc-jwt': jwt });
    }
  }
  server.now.advance(2000);
  return fx;
}
