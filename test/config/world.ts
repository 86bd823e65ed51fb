// Shared setup of the configuration tests: a server, an owner with two games, and helpers to call it.
import type { LightMyRequestResponse } from 'fastify';
import { basic, startTestServer, type TestServer } from '../harness.js';

export type Headers = Record<string, string>;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ConfigWorld {
  server: TestServer;
  apiKey: string;
  /** A second game of the same owner. */
  otherApiKey: string;
  ownerName: string;
  /** The owner's access token. */
  owner: Headers;
  /** `/restv2/game/{apiKey}/config` of the first game. */
  base: string;
  call(method: Method, url: string, as: Headers, body?: unknown): Promise<LightMyRequestResponse>;
  /** Calls as the owner and fails the test unless the answer is 2xx; returns the parsed body. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
  ok(method: Method, url: string, body?: unknown): Promise<any>;
  /** A new account added to the first game in `groups`; answers its access-token headers. */
  collaborator(groups: string[], seconds?: number): Promise<Headers>;
  jwt(as: Headers, apiKey: string, seconds?: number): Promise<Headers>;
  close(): Promise<void>;
}

export const PASSWORD = 'config-password-1';
let counter = 0;

export async function createAccount(server: TestServer, username: string): Promise<void> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/restv2/auth/users',
    headers: { authorization: server.adminBasic },
    payload: { username, password: PASSWORD, country: 'GB' },
  });
  if (res.statusCode !== 201) throw new Error(`account: ${res.statusCode} ${res.body}`);
}

export async function tokenOf(server: TestServer, username: string, seconds?: number): Promise<Headers> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/restv2/auth/user${seconds ? `?expireInSeconds=${seconds}` : ''}`,
    headers: { authorization: basic(username, PASSWORD) },
  });
  if (res.statusCode !== 200) throw new Error(`token: ${res.statusCode} ${res.body}`);
  return { 'x-svcaccesstoken': res.json()['X-SVCAccessToken'] as string };
}

export async function startConfigWorld(env: Record<string, string> = {}): Promise<ConfigWorld> {
  const server = await startTestServer(env);
  const call = (method: Method, url: string, as: Headers, body?: unknown) =>
    server.app.inject({
      method,
      url,
      headers: body === undefined ? as : { ...as, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const ownerName = `owner${++counter}-${process.pid}@config.test`;
  await createAccount(server, ownerName);
  const owner = await tokenOf(server, ownerName);
  const newGame = async (name: string) => {
    const res = await call('POST', '/restv2/games', owner, { name });
    if (res.statusCode !== 201) throw new Error(`game: ${res.statusCode} ${res.body}`);
    return res.json().apiKey as string;
  };
  const apiKey = await newGame('Config game');
  const otherApiKey = await newGame('Other game');
  const ok = async (method: Method, url: string, body?: unknown) => {
    const res = await call(method, url, owner, body);
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.body ? res.json() : undefined;
  };
  const jwt = async (as: Headers, key: string, seconds?: number) => {
    const res = await call(
      'GET',
      `/restv2/auth/game/${key}/jwt${seconds ? `?expireInSeconds=${seconds}` : ''}`,
      as,
    );
    if (res.statusCode !== 200) throw new Error(`jwt: ${res.statusCode} ${res.body}`);
    return { 'x-svc-jwt': res.json()['X-SVC-JWT'] as string };
  };
  const collaborator = async (groups: string[], seconds?: number) => {
    const email = `collab${++counter}-${process.pid}@config.test`;
    await createAccount(server, email);
    await ok('POST', `/restv2/auth/game/${apiKey}/collaborators`, { email, groupNames: groups });
    return tokenOf(server, email, seconds);
  };
  return {
    server,
    apiKey,
    otherApiKey,
    ownerName,
    owner,
    base: `/restv2/game/${apiKey}/config`,
    call,
    ok,
    collaborator,
    jwt,
    close: () => server.close(),
  };
}

/** An event with two attributes, in the shape of the interface document's examples. */
export const WIN_RACE = {
  name: 'Win Race',
  shortCode: 'winRace',
  description: 'A player won a race',
  '~attributes': [
    { name: 'Score', shortCode: 'SCORE', dataType: 'int', defaultAggregationType: 'MAX' },
    { name: 'Track', shortCode: 'TRACK', dataType: 'string', defaultAggregationType: 'GROUPED' },
  ],
};
