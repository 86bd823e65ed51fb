// The aggregation stages of issue 16 over HTTP: $lookup and $unionWith read other collections of the same game
// and stage only, as a find on them would be allowed; bad operands answer 400 naming the stage; bounds hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfiguredCollections } from '../../src/nosql/collections.js';
import { checkReadable } from '../../src/nosql/foreign-reads.js';
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
async function collectionWith(docs: Json[], stage = 'preview'): Promise<string> {
  const name = `script.agg${++n}`;
  expect((await w.call('POST', stage, `collection/${name}/runtime`)).status).toBe(200);
  if (docs.length > 0) await w.ok('POST', stage, `collection/${name}/insert`, docs);
  return name;
}
const aggregate = (c: string, body: unknown, stage = 'preview', headers?: Record<string, string>) =>
  w.call('POST', stage, `collection/${c}/aggregate`, body, headers);

describe('$lookup and $unionWith over HTTP', () => {
  it('equality and pipeline $lookup, $unionWith → the joined documents of the same game and stage', async () => {
    const players = await collectionWith([
      { _id: 1, name: 'Ada', team: 't1' },
      { _id: 2, name: 'Bo', team: 't2' },
      { _id: 3, name: 'Cy' },
    ]);
    const teams = await collectionWith([
      { _id: 't1', label: 'Red', min: 1 },
      { _id: 't2', label: 'Blue', min: 5 },
      { _id: 't3', label: 'Green', min: 0 },
    ]);
    const eq = await aggregate(players, [
      { $lookup: { from: teams, localField: 'team', foreignField: '_id', as: 'teams' } },
      { $project: { _id: 1, labels: '$teams.label' } },
      { $sort: { _id: 1 } },
    ]);
    expect(eq.status).toBe(200);
    expect(eq.json).toEqual([
      { _id: 1, labels: ['Red'] },
      { _id: 2, labels: ['Blue'] },
      { _id: 3, labels: [] },
    ]);
    const piped = await aggregate(players, [
      { $sort: { _id: 1 } },
      {
        $lookup: {
          from: teams,
          let: { id: '$_id' },
          pipeline: [
            { $match: { min: { $gte: 0 } } },
            { $match: { $expr: { $lte: ['$min', '$$id'] } } },
            { $sort: { _id: 1 } },
            { $project: { _id: 1 } },
          ],
          as: 'open',
        },
      },
      { $project: { open: 1 } },
    ]);
    expect(piped.json).toEqual([
      { _id: 1, open: [{ _id: 't1' }, { _id: 't3' }] },
      { _id: 2, open: [{ _id: 't1' }, { _id: 't3' }] },
      { _id: 3, open: [{ _id: 't1' }, { _id: 't3' }] },
    ]);
    const union = await aggregate(players, [
      { $project: { name: 1 } },
      {
        $unionWith: {
          coll: teams,
          pipeline: [{ $match: { min: { $gt: 0 } } }, { $project: { name: '$label' } }],
        },
      },
      { $sort: { name: 1 } },
    ]);
    expect(union.json).toEqual([
      { _id: 1, name: 'Ada' },
      { _id: 't2', name: 'Blue' },
      { _id: 2, name: 'Bo' },
      { _id: 3, name: 'Cy' },
      { _id: 't1', name: 'Red' },
    ]);
  });

  it('a collection of another stage, one that does not exist, or a bad name → 404 / 400, nothing read', async () => {
    const here = await collectionWith([{ _id: 1 }]);
    const liveOnly = await collectionWith([{ _id: 'secret' }], 'live');
    for (const stage of [
      { $lookup: { from: liveOnly, localField: '_id', foreignField: '_id', as: 'x' } },
      { $unionWith: liveOnly },
      { $facet: { f: [{ $lookup: { from: 'script.nowhere', pipeline: [], as: 'x' } }] } },
      { $lookup: { from: here, pipeline: [{ $unionWith: 'player-nope' }], as: 'x' } },
      { $lookup: { from: 'score-leaderboard', pipeline: [], as: 'x' } },
    ]) {
      const res = await aggregate(here, [stage]);
      expect(res.status, JSON.stringify(stage)).toBe(404);
      expect(res.json).toMatchObject({ code: 'NOSQL_COLLECTION_NOT_FOUND' });
    }
    const bad = await aggregate(here, [{ $unionWith: 'a$b' }]);
    expect(bad.status).toBe(400);
    // The same names through the app whose configuration makes the leaderboard: found there.
    const res = await w.server.app.inject({
      method: 'POST',
      url: `/fake/restv2/game/${w.apiKey}/mongo/collection/${here}/aggregate`,
      headers: { 'x-svc-jwt': w.jwt, 'content-type': 'application/json' },
      payload: JSON.stringify([{ $unionWith: 'score-leaderboard' }]),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([{ _id: 1 }]);
  });

  it('a name spelled with \\u escapes is still checked', async () => {
    const here = await collectionWith([{ _id: 1 }]);
    const liveOnly = await collectionWith([{ _id: 'secret' }], 'live');
    const text = `[{"\\u0024unionWith": "${liveOnly}"}]`;
    const res = await aggregate(here, text);
    expect(res.status).toBe(404);
  });

  it.each([
    ['$lookup without as', [{ $lookup: { from: 'player', localField: 'a', foreignField: 'b' } }], '$lookup'],
    ['$lookup with localField alone', [{ $lookup: { from: 'player', localField: 'a', as: 'x' } }], '$lookup'],
    [
      '$lookup with a bad let name',
      [{ $lookup: { from: 'player', let: { X: 1 }, pipeline: [], as: 'x' } }],
      '$lookup',
    ],
    [
      '$lookup with an unknown variable',
      [{ $lookup: { from: 'player', pipeline: [{ $set: { a: '$$y' } }], as: 'x' } }],
      '$$y',
    ],
    ['$unionWith with a number', [{ $unionWith: 5 }], '$unionWith'],
    ['$facet with an array', [{ $facet: [] }], '$facet'],
    ['$facet inside $facet', [{ $facet: { a: [{ $facet: { b: [] } }] } }], '$facet'],
    ['$bucket with unsorted boundaries', [{ $bucket: { groupBy: '$a', boundaries: [5, 1] } }], '$bucket'],
    ['$bucketAuto with 0 buckets', [{ $bucketAuto: { groupBy: '$a', buckets: 0 } }], '$bucketAuto'],
    ['$sample without size', [{ $sample: {} }], '$sample'],
    ['$unset of a $ path', [{ $unset: '$a' }], '$unset'],
    ['$replaceRoot without newRoot', [{ $replaceRoot: { root: '$a' } }], '$replaceRoot'],
    ['$set of a $ name', [{ $set: { $a: 1 } }], '$set'],
    ['$sortByCount of a literal', [{ $sortByCount: 5 }], '$sortByCount'],
    ['$count accumulator with an argument', [{ $group: { _id: null, n: { $count: 1 } } }], '$group'],
  ])('%s → 400 naming it', async (_what, body, name) => {
    const c = await collectionWith([{ a: 1 }]);
    const res = await aggregate(c, body);
    expect(res.status).toBe(400);
    expect((res.json as Json).message).toContain(name);
  });

  it('operands bad only when evaluated → 400 naming the stage or operator', async () => {
    const c = await collectionWith([{ a: 1, m: 5 }]);
    for (const [body, name] of [
      [[{ $replaceWith: '$a' }], '$replaceWith'],
      [[{ $bucket: { groupBy: '$a', boundaries: [2, 3] } }], '$bucket'],
      [[{ $group: { _id: null, m: { $mergeObjects: '$m' } } }], '$mergeObjects'],
    ] as const) {
      const res = await aggregate(c, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((res.json as Json).message).toContain(name);
    }
  });

  it('$lookup sub-pipelines past the work bound → 400 QUERY_TOO_LARGE, the server still answers', async () => {
    const many = Array.from({ length: 2500 }, (_, i) => ({ _id: i }));
    const a = await collectionWith(many);
    const res = await aggregate(a, [
      {
        $lookup: {
          from: a,
          let: { i: '$_id' },
          pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$i'] } } }],
          as: 'x',
        },
      },
      { $count: 'n' },
    ]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
    expect((res.json as Json).message).toContain('$lookup');
    const eq = await aggregate(a, [
      { $lookup: { from: a, localField: '_id', foreignField: '_id', as: 'x' } },
      { $match: { 'x.0._id': { $gte: 0 } } },
      { $count: 'n' },
    ]);
    expect(eq.json).toEqual([{ n: 2500 }]);
  });
});

describe('hostile sizes', () => {
  // Each document grows a 1 MiB string (20 doublings): 20 of them pass the 16 MiB of one built document.
  const grow = {
    $set: {
      s: {
        $reduce: { input: { $range: [0, 20] }, initialValue: 'x', in: { $concat: ['$$value', '$$value'] } },
      },
    },
  };
  it('$facet, $group $push and $lookup results past 16 MiB → 400 QUERY_TOO_LARGE naming them, never a 500', async () => {
    const c = await collectionWith(Array.from({ length: 20 }, (_, i) => ({ _id: i })));
    for (const [pipeline, name] of [
      [[grow, { $facet: { all: [{ $skip: 0 }] } }], '$facet'],
      [[grow, { $group: { _id: null, all: { $push: '$s' } } }], '$push'],
      [
        // Distinct values ($addToSet keeps one of equal ones): 20 strings of 1 MiB.
        [
          grow,
          {
            $bucketAuto: {
              groupBy: '$_id',
              buckets: 1,
              output: { all: { $addToSet: { $concat: ['$s', { $toString: '$_id' }] } } },
            },
          },
        ],
        '$addToSet',
      ],
      [[{ $limit: 1 }, { $lookup: { from: c, pipeline: [grow], as: 'all' } }], '$lookup'],
    ] as const) {
      const res = await aggregate(c, pipeline);
      expect(res.status, name).toBe(400);
      expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
      expect((res.json as Json).message).toContain(name);
    }
    // The server still answers.
    expect((await aggregate(c, [{ $count: 'n' }])).json).toEqual([{ n: 20 }]);
  });
});

describe('the rule of a find on the other collection', () => {
  it('a collection whose group does not allow FIND → 403 NOSQL_ACTION_NOT_ALLOWED; absent → 404; no listing → 404', () => {
    const scope = { game: 'g', stage: 'preview' as const, collection: 'x' };
    const entry = { name: 'script.locked', optionGroup: 'Runtime' as const, actions: ['COUNT' as const] };
    expect(() => checkReadable([entry], scope, 'script.locked')).toThrow(
      expect.objectContaining({ status: 403, code: 'NOSQL_ACTION_NOT_ALLOWED' }),
    );
    expect(() => checkReadable([entry], scope, 'script.other')).toThrow(
      expect.objectContaining({ status: 404 }),
    );
    expect(() => checkReadable(undefined, scope, 'script.locked')).toThrow(
      expect.objectContaining({ status: 404 }),
    );
    expect(() => checkReadable([entry], scope, '$bad')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('credentials', () => {
  it('an expired JWT → 401 TOKEN_EXPIRED; no JWT → 401', async () => {
    const c = await collectionWith([{ a: 1 }]);
    const short = await w.jwtFor(ADMIN.username, ADMIN.password, '?expireInSeconds=1');
    w.server.now.advance(2000);
    const res = await aggregate(c, [{ $unionWith: c }], 'preview', { 'x-svc-jwt': short });
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: 'TOKEN_EXPIRED' });
    const none = await aggregate(c, [{ $unionWith: c }], 'preview', {});
    expect(none.status).toBe(401);
  });
});
