// Who may call the nosql routes: JWT only, nosql level 1 to read, 2 to write, nosql.admin 2 to administer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN } from '../harness.js';
import { createWorld, type World } from './world.js';

let w: World;
const PASSWORD = 'collaborator-password-1';

async function inject(method: 'GET' | 'POST', url: string, payload?: unknown, auth = w.server.adminBasic) {
  return w.server.app.inject({
    method,
    url,
    headers: { authorization: auth },
    ...(payload ? { payload } : {}),
  });
}

async function collaborator(email: string, groupNames: string[]): Promise<string> {
  const made = await inject('POST', '/restv2/auth/users', {
    username: email,
    password: PASSWORD,
    country: 'FR',
  });
  expect(made.statusCode).toBe(201);
  const added = await inject('POST', `/restv2/auth/game/${w.apiKey}/collaborators`, { email, groupNames });
  expect(added.statusCode).toBe(201);
  return w.jwtFor(email, PASSWORD);
}

let explorer: string;
let writer: string;
beforeAll(async () => {
  w = await createWorld();
  const group = await inject('POST', `/restv2/auth/game/${w.apiKey}/groups`, {
    name: 'Writers',
    permissions: { nosql: 2, 'nosql.admin': 0 },
  });
  expect(group.statusCode).toBe(201);
  explorer = await collaborator('explorer@playbase.test', ['DataExplorer']);
  writer = await collaborator('writer@playbase.test', ['Writers']);
});
afterAll(async () => {
  await w.close();
});

const as = (jwt: string) => ({ 'x-svc-jwt': jwt });

describe('permissions', () => {
  it('DataExplorer collaborator (nosql 1) → reads pass, every write 403 PERMISSION_DENIED', async () => {
    expect((await w.call('POST', 'preview', 'collection/player/find', {}, as(explorer))).status).toBe(200);
    expect((await w.call('GET', 'preview', 'collections', undefined, as(explorer))).status).toBe(200);
    expect((await w.call('POST', 'preview', 'collection/player/aggregate', [], as(explorer))).status).toBe(
      200,
    );
    for (const [method, path, body] of [
      ['POST', 'collection/player/insert', { a: 1 }],
      ['POST', 'collection/player/save', { a: 1 }],
      ['POST', 'collection/player/update', { query: { a: 1 }, update: { $set: { b: 1 } } }],
      ['POST', 'collection/player/remove', { query: { a: 1 } }],
      ['POST', 'collection/player/index/a_1', { a: 1 }],
      ['POST', 'collection/x/runtime', undefined],
    ] as const) {
      const res = await w.call(method, 'preview', path, body, as(explorer));
      expect(res.status, path).toBe(403);
      expect(res.json).toMatchObject({ code: 'PERMISSION_DENIED' });
    }
    expect(await w.ok('POST', 'preview', 'collection/player/count', {})).toEqual({ count: 0 });
  });

  it('nosql 2 without nosql.admin → writes pass, index, drop, meta and runtime creation 403', async () => {
    expect((await w.call('POST', 'preview', 'collection/player/insert', { a: 1 }, as(writer))).status).toBe(
      200,
    );
    for (const [method, path] of [
      ['POST', 'collection/player/index/a_1'],
      ['DELETE', 'collection/player/index/a_1'],
      ['POST', 'collection/words/meta'],
      ['POST', 'collection/counter/runtime'],
    ] as const) {
      const res = await w.call(method, 'preview', path, method === 'POST' ? { a: 1 } : undefined, as(writer));
      expect(res.status, path).toBe(403);
      expect((res.json as { message: string }).message).toContain('nosql.admin');
    }
  });
});

describe('credentials', () => {
  it('expired JWT → 401 TOKEN_EXPIRED', async () => {
    const short = await w.jwtFor(ADMIN.username, ADMIN.password, '?expireInSeconds=1');
    expect((await w.call('POST', 'preview', 'collection/player/count', {}, as(short))).status).toBe(200);
    w.server.now.advance(2000);
    const res = await w.call('POST', 'preview', 'collection/player/count', {}, as(short));
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: 'TOKEN_EXPIRED' });
  });

  it('access token or Basic instead of a JWT → 401 CREDENTIAL_NOT_ACCEPTED; nothing → 401', async () => {
    const login = await inject('GET', '/restv2/auth/user');
    const token = (login.json() as { 'X-SVCAccessToken': string })['X-SVCAccessToken'];
    const wrong: Array<Record<string, string>> = [
      { 'x-svcaccesstoken': token },
      { authorization: w.server.adminBasic },
    ];
    for (const headers of wrong) {
      const res = await w.call('POST', 'preview', 'collection/player/insert', { a: 1 }, headers);
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 'CREDENTIAL_NOT_ACCEPTED' });
    }
    const none = await w.call('GET', 'preview', 'collections', undefined, {});
    expect(none.status).toBe(401);
  });

  it("a JWT of another game → 403 JWT_WRONG_GAME, the other game's data untouched", async () => {
    const other = await inject('POST', '/restv2/games', { name: 'other' });
    const otherKey = (other.json() as { apiKey: string }).apiKey;
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/preview/restv2/game/${otherKey}/mongo/collection/player/insert`,
      headers: { 'x-svc-jwt': w.jwt, 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'JWT_WRONG_GAME' });
    const { rows } = await w.server.store.pool.query('SELECT 1 FROM nosql_documents WHERE game_id = $1', [
      otherKey,
    ]);
    expect(rows).toHaveLength(0);
  });
});
