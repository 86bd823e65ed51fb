// findAndModify and distinct over HTTP: MongoDB's answers, the actions they need, their bad bodies and credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfiguredCollections } from '../../src/nosql/collections.js';
import { registerNosqlRoutes } from '../../src/nosql/routes.js';
import type { App } from '../../src/route/app.js';
import { ADMIN } from '../harness.js';
import { createWorld, type World } from './world.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Json = any;

const fake: ConfiguredCollections = async () => ({ runningTotals: [], leaderboards: ['score-leaderboard'] });

let w: World;
beforeAll(async () => {
  w = await createWorld([
    async (app, ctx) => {
      await app.register(async (s) => registerNosqlRoutes(s as App, ctx, 'preview', { configured: fake }), {
        prefix: '/fake',
      });
    },
  ]);
});
afterAll(async () => {
  await w.close();
});

let n = 0;
/** A fresh runtime collection with these documents; its name. */
async function collectionWith(docs: Json[]): Promise<string> {
  const name = `script.fam${++n}`;
  expect((await w.call('POST', 'preview', `collection/${name}/runtime`)).status).toBe(200);
  if (docs.length > 0) await w.ok('POST', 'preview', `collection/${name}/insert`, docs);
  return name;
}
const fam = async (c: string, body: unknown): Promise<{ status: number; json: Json }> =>
  w.call('POST', 'preview', `collection/${c}/findAndModify`, body);
const find = (c: string, body: unknown = {}) => w.ok<Json[]>('POST', 'preview', `collection/${c}/find`, body);

