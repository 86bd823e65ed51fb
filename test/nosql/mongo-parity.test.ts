// MongoDB parity over HTTP (issue 16): positional updates and arrayFilters on update and findAndModify, $expr
// and the bitwise operators in every reader (find, count, remove, update, findAndModify, distinct, aggregate)
// with exact skip and limit, and the projection operators of find. Bad operands answer 400 naming the operator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
type Json = any;

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

let n = 0;
async function collectionWith(docs: Json[]): Promise<string> {
  const name = `script.parity${++n}`;
  expect((await w.call('POST', 'preview', `collection/${name}/runtime`)).status).toBe(200);
  if (docs.length > 0) await w.ok('POST', 'preview', `collection/${name}/insert`, docs);
  return name;
}
const post = (c: string, verb: string, body: unknown) =>
  w.call('POST', 'preview', `collection/${c}/${verb}`, body);
const find = (c: string, body: unknown = {}) =>
  w.ok<Json[]>('POST', 'preview', `collection/${c}/find`, { sort: { _id: 1 }, ...(body as object) });

async function expect400(c: string, verb: string, body: unknown, code: string, names: string): Promise<void> {
  const res = await post(c, verb, body);
  expect(res.status).toBe(400);
  expect((res.json as Json).code).toBe(code);
  expect((res.json as Json).message).toContain(names);
}

