// Shared setup of the administration tests: a server, an owner with a game, a ReadOnly collaborator, bad credentials.
import type { LightMyRequestResponse } from 'fastify';
import { basic, startTestServer, type TestServer } from '../harness.js';

export type Headers = Record<string, string>;

export interface World {
  server: TestServer;
  apiKey: string;
  /** Another game of the same owner. */
  otherApiKey: string;
  owner: Headers;
  ownerName: string;
  /** A collaborator in the ReadOnly group. */
  readOnly: Headers;
  readerName: string;
  /** A JWT of the owner, issued for the other game. */
  otherGameJwt: Headers;
  /** An access token past its expiry. */
  expired: Headers;
  call(method: string, url: string, as: Headers, body?: unknown): Promise<LightMyRequestResponse>;
}

let accounts = 0;

export async function createAccount(server: TestServer, username: string, password: string): Promise<void> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/restv2/auth/users',
    headers: { authorization: server.adminBasic },
    payload: { username, password, country: 'GB' },
  });
  if (res.statusCode !== 201) throw new Error(`account: ${res.statusCode} ${res.body}`);
}

export async function tokenOf(server: TestServer, username: string, password: string, seconds?: number) {
  const res = await server.app.inject({
    method: 'GET',
    url: `/restv2/auth/user${seconds ? `?expireInSeconds=${seconds}` : ''}`,
    headers: { authorization: basic(username, password) },
  });
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return { 'x-svcaccesstoken': res.json()['X-SVCAccessToken'] as string };
}

export async function createGameAs(server: TestServer, as: Headers, name: string): Promise<string> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/restv2/games',
    headers: as,
    payload: { name },
  });
  if (res.statusCode !== 201) throw new Error(`game: ${res.statusCode} ${res.body}`);
  return res.json().apiKey as string;
}

export async function startWorld(
  env: Record<string, string> = {},
  /** Where the server's clock starts (ms); peers that judge tokens by real time need the real time. */
  startAt?: number,
): Promise<World> {
  const server = await startTestServer(env);
  if (startAt !== undefined) server.now.value = startAt;
  const n = ++accounts;
  const ownerName = `owner${n}@admin.test`;
  const password = 'owner-password-1';
  await createAccount(server, ownerName, password);
  await createAccount(server, `reader${n}@admin.test`, password);
  const owner = await tokenOf(server, ownerName, password);
  const apiKey = await createGameAs(server, owner, 'Admin game');
  const otherApiKey = await createGameAs(server, owner, 'Other game');
  const added = await server.app.inject({
    method: 'POST',
    url: `/restv2/auth/game/${apiKey}/collaborators`,
    headers: owner,
    payload: { email: `reader${n}@admin.test`, groupNames: ['ReadOnly'] },
  });
  if (added.statusCode !== 201) throw new Error(`collaborator: ${added.statusCode} ${added.body}`);
  const readOnly = await tokenOf(server, `reader${n}@admin.test`, password);
  const jwt = await server.app.inject({
    method: 'GET',
    url: `/restv2/auth/game/${otherApiKey}/jwt`,
    headers: owner,
  });
  const otherGameJwt = { 'x-svc-jwt': jwt.json()['X-SVC-JWT'] as string };
  const expired = await tokenOf(server, ownerName, password, 60);
  // Every later request runs two minutes on: the short token is expired, the others are not.
  server.now.advance(120_000);
  const call = (method: string, url: string, as: Headers, body?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: as,
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
  return {
    server,
    apiKey,
    otherApiKey,
    owner,
    ownerName,
    readOnly,
    readerName: `reader${n}@admin.test`,
    otherGameJwt,
    expired,
    call,
  };
}