describe('findAndModify', () => {
  it('update → the first match in sort order, answered as it was; new: true → as it is after', async () => {
    const c = await collectionWith([
      { _id: 'a', level: 5, name: 'Ada' },
      { _id: 'b', level: 9, name: 'Bo' },
    ]);
    const before = await fam(c, { query: {}, sort: { level: -1 }, update: { $inc: { level: 1 } } });
    expect(before.status).toBe(200);
    expect(before.json).toEqual({
      value: { _id: 'b', level: 9, name: 'Bo' },
      lastErrorObject: { n: 1, updatedExisting: true },
    });
    const after = await fam(c, {
      query: { _id: 'a' },
      update: { $set: { name: 'Ann' } },
      new: true,
      fields: { name: 1 },
    });
    expect(after.json).toEqual({
      value: { _id: 'a', name: 'Ann' },
      lastErrorObject: { n: 1, updatedExisting: true },
    });
    expect(await find(c, { sort: { _id: 1 } })).toEqual([
      { _id: 'a', level: 5, name: 'Ann' },
      { _id: 'b', level: 10, name: 'Bo' },
    ]);
  });

  it('a replacement document → the match replaced whole, its _id kept', async () => {
    const c = await collectionWith([{ _id: 'a', level: 5 }]);
    const res = await fam(c, { query: { _id: 'a' }, update: { level: 1, fresh: true }, new: true });
    expect(res.json.value).toEqual({ _id: 'a', level: 1, fresh: true });
  });

  it('no match → value null, n 0; with upsert → inserted from the query, upserted id, null unless new', async () => {
    const c = await collectionWith([]);
    expect((await fam(c, { query: { name: 'Cy' }, update: { $set: { level: 1 } } })).json).toEqual({
      value: null,
      lastErrorObject: { n: 0, updatedExisting: false },
    });
    const up = await fam(c, {
      query: { _id: 'cy', name: 'Cy' },
      update: { $set: { level: 1 } },
      upsert: true,
    });
    expect(up.json).toEqual({
      value: null,
      lastErrorObject: { n: 1, updatedExisting: false, upserted: 'cy' },
    });
    const upNew = await fam(c, {
      query: { name: 'Di' },
      update: { $set: { level: 2 } },
      upsert: true,
      new: true,
    });
    expect(upNew.json.value).toMatchObject({ name: 'Di', level: 2 });
    expect(upNew.json.lastErrorObject.upserted).toEqual(upNew.json.value._id);
    expect((await find(c)).length).toBe(2);
  });

  it('remove → the removed document answered, gone after; no match → n 0', async () => {
    const c = await collectionWith([
      { _id: 'a', level: 5 },
      { _id: 'b', level: 9 },
    ]);
    const res = await fam(c, { query: { level: { $gt: 1 } }, sort: { level: 1 }, remove: true });
    expect(res.json).toEqual({ value: { _id: 'a', level: 5 }, lastErrorObject: { n: 1 } });
    expect(await find(c)).toEqual([{ _id: 'b', level: 9 }]);
    expect((await fam(c, { query: { level: 100 }, remove: true })).json).toEqual({
      value: null,
      lastErrorObject: { n: 0 },
    });
  });

  it('concurrent $inc on one document → each sees its own result, none lost', async () => {
    const c = await collectionWith([{ _id: 'counter', n: 0 }]);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        fam(c, { query: { _id: 'counter' }, update: { $inc: { n: 1 } }, new: true }),
      ),
    );
    expect(answers.map((a) => a.json.value.n).sort((x: number, y: number) => x - y)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
  });

  it.each([
    ['update and remove', { query: {}, update: { $set: { a: 1 } }, remove: true }],
    ['neither update nor remove', { query: {} }],
    ['remove with upsert', { query: {}, remove: true, upsert: true }],
    ['remove with new', { query: {}, remove: true, new: true }],
    ['an unknown field', { query: {}, remove: true, limit: 1 }],
    ['new not a boolean', { query: {}, update: { $set: { a: 1 } }, new: 'yes' }],
    ['a body that is an array', [{ query: {} }]],
  ])('%s → 400 NOSQL_BAD_BODY', async (_what, body) => {
    const res = await fam(await collectionWith([]), body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_BAD_BODY' });
  });

  it('a bad filter, sort, update or projection → 400 naming the problem, nothing changed', async () => {
    const c = await collectionWith([{ _id: 'a', level: 5 }]);
    for (const body of [
      { query: { level: { $nope: 1 } }, update: { $set: { a: 1 } } },
      { query: {}, sort: { level: 2 }, update: { $set: { a: 1 } } },
      { query: {}, update: { $bogus: { a: 1 } } },
      { query: {}, update: { $set: { a: 1 } }, fields: { a: 1, b: 0 } },
    ]) {
      const res = await fam(c, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toMatch(/^(QUERY|NOSQL)_/);
    }
    expect(await find(c)).toEqual([{ _id: 'a', level: 5 }]);
  });

  it('on a Leaderboards collection → 403 NOSQL_ACTION_NOT_ALLOWED naming UPDATE or REMOVE', async () => {
    for (const [action, body] of [
      ['UPDATE', { query: {}, update: { $set: { a: 1 } } }],
      ['REMOVE', { query: {}, remove: true }],
    ] as const) {
      const res = await w.call('POST', 'fake', 'collection/score-leaderboard/findAndModify', body);
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({
        code: 'NOSQL_ACTION_NOT_ALLOWED',
        message: `${action} is not allowed on collection score-leaderboard`,
      });
    }
  });
});

describe('distinct', () => {
  const distinct = (c: string, body: unknown) => w.call('POST', 'preview', `collection/${c}/distinct`, body);

  it('values of a path, array elements each a value, equal numbers once, missing left out, in BSON order', async () => {
    const c = await collectionWith([
      { _id: 1, tag: 'b', n: 5 },
      { _id: 2, tag: ['a', 'b', ['x']], n: 5.5 },
      { _id: 3, tag: null, n: { $numberLong: '5' } },
      { _id: 4, n: 2 },
      { _id: 5, tag: [] },
      { _id: 6, sub: [{ tag: 'c' }, { tag: 'a' }] },
    ]);
    expect((await distinct(c, { key: 'tag' })).json).toEqual({ values: [null, 'a', 'b', ['x']] });
    expect((await distinct(c, { key: 'n' })).json).toEqual({ values: [2, 5, 5.5] });
    expect((await distinct(c, { key: 'sub.tag' })).json).toEqual({ values: ['a', 'c'] });
    expect((await distinct(c, { key: 'tag', query: { _id: { $lte: 1 } } })).json).toEqual({ values: ['b'] });
    expect((await distinct(c, { key: 'nowhere' })).json).toEqual({ values: [] });
  });

  it.each([
    ['no key', {}, 'NOSQL_BAD_BODY'],
    ['a key that is not a string', { key: 1 }, 'NOSQL_BAD_BODY'],
    ['an unknown field', { key: 'a', sort: { a: 1 } }, 'NOSQL_BAD_BODY'],
  ])('%s → 400 %s', async (_what, body, code) => {
    const res = await distinct(await collectionWith([]), body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code });
  });

  it('an empty or $-prefixed path, or a bad query → 400', async () => {
    const c = await collectionWith([{ a: 1 }]);
    for (const body of [{ key: '' }, { key: '$a' }, { key: 'a', query: { a: { $nope: 1 } } }]) {
      const res = await distinct(c, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
  });

  it('a collection that does not exist → 404', async () => {
    expect((await distinct('script.nowhere', { key: 'a' })).status).toBe(404);
  });
});

describe('credentials and permissions', () => {
  it('an expired JWT → 401 TOKEN_EXPIRED on both', async () => {
    const c = await collectionWith([{ a: 1 }]);
    const short = await w.jwtFor(ADMIN.username, ADMIN.password, '?expireInSeconds=1');
    w.server.now.advance(2000);
    for (const [op, body] of [
      ['findAndModify', { query: {}, remove: true }],
      ['distinct', { key: 'a' }],
    ] as const) {
      const res = await w.call('POST', 'preview', `collection/${c}/${op}`, body, { 'x-svc-jwt': short });
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ code: 'TOKEN_EXPIRED' });
    }
    expect(await find(c)).toEqual([expect.objectContaining({ a: 1 })]);
  });

  it('nosql level 1 → distinct allowed, findAndModify 403 PERMISSION_DENIED', async () => {
    const email = 'fam-explorer@playbase.test';
    const password = 'explorer-password-1';
    const admin = { authorization: w.server.adminBasic };
    const made = await w.server.app.inject({
      method: 'POST',
      url: '/restv2/auth/users',
      headers: admin,
      payload: { username: email, password, country: 'FR' },
    });
    expect(made.statusCode).toBe(201);
    const added = await w.server.app.inject({
      method: 'POST',
      url: `/restv2/auth/game/${w.apiKey}/collaborators`,
      headers: admin,
      payload: { email, groupNames: ['DataExplorer'] },
    });
    expect(added.statusCode).toBe(201);
    const jwt = { 'x-svc-jwt': await w.jwtFor(email, password) };
    const c = await collectionWith([{ a: 1 }]);
    expect((await w.call('POST', 'preview', `collection/${c}/distinct`, { key: 'a' }, jwt)).json).toEqual({
      values: [1],
    });
    const res = await w.call(
      'POST',
      'preview',
      `collection/${c}/findAndModify`,
      { query: {}, remove: true },
      jwt,
    );
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'PERMISSION_DENIED' });
  });
});
