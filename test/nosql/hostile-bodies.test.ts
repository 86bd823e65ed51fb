// Issue 20, findings 1, 3 and 6 over HTTP: large but legal bodies succeed in linear time instead of a 500 or a
// frozen process, and bodies past the documented bounds answer 400 with a catalogue code, on either store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

async function post(path: string, body: unknown) {
  const started = Date.now();
  const res = await w.call('POST', 'preview', `collection/${path}`, body);
  return { ...res, ms: Date.now() - started };
}

async function stored(collection: string, id: unknown): Promise<Record<string, unknown>> {
  const found = await w.ok<Array<Record<string, unknown>>>(
    'POST',
    'preview',
    `collection/${collection}/find`,
    {
      query: { _id: id },
    },
  );
  return found[0]!;
}

describe('large update bodies', () => {
  it('$push $each of 200,000 values → 200 and all stored (was 500 RangeError)', async () => {
    await w.ok('POST', 'preview', 'collection/player/insert', { _id: 'push', a: [] });
    const res = await post('player/update', {
      query: { _id: 'push' },
      update: { $push: { a: { $each: range(200_000) } } },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const doc = await stored('player', 'push');
    expect((doc.a as number[]).length).toBe(200_000);
  }, 60_000);

  it('$set of 200,000 fields → 200 and all stored (was 500 RangeError)', async () => {
    await w.ok('POST', 'preview', 'collection/player/insert', { _id: 'set' });
    const set = Object.fromEntries(range(200_000).map((i) => [`f${i}`, i]));
    const res = await post('player/update', { query: { _id: 'set' }, update: { $set: set } });
    expect(res.status).toBe(200);
    const doc = await stored('player', 'set');
    expect(Object.keys(doc).length).toBe(200_001);
  }, 60_000);

  it('$addToSet $each of 100,000 values onto 100,000 → 200 in under 10 s (was minutes, the process frozen)', async () => {
    await w.ok('POST', 'preview', 'collection/player/insert', { _id: 'set2', a: range(100_000) });
    const res = await post('player/update', {
      query: { _id: 'set2' },
      update: { $addToSet: { a: { $each: range(100_000, 50_000) } } },
    });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(10_000);
    expect(await stored('player', 'set2')).toEqual({ _id: 'set2', a: range(150_000) });
  }, 120_000);

  it('$pull {$in: 50,000 values} from 50,000 elements → 200 in under 10 s', async () => {
    await w.ok('POST', 'preview', 'collection/player/insert', { _id: 'pull', a: range(50_000) });
    const res = await post('player/update', {
      query: { _id: 'pull' },
      update: { $pull: { a: { $in: range(50_000, 25_000) } } },
    });
    expect(res.status).toBe(200);
    expect(res.ms).toBeLessThan(10_000);
    expect(await stored('player', 'pull')).toEqual({ _id: 'pull', a: range(25_000) });
  }, 120_000);

  it('a $set path of 201 parts → 400 QUERY_TOO_LARGE', async () => {
    await w.ok('POST', 'preview', 'collection/player/insert', { _id: 'path' });
    const path = range(201)
      .map(() => 'a')
      .join('.');
    const res = await post('player/update', { query: { _id: 'path' }, update: { $set: { [path]: 1 } } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
  });
});

describe('large filters', () => {
  it('find {_id: {$in: 70,000 values}} → 200 with the matching documents (was 500: too many parameters)', async () => {
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', [
      { _id: 5 },
      { _id: 69_999 },
      { _id: 'x' },
      { b: 1 },
    ]);
    const res = await post('challengeInstance/find', {
      query: { _id: { $in: range(70_000) } },
      sort: { _id: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ _id: 5 }, { _id: 69_999 }]);
    const withNull = await post('challengeInstance/find', {
      query: { c: { $in: [null, ...range(40, 1000)] }, b: { $in: range(40, 1) } },
      fields: { _id: 0 },
    });
    expect(withNull.status).toBe(200);
    expect(withNull.json).toEqual([{ b: 1 }]);
  });

  it('find {$or: 25,000 clauses} → 400 QUERY_TOO_LARGE (was 500); 1,001 clauses → 400 too', async () => {
    const res = await post('challengeInstance/find', {
      query: { $or: range(25_000).map((i) => ({ a: i })) },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
    const just = await post('challengeInstance/count', {
      query: { $or: range(1001).map((i) => ({ a: i })) },
    });
    expect(just.status).toBe(400);
    expect(just.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
  });
});

describe('regular expressions', () => {
  it('find {$regex: "(((a{100}){100}){100})"} → 400 QUERY_BAD_REGEX before the store sees it', async () => {
    await w.ok('POST', 'preview', 'collection/externalAuthentication/insert', { s: 'a'.repeat(200) });
    const res = await post('externalAuthentication/find', {
      query: { s: { $regex: '(((a{100}){100}){100})' } },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_BAD_REGEX' });
    expect((res.json as { message: string }).message).toContain('too complex');
    const fine = await post('externalAuthentication/find', { query: { s: { $regex: '^(a{100}){2}$' } } });
    expect(fine.json).toHaveLength(1);
  });

  it('a pattern of 100,000 nested groups → 400 QUERY_BAD_REGEX (was 500 RangeError)', async () => {
    const res = await post('externalAuthentication/count', {
      query: { s: { $regex: `${'('.repeat(100_000)}a${')'.repeat(100_000)}` } },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_BAD_REGEX' });
  });

  it('$pull {$regex} too complex, in an update → 400 QUERY_BAD_REGEX', async () => {
    await w.ok('POST', 'preview', 'collection/externalAuthentication/insert', { _id: 'p', a: ['aaa'] });
    const res = await post('externalAuthentication/update', {
      query: { _id: 'p' },
      update: { $pull: { a: { $regex: '((a{100}){100})' } } },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_BAD_REGEX' });
  });
});

describe('aggregation over a 1,000,000-element array', () => {
  beforeAll(async () => {
    // 2 MB of zeros: a legal body under the 4 MB limit.
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', {
      _id: 'big',
      big: new Array(1_000_000).fill(0),
    });
  }, 60_000);

  it('$project, $match on the array, $count → 200 (was 500 RangeError)', async () => {
    const res = await post('challengeInstance/aggregate', [
      { $project: { big: 1 } },
      { $match: { big: 0 } },
      { $count: 'n' },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ n: 1 }]);
  }, 60_000);

  it('$unwind, $count → 200 with 1,000,000', async () => {
    const res = await post('challengeInstance/aggregate', [
      { $match: { _id: 'big' } },
      { $unwind: '$big' },
      { $count: 'n' },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([{ n: 1_000_000 }]);
  }, 60_000);

  it('a pipeline of 1,001 stages → 400 QUERY_TOO_LARGE', async () => {
    const res = await post(
      'challengeInstance/aggregate',
      range(1001).map(() => ({ $skip: 0 })),
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_TOO_LARGE' });
  });
});

describe('aggregation expressions that would grow without bound', () => {
  it('a $reduce doubling an array, a quadratic $reduce, a huge $range → 400, each in under 5 s', async () => {
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', { _id: 'expr', n: 1 });
    const cases: Array<[unknown, string]> = [
      [
        {
          $reduce: {
            input: { $range: [0, 64] },
            initialValue: [1],
            in: { $concatArrays: ['$$value', '$$value'] },
          },
        },
        'QUERY_TOO_LARGE',
      ],
      [
        {
          $reduce: {
            input: { $range: [0, 200_000] },
            initialValue: [],
            in: { $concatArrays: ['$$value', ['$$this']] },
          },
        },
        'QUERY_TOO_LARGE',
      ],
      [
        { $reduce: { input: { $range: [0, 1_000_000] }, initialValue: [], in: ['$$value'] } },
        'QUERY_TOO_LARGE',
      ],
      [{ $range: [0, 2_000_000_000] }, 'QUERY_BAD_EXPRESSION'],
    ];
    for (const [expr, code] of cases) {
      const res = await post('challengeInstance/aggregate', [
        { $match: { _id: 'expr' } },
        { $project: { x: expr } },
      ]);
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ code });
      expect(res.ms).toBeLessThan(5000);
    }
  }, 60_000);
});
