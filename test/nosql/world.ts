// Test world for the nosql role: a server, a game owned by the administrator, its JWT, and request helpers.
import { expect } from 'vitest';
import type { RoleRegistrar } from '../../src/route/app.js';
import { basic, startTestServer, type TestServer } from '../harness.js';

export type StageName = 'live' | 'preview' | (string & {});

export interface World {
  server: TestServer;
  apiKey: string;
  jwt: string;
  /** POST/GET/DELETE on {stage}/restv2/game/{apiKey}/mongo/{path} with the owner's JWT (or `headers`). */
  call(
    method: 'GET' | 'POST' | 'DELETE',
    stage: StageName,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: unknown; text: string; headers: Record<string, unknown> }>;
  /** call() that expects 200 and answers the parsed body. */
  ok<T = unknown>(
    method: 'GET' | 'POST' | 'DELETE',
    stage: StageName,
    path: string,
    body?: unknown,
  ): Promise<T>;
  jwtFor(username: string, password: string, query?: string): Promise<string>;
  close(): Promise<void>;
}

// Rate limits off: these suites send far more than 300 requests a minute.
const NO_LIMITS = { PLAYBASE_LIMIT_USER_PER_MINUTE: '0', PLAYBASE_LIMIT_GAME_PER_MINUTE: '0' };

export async function createWorld(extraRegistrars: RoleRegistrar[] = []): Promise<World> {
  const server = await startTestServer(NO_LIMITS, { extraRegistrars });
  const game = await server.app.inject({
    method: 'POST',
    url: '/restv2/games',
    headers: { authorization: server.adminBasic },
    payload: { name: 'nosql test' },
  });
  expect(game.statusCode).toBe(201);
  const apiKey = (game.json() as { apiKey: string }).apiKey;

  async function jwtFor(username: string, password: string, query = ''): Promise<string> {
    const res = await server.app.inject({
      method: 'GET',
      url: `/restv2/auth/game/${apiKey}/jwt${query}`,
      headers: { authorization: basic(username, password) },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { 'X-SVC-JWT': string })['X-SVC-JWT'];
  }
  const jwt = await jwtFor('admin@playbase.test', 'admin-password-1');

  const world: World = {
    server,
    apiKey,
    jwt,
    jwtFor,
    async call(method, stage, path, body, headers) {
      const sent: Record<string, string> = { ...(headers ?? { 'x-svc-jwt': jwt }) };
      if (body !== undefined && !Object.keys(sent).some((k) => k.toLowerCase() === 'content-type')) {
        sent['content-type'] = 'application/json';
      }
      const res = await server.app.inject({
        method,
        url: `/${stage}/restv2/game/${apiKey}/mongo/${path}`,
        headers: sent,
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      let json: unknown;
      try {
        json = JSON.parse(res.body);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json, text: res.body, headers: res.headers };
    },
    async ok(method, stage, path, body) {
      const res = await world.call(method, stage, path, body);
      if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status} ${res.text}`);
      return res.json as never;
    },
    close: () => server.close(),
  };
  return world;
}
