// Admin screens, snippets and queries through the server: CRUD by short code, validation, permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './world.js';

let w: World;
let base: string;

beforeAll(async () => {
  w = await startWorld();
  base = `/restv2/game/${w.apiKey}/manage`;
});
afterAll(async () => {
  await w.server.close();
});

describe('screens', () => {
  it('create, get, list, update, delete → each answers the stored screen, then 404', async () => {
    const screen = { shortCode: 'players', name: 'Players', template: '<h1>{{x}}</h1>', groups: ['Ops'] };
    const created = await w.call('POST', `${base}/screens`, w.owner, screen);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual(screen);

    expect((await w.call('GET', `${base}/screens/players`, w.owner)).json()).toEqual(screen);
    expect((await w.call('GET', `${base}/screens`, w.owner)).json()).toEqual([screen]);

    const updated = await w.call('PUT', `${base}/screens/players`, w.owner, {
      name: 'All players',
      template: 'T',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({ shortCode: 'players', name: 'All players', template: 'T', groups: [] });
    expect((await w.call('GET', `${base}/screens/players`, w.owner)).json().name).toBe('All players');

    const deleted = await w.call('DELETE', `${base}/screens/players`, w.owner);
    expect(deleted.json()).toEqual({ message: 'SUCCESS' });
    const gone = await w.call('GET', `${base}/screens/players`, w.owner);
    expect([gone.statusCode, gone.json().code]).toEqual([404, 'MANAGE_ITEM_NOT_FOUND']);
  });

  it('create with a short code already used → 409 MANAGE_ITEM_EXISTS', async () => {
    await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'dup', name: 'One' });
    const again = await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'dup', name: 'Two' });
    expect([again.statusCode, again.json().code]).toEqual([409, 'MANAGE_ITEM_EXISTS']);
    expect((await w.call('GET', `${base}/screens/dup`, w.owner)).json().name).toBe('One');
  });

  it('missing name, unknown field, bad short code → 400 VALIDATION_FAILED naming the field', async () => {
    const noName = await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'a' });
    expect([noName.statusCode, noName.json().code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(noName.json().details[0].field).toBe('body.name');

    const extra = await w.call('POST', `${base}/screens`, w.owner, {
      shortCode: 'a',
      name: 'A',
      script: 'x',
    });
    expect(extra.json().details[0].field).toBe('body.script');

    const badCode = await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'a b', name: 'A' });
    expect([badCode.statusCode, badCode.json().details[0].field]).toEqual([400, 'body.shortCode']);

    const groups = await w.call('POST', `${base}/screens`, w.owner, {
      shortCode: 'g',
      name: 'G',
      groups: [{}],
    });
    expect(groups.statusCode).toBe(400);
  });

  it('update naming another short code in the body → 400 MANAGE_SHORT_CODE_MISMATCH, nothing changed', async () => {
    await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'keep', name: 'Keep' });
    const res = await w.call('PUT', `${base}/screens/keep`, w.owner, { shortCode: 'other', name: 'X' });
    expect([res.statusCode, res.json().code]).toEqual([400, 'MANAGE_SHORT_CODE_MISMATCH']);
    expect((await w.call('GET', `${base}/screens/keep`, w.owner)).json().name).toBe('Keep');
  });

  it('update or delete of an unknown short code → 404 MANAGE_ITEM_NOT_FOUND', async () => {
    const put = await w.call('PUT', `${base}/screens/nope`, w.owner, { name: 'N' });
    const del = await w.call('DELETE', `${base}/screens/nope`, w.owner);
    expect([put.statusCode, put.json().code, del.statusCode]).toEqual([404, 'MANAGE_ITEM_NOT_FOUND', 404]);
  });
});