describe('positional updates over HTTP', () => {
  it('$ updates the element the query matched; $[] every element; $[e] those arrayFilters match', async () => {
    const c = await collectionWith([
      { _id: 1, grades: [85, 80, 80] },
      {
        _id: 2,
        grades: [
          { g: 80, m: 75 },
          { g: 85, m: 90 },
        ],
      },
    ]);
    const one = await post(c, 'update', {
      query: { _id: 1, grades: 80 },
      update: { $set: { 'grades.$': 82 } },
    });
    expect(one.json).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    await post(c, 'update', { query: { _id: 2, 'grades.g': 85 }, update: { $set: { 'grades.$.s': 6 } } });
    expect(await find(c)).toEqual([
      { _id: 1, grades: [85, 82, 80] },
      {
        _id: 2,
        grades: [
          { g: 80, m: 75 },
          { g: 85, m: 90, s: 6 },
        ],
      },
    ]);
    await post(c, 'update', { query: { _id: 1 }, update: { $inc: { 'grades.$[]': 10 } } });
    const filtered = await post(c, 'update', {
      query: { _id: 2 },
      update: { $set: { 'grades.$[e].m': 100 } },
      arrayFilters: [{ 'e.g': { $gte: 85 } }],
    });
    expect(filtered.status).toBe(200);
    expect(await find(c)).toEqual([
      { _id: 1, grades: [95, 92, 90] },
      {
        _id: 2,
        grades: [
          { g: 80, m: 75 },
          { g: 85, m: 100, s: 6 },
        ],
      },
    ]);
  });

  it('multi: each document gets its own position and its own filtered elements', async () => {
    const c = await collectionWith([
      { _id: 1, a: [1, 5, 9] },
      { _id: 2, a: [9, 1] },
    ]);
    await post(c, 'update', { query: { a: { $gt: 4 } }, update: { $set: { 'a.$': 0 } }, multi: true });
    await post(c, 'update', {
      query: {},
      update: { $mul: { 'a.$[big]': 10 } },
      arrayFilters: [{ big: { $gte: 1 } }],
      multi: true,
    });
    expect(await find(c)).toEqual([
      { _id: 1, a: [10, 0, 90] },
      { _id: 2, a: [0, 10] },
    ]);
  });

  it('findAndModify takes arrayFilters and $ (the position of the document it found)', async () => {
    const c = await collectionWith([
      {
        _id: 1,
        items: [
          { sku: 'a', n: 1 },
          { sku: 'b', n: 1 },
        ],
      },
    ]);
    const res = await post(c, 'findAndModify', {
      query: { 'items.sku': 'b' },
      update: { $inc: { 'items.$.n': 2 } },
      new: true,
    });
    expect((res.json as Json).value.items).toEqual([
      { sku: 'a', n: 1 },
      { sku: 'b', n: 3 },
    ]);
    const filtered = await post(c, 'findAndModify', {
      query: {},
      update: { $set: { 'items.$[i].n': 0 } },
      arrayFilters: [{ 'i.sku': 'a' }],
      new: true,
    });
    expect((filtered.json as Json).value.items).toEqual([
      { sku: 'a', n: 0 },
      { sku: 'b', n: 3 },
    ]);
  });

  it('bad positional use → 400 naming the operator, never 500; nothing is written', async () => {
    const c = await collectionWith([{ _id: 1, a: [1, 2], s: 5 }]);
    await expect400(
      c,
      'update',
      { query: { s: 5 }, update: { $set: { 'a.$': 0 } } },
      'UPDATE_BAD_POSITIONAL',
      '$',
    );
    await expect400(
      c,
      'update',
      { query: {}, update: { $set: { 's.$[]': 0 } } },
      'UPDATE_BAD_POSITIONAL',
      '$[]',
    );
    await expect400(
      c,
      'update',
      { query: {}, update: { $set: { 'a.$[x]': 0 } } },
      'UPDATE_BAD_POSITIONAL',
      '$[x]',
    );
    await expect400(
      c,
      'update',
      { query: {}, update: { $set: { a: 0 } }, arrayFilters: [{ x: 1 }] },
      'UPDATE_BAD_ARRAY_FILTERS',
      'arrayFilters',
    );
    await expect400(
      c,
      'update',
      { query: {}, update: { $set: { 'a.$[x]': 0 } }, arrayFilters: { x: 1 } },
      'UPDATE_BAD_ARRAY_FILTERS',
      'arrayFilters',
    );
    await expect400(
      c,
      'update',
      { query: {}, update: { $set: { 'a.$[x]': 0 } }, arrayFilters: [{ x: { $frob: 1 } }] },
      'QUERY_UNKNOWN_OPERATOR',
      '$frob',
    );
    await expect400(
      c,
      'update',
      { query: { a: 7 }, update: { $set: { 'a.$': 0 } }, upsert: true },
      'UPDATE_BAD_POSITIONAL',
      '$',
    );
    await expect400(
      c,
      'findAndModify',
      { query: {}, update: { $set: { 'a.$[]': 0, 'a.1': 1 } } },
      'UPDATE_PATH_CONFLICT',
      'a.1',
    );
    await expect400(
      c,
      'findAndModify',
      { query: {}, update: { $set: { 'a.$': 0 } } },
      'UPDATE_BAD_POSITIONAL',
      '$',
    );
    expect(await find(c)).toEqual([{ _id: 1, a: [1, 2], s: 5 }]);
  });
});

