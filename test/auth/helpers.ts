// Small request helpers shared by the auth tests: log in, create accounts and games, get JWTs.
import type { LightMyRequestResponse } from 'fastify';
import { basic, type TestServer } from '../harness.js';

export type Headers = Record<string, string>;

export function call(
  server: TestServer,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Headers = {},
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return server.app.inject({
    method,
    url,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Access token of an account (GET /restv2/auth/user with Basic); fails the test on anything but 200. */
export async function login(server: TestServer, username: string, password: string): Promise<string> {
  const res = await call(server, 'GET', '/restv2/auth/user', { authorization: basic(username, password) });
  if (res.statusCode !== 200) throw new Error(`login ${username}: ${res.statusCode} ${res.body}`);
  return res.json()['X-SVCAccessToken'];
}

export const tokenHeader = (token: string): Headers => ({ 'x-svcaccesstoken': token });
export const jwtHeader = (jwt: string): Headers => ({ 'x-svc-jwt': jwt });

export async function adminToken(server: TestServer): Promise<string> {
  const res = await call(server, 'GET', '/restv2/auth/user', { authorization: server.adminBasic });
  return res.json()['X-SVCAccessToken'];
}

export interface User {
  username: string;
  password: string;
  token: string;
}

/** A new account (created by the administrator) and its access token. */
export async function createUser(server: TestServer, username: string, country = 'FR'): Promise<User> {
  const password = `${username.split('@')[0]}-password`;
  const res = await call(server, 'POST', '/restv2/auth/users', tokenHeader(await adminToken(server)), {
    username,
    password,
    country,
  });
  if (res.statusCode !== 201) throw new Error(`create ${username}: ${res.statusCode} ${res.body}`);
  return { username, password, token: await login(server, username, password) };
}

export async function createGame(server: TestServer, owner: User, name = 'a game'): Promise<string> {
  const res = await call(server, 'POST', '/restv2/games', tokenHeader(owner.token), { name });
  if (res.statusCode !== 201) throw new Error(`create game: ${res.statusCode} ${res.body}`);
  return res.json().apiKey;
}

export async function addCollaborator(
  server: TestServer,
  owner: User,
  apiKey: string,
  email: string,
  groupNames: string[],
): Promise<void> {
  const res = await call(
    server,
    'POST',
    `/restv2/auth/game/${apiKey}/collaborators`,
    tokenHeader(owner.token),
    {
      email,
      groupNames,
    },
  );
  if (res.statusCode !== 201) throw new Error(`add collaborator: ${res.statusCode} ${res.body}`);
}

/** The X-SVC-JWT of a user for a game (optionally scoped, optionally with a query string). */
export async function issueJwt(server: TestServer, user: User, apiKey: string, suffix = ''): Promise<string> {
  const res = await call(server, 'GET', `/restv2/auth/game/${apiKey}/jwt${suffix}`, tokenHeader(user.token));
  if (res.statusCode !== 200) throw new Error(`jwt: ${res.statusCode} ${res.body}`);
  return res.json()['X-SVC-JWT'];
}

/** Header and payload of a JWT, without verifying it. */
export function decodeJwt(jwt: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [h, p] = jwt.split('.') as [string, string];
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString('utf8')),
    claims: JSON.parse(Buffer.from(p, 'base64url').toString('utf8')),
  };
}