describe('snippets and queries', () => {
  it('snippet → script and scriptData kept, defaults filled', async () => {
    const res = await w.call('POST', `${base}/snippets`, w.owner, {
      shortCode: 'grant',
      name: 'Grant coins',
      script: 'Spark.getLog().info(1)',
      scriptData: { coins: 5, nested: { a: [1, 2] } },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({
      shortCode: 'grant',
      name: 'Grant coins',
      template: '',
      groups: [],
      script: 'Spark.getLog().info(1)',
      scriptData: { coins: 5, nested: { a: [1, 2] } },
    });
    const bad = await w.call('POST', `${base}/snippets`, w.owner, {
      shortCode: 's',
      name: 'S',
      scriptData: [1],
    });
    expect(bad.statusCode).toBe(400);
  });

  it('query → stored with its sort order exactly as sent', async () => {
    const query = {
      shortCode: 'topPlayers',
      name: 'Top players',
      collection: 'player',
      query: { level: { $gte: 10 }, 'stats.wins': { $exists: true } },
      fields: { userName: 1, level: 1 },
      sort: { zeta: -1, alpha: 1, level: -1 },
      limit: 50,
      groups: [],
    };
    expect((await w.call('POST', `${base}/queries`, w.owner, query)).statusCode).toBe(201);
    const got = await w.call('GET', `${base}/queries/topPlayers`, w.owner);
    expect(got.json()).toEqual(query);
    expect(Object.keys(got.json().sort)).toEqual(['zeta', 'alpha', 'level']);
  });

  it('query with an unknown operator or a bad sort → 400 MANAGE_QUERY_INVALID', async () => {
    const op = await w.call('POST', `${base}/queries`, w.owner, {
      shortCode: 'q1',
      name: 'Q',
      collection: 'player',
      query: { level: { $near: 1 } },
    });
    expect([op.statusCode, op.json().code]).toEqual([400, 'MANAGE_QUERY_INVALID']);
    const sort = await w.call('POST', `${base}/queries`, w.owner, {
      shortCode: 'q2',
      name: 'Q',
      collection: 'player',
      sort: { level: 2 },
    });
    expect([sort.statusCode, sort.json().code]).toEqual([400, 'MANAGE_QUERY_INVALID']);
    const none = await w.call('POST', `${base}/queries`, w.owner, { shortCode: 'q3', name: 'Q' });
    expect([none.statusCode, none.json().details[0].field]).toEqual([400, 'body.collection']);
    expect((await w.call('GET', `${base}/queries/q1`, w.owner)).statusCode).toBe(404);
  });
});

describe('permissions', () => {
  it('ReadOnly collaborator → reads 200, every write 403 PERMISSION_DENIED', async () => {
    await w.call('POST', `${base}/screens`, w.owner, { shortCode: 'ro', name: 'RO' });
    expect((await w.call('GET', `${base}/screens`, w.readOnly)).statusCode).toBe(200);
    expect((await w.call('GET', `${base}/snippets`, w.readOnly)).statusCode).toBe(200);
    const writes = [
      await w.call('POST', `${base}/screens`, w.readOnly, { shortCode: 'x', name: 'X' }),
      await w.call('PUT', `${base}/screens/ro`, w.readOnly, { name: 'X' }),
      await w.call('DELETE', `${base}/screens/ro`, w.readOnly),
      await w.call('POST', `${base}/queries`, w.readOnly, { shortCode: 'x', name: 'X', collection: 'c' }),
    ];
    expect(writes.map((r) => [r.statusCode, r.json().code])).toEqual(
      Array(4).fill([403, 'PERMISSION_DENIED']),
    );
    expect((await w.call('GET', `${base}/screens/ro`, w.owner)).json().name).toBe('RO');
  });

  it('JWT of another game → 403 JWT_WRONG_GAME; expired token → 401; none → 401', async () => {
    const jwt = await w.call('GET', `${base}/screens`, w.otherGameJwt);
    const expired = await w.call('POST', `${base}/screens`, w.expired, { shortCode: 'e', name: 'E' });
    const none = await w.call('GET', `${base}/queries`, {});
    expect([jwt.statusCode, jwt.json().code]).toEqual([403, 'JWT_WRONG_GAME']);
    expect([expired.statusCode, expired.json().code]).toEqual([401, 'TOKEN_EXPIRED']);
    expect([none.statusCode, none.json().code]).toEqual([401, 'AUTH_REQUIRED']);
  });

  it('a game the caller has no part in → 403 GAME_ACCESS_DENIED', async () => {
    const res = await w.call('GET', `/restv2/game/${w.otherApiKey}/manage/screens`, w.readOnly);
    expect([res.statusCode, res.json().code]).toEqual([403, 'GAME_ACCESS_DENIED']);
  });
});