describe('$expr and the bitwise operators over HTTP', () => {
  const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, a: i % 7, b: i % 5, flags: i }));
  const exprQuery = { $expr: { $gt: ['$a', '$b'] } };
  const expected = docs.filter((d) => d.a > d.b);

  it('find, count, skip and limit count exact matches only', async () => {
    const c = await collectionWith(docs);
    expect(await find(c, { query: exprQuery })).toEqual(expected);
    expect(await find(c, { query: exprQuery, skip: 2, limit: 3 })).toEqual(expected.slice(2, 5));
    expect(await find(c, { query: exprQuery, sort: { _id: -1 }, limit: 2 })).toEqual(
      expected.slice(-2).reverse(),
    );
    const count = await post(c, 'count', { query: exprQuery });
    expect(count.json).toEqual({ count: expected.length });
    const bits = await find(c, { query: { flags: { $bitsAllSet: [0, 2] }, a: { $bitsAnyClear: 1 } } });
    expect(bits.map((d: Json) => d._id)).toEqual(
      docs.filter((d) => (d.flags & 5) === 5 && (d.a & 1) === 0).map((d) => d._id),
    );
    const binary = await find(c, {
      query: { flags: { $bitsAnySet: { $binary: { base64: 'EA==', subType: '00' } } } },
    });
    expect(binary.map((d: Json) => d._id)).toEqual(docs.filter((d) => d.flags & 16).map((d) => d._id));
    const negated = await find(c, { query: { $nor: [exprQuery], flags: { $not: { $bitsAllClear: 3 } } } });
    expect(negated.map((d: Json) => d._id)).toEqual(
      docs.filter((d) => !(d.a > d.b) && (d.flags & 3) !== 0).map((d) => d._id),
    );
  });

  it('update (one and multi), findAndModify, distinct, aggregate and remove see exact matches', async () => {
    const c = await collectionWith(docs);
    const one = await post(c, 'update', { query: exprQuery, update: { $set: { hit: 1 } } });
    expect(one.json).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const many = await post(c, 'update', { query: exprQuery, update: { $set: { hit: 2 } }, multi: true });
    expect(many.json).toMatchObject({ matchedCount: expected.length });
    const fam = await post(c, 'findAndModify', {
      query: exprQuery,
      sort: { _id: -1 },
      update: { $set: { last: true } },
    });
    expect((fam.json as Json).value._id).toBe(expected[expected.length - 1]!._id);
    const distinct = await post(c, 'distinct', { key: 'b', query: { $expr: { $eq: ['$a', '$b'] } } });
    expect((distinct.json as Json).values).toEqual([0, 1, 2, 3, 4]);
    const agg = await post(c, 'aggregate', [{ $match: exprQuery }, { $count: 'n' }]);
    expect(agg.json).toEqual([{ n: expected.length }]);
    const removed = await post(c, 'remove', { query: exprQuery });
    expect(removed.status).toBe(200);
    expect((await find(c)).length).toBe(docs.length - expected.length);
  });

  it('bad operands → 400 naming the operator', async () => {
    const c = await collectionWith([{ _id: 1 }]);
    for (const [query, op] of [
      [{ a: { $bitsAllSet: -1 } }, '$bitsAllSet'],
      [{ a: { $bitsAnySet: 1.5 } }, '$bitsAnySet'],
      [{ a: { $bitsAllClear: 'x' } }, '$bitsAllClear'],
      [{ a: { $bitsAnyClear: [1, -2] } }, '$bitsAnyClear'],
      [{ $expr: { $frob: 1 } }, '$frob'],
      [{ a: { $elemMatch: { $expr: { $eq: [1, 1] } } } }, '$expr'],
    ] as const) {
      const res = await post(c, 'find', { query });
      expect(res.status).toBe(400);
      expect((res.json as Json).message).toContain(op);
    }
  });
});

describe('projection operators of find over HTTP', () => {
  it('$slice, $elemMatch, positional and expressions in find and findAndModify fields', async () => {
    const c = await collectionWith([
      {
        _id: 1,
        name: 'Ada',
        scores: [3, 9, 4, 8],
        items: [
          { k: 'a', n: 1 },
          { k: 'b', n: 2 },
        ],
      },
    ]);
    expect(await find(c, { fields: { scores: { $slice: -2 } } })).toEqual([
      {
        _id: 1,
        name: 'Ada',
        scores: [4, 8],
        items: [
          { k: 'a', n: 1 },
          { k: 'b', n: 2 },
        ],
      },
    ]);
    expect(await find(c, { fields: { items: { $elemMatch: { n: { $gt: 1 } } }, name: 1 } })).toEqual([
      { _id: 1, name: 'Ada', items: [{ k: 'b', n: 2 }] },
    ]);
    expect(await find(c, { query: { scores: { $gt: 5 } }, fields: { 'scores.$': 1 } })).toEqual([
      { _id: 1, scores: [9] },
    ]);
    expect(await find(c, { fields: { first: { $arrayElemAt: ['$scores', 0] }, _id: 0 } })).toEqual([
      { first: 3 },
    ]);
    const fam = await post(c, 'findAndModify', {
      query: { 'items.k': 'b' },
      update: { $inc: { 'items.$.n': 1 } },
      new: true,
      fields: { 'items.$': 1 },
    });
    expect((fam.json as Json).value).toEqual({ _id: 1, items: [{ k: 'b', n: 3 }] });
  });

  it('bad projection operands → 400 naming the operator', async () => {
    const c = await collectionWith([{ _id: 1, a: [1, 2] }]);
    for (const [fields, op] of [
      [{ a: { $slice: 'x' } }, '$slice'],
      [{ a: { $slice: [1, 0] } }, '$slice'],
      [{ 'a.b': { $elemMatch: { c: 1 } } }, '$elemMatch'],
      [{ 'a.$': 1 }, '.$'],
      [{ x: { $frob: 1 } }, '$frob'],
      [{ s: { $meta: 'textScore' } }, '$meta'],
    ] as const) {
      const res = await post(c, 'find', { query: {}, fields });
      expect(res.status).toBe(400);
      expect((res.json as Json).message).toContain(op);
    }
  });
});

