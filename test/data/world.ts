// Test world of the data service and the exports: a server with its own data folder, a game with declared data
// types published to Live, and JWTs of the owner, a DataExplorer collaborator and a ReadOnly collaborator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify';
import { registerAdminRoutes } from '../../src/admin/routes.js';
import type { RoleRegistrar } from '../../src/route/app.js';
import { basic, startTestServer, type TestServer } from '../harness.js';

export type Headers = Record<string, string>;
export type Stage = 'live' | 'preview';

export interface DataWorld {
  server: TestServer;
  apiKey: string;
  /** A second game of the same owner, with the same types. */
  otherApiKey: string;
  dataDir: string;
  owner: Headers;
  /** Collaborator in the DataExplorer group: nosql 1, nosql.dataExplorer 1. */
  explorer: Headers;
  /** Collaborator in the ReadOnly group: nosql 1, nosql.dataExplorer 0. */
  reader: Headers;
  call(method: string, url: string, as: Headers, body?: unknown): Promise<LightMyRequestResponse>;
  /** `/{stage}/restv2/game/{apiKey}/data/{path}` as the owner (or `as`). */
  data(
    method: string,
    stage: Stage,
    path: string,
    body?: unknown,
    as?: Headers,
  ): Promise<LightMyRequestResponse>;
  jwtOf(username: string, game: string, query?: string): Promise<Headers>;
  close(): Promise<void>;
}

export const PASSWORD = 'data-password-1';
export const TYPES = [
  {
    shortCode: 'Score',
    name: 'Scores',
    fields: [
      { name: 'player', type: 'string' },
      { name: 'points', type: 'number' },
    ],
  },
  { shortCode: 'Note', name: 'Notes', fields: [{ name: 'title', type: 'string' }] },
];

// The admin routes (snapshots, publish) join the server here until the server registers them itself.
const adminRoutes: RoleRegistrar = (app, ctx) => {
  if (!app.hasRoute({ method: 'POST', url: '/restv2/game/:apiKey/admin/snapshots' }))
    registerAdminRoutes(app, ctx);
};

let accounts = 0;

export async function startDataWorld(
  env: Record<string, string> = {},
  logger?: FastifyBaseLogger,
): Promise<DataWorld> {
  const dataDir = mkdtempSync(join(tmpdir(), 'playbase-data-test-'));
  const server = await startTestServer(
    {
      PLAYBASE_DATA_DIR: dataDir,
      PLAYBASE_LIMIT_USER_PER_MINUTE: '0',
      PLAYBASE_LIMIT_GAME_PER_MINUTE: '0',
      ...env,
    },
    { extraRegistrars: [adminRoutes], ...(logger ? { logger } : {}) },
  );
  // The real time, so that the export files' modification times and the server clock agree.
  server.now.value = Date.now();
  const call = (method: string, url: string, as: Headers, body?: unknown) =>
    server.app.inject({
      method: method as 'GET',
      url,
      headers: body === undefined ? as : { ...as, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const must = async (res: Promise<LightMyRequestResponse>, what: string) => {
    const r = await res;
    if (r.statusCode >= 300) throw new Error(`${what}: ${r.statusCode} ${r.body}`);
    return r.body ? r.json() : undefined;
  };
  const admin = { authorization: server.adminBasic };
  const n = ++accounts;
  const names = { explorer: `explorer${n}@data.test`, reader: `reader${n}@data.test` };
  for (const username of Object.values(names)) {
    await must(
      call('POST', '/restv2/auth/users', admin, { username, password: PASSWORD, country: 'GB' }),
      'account',
    );
  }
  const newGame = async (name: string) => {
    const { apiKey } = await must(call('POST', '/restv2/games', admin, { name }), 'game');
    for (const t of TYPES)
      await must(call('POST', `/restv2/game/${apiKey}/config/~indexedTypes`, admin, t), 'type');
    const snap = await must(
      call('POST', `/restv2/game/${apiKey}/admin/snapshots`, admin, { description: 'v1' }),
      'snapshot',
    );
    await must(call('POST', `/restv2/game/${apiKey}/admin/snapshots/${snap.id}/publish`, admin), 'publish');
    return apiKey as string;
  };
  const apiKey = await newGame('Data game');
  const otherApiKey = await newGame('Other data game');
  const collaborate = (email: string, group: string) =>
    must(
      call('POST', `/restv2/auth/game/${apiKey}/collaborators`, admin, { email, groupNames: [group] }),
      'collaborator',
    );
  await collaborate(names.explorer, 'DataExplorer');
  await collaborate(names.reader, 'ReadOnly');
  const jwtOf = async (username: string, game: string, query = '') => {
    const as = username === 'admin' ? admin : { authorization: basic(username, PASSWORD) };
    const body = await must(call('GET', `/restv2/auth/game/${game}/jwt${query}`, as), 'jwt');
    return { 'x-svc-jwt': body['X-SVC-JWT'] as string };
  };
  const owner = await jwtOf('admin', apiKey);
  const world: DataWorld = {
    server,
    apiKey,
    otherApiKey,
    dataDir,
    owner,
    explorer: await jwtOf(names.explorer, apiKey),
    reader: await jwtOf(names.reader, apiKey),
    call,
    data: (method, stage, path, body, as) =>
      call(method, `/${stage}/restv2/game/${apiKey}/data/${path}`, as ?? owner, body),
    jwtOf,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return world;
}