describe('$regexFind, $regexFindAll and $toDecimal over HTTP', () => {
  it('aggregate and find projections answer matches, captures and decimals in extended JSON', async () => {
    const c = await collectionWith([
      { _id: 1, name: 'Ada Lovelace', price: '0.1' },
      { _id: 2, name: 'Grace Hopper', price: 1.5 },
      { _id: 3, name: 'x', price: '1.50' },
    ]);
    const agg = await post(c, 'aggregate', [
      {
        $project: {
          first: { $regexFind: { input: '$name', regex: '^(\\w+) (\\w+)?$' } },
          vowels: { $size: { $regexFindAll: { input: '$name', regex: '[aeiou]', options: 'i' } } },
          price: { $toDecimal: '$price' },
        },
      },
      { $sort: { price: 1, _id: 1 } },
    ]);
    expect(agg.status).toBe(200);
    expect(agg.json).toEqual([
      {
        _id: 1,
        first: { match: 'Ada Lovelace', idx: 0, captures: ['Ada', 'Lovelace'] },
        vowels: 6,
        price: { $numberDecimal: '0.1' },
      },
      {
        _id: 2,
        first: { match: 'Grace Hopper', idx: 0, captures: ['Grace', 'Hopper'] },
        vowels: 4,
        price: { $numberDecimal: '1.50000000000000' },
      },
      { _id: 3, first: null, vowels: 0, price: { $numberDecimal: '1.50' } },
    ]);
    expect(
      await find(c, {
        query: { _id: 2 },
        fields: { m: { $regexFindAll: { input: '$name', regex: 'o(p*)' } } },
      }),
    ).toEqual([{ _id: 2, m: [{ match: 'opp', idx: 7, captures: ['pp'] }] }]);
  });

  it('bad operands, decimal arithmetic and stored decimals answer 400 naming what refused', async () => {
    const c = await collectionWith([{ _id: 1, s: 'a', n: 5 }]);
    await expect400(
      c,
      'aggregate',
      [{ $project: { m: { $regexFind: { input: '$n', regex: 'a' } } } }],
      'QUERY_BAD_EXPRESSION',
      '$regexFind',
    );
    await expect400(
      c,
      'aggregate',
      [{ $project: { m: { $regexFindAll: { input: '$s', regex: '(?<x>a)' } } } }],
      'QUERY_BAD_EXPRESSION',
      '$regexFindAll',
    );
    await expect400(
      c,
      'aggregate',
      [{ $group: { _id: null, t: { $sum: { $toDecimal: '$n' } } } }],
      'QUERY_BAD_EXPRESSION',
      '$sum',
    );
    await expect400(
      c,
      'aggregate',
      [{ $project: { t: { $add: [{ $toDecimal: '$n' }, 1] } } }],
      'QUERY_BAD_EXPRESSION',
      '$add',
    );
    const stored = await post(c, 'insert', [{ _id: 2, d: { $numberDecimal: '1.5' } }]);
    expect(stored.status).toBe(400);
    expect((stored.json as Json).message).toContain('$numberDecimal');
  });
});
