// Document operations over HTTP: find, count, insert, save, update, remove, aggregate; extended JSON; stages.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

const P = 'collection/player';
type Docs = Array<Record<string, unknown>>;

async function reset(): Promise<void> {
  await w.server.store.pool.query('DELETE FROM nosql_documents WHERE game_id = $1', [w.apiKey]);
}

describe('insert and find', () => {
  beforeEach(reset);

  it('insert of an array → the documents with generated ObjectIds; find returns them', async () => {
    const inserted = await w.ok<Docs>('POST', 'preview', `${P}/insert`, [
      { userName: 'ann' },
      { userName: 'bob' },
    ]);
    expect(inserted).toHaveLength(2);
    for (const d of inserted) expect(d._id).toEqual({ $oid: expect.stringMatching(/^[0-9a-f]{24}$/) });
    expect(Object.keys(inserted[0]!)[0]).toBe('_id');
    const found = await w.ok<Docs>('POST', 'preview', `${P}/find`, { query: { userName: 'bob' } });
    expect(found).toEqual([inserted[1]]);
  });

  it('insert of a single object (not an array) → stored, answered as a one-element array', async () => {
    const inserted = await w.ok<Docs>('POST', 'preview', `${P}/insert`, {
      _id: 'adjectives',
      words: ['big'],
    });
    expect(inserted).toEqual([{ _id: 'adjectives', words: ['big'] }]);
    expect(await w.ok('POST', 'preview', `${P}/find`, { query: { _id: 'adjectives' } })).toEqual(inserted);
  });

  it('string "5" and number 5 as _id → two different documents', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [
      { _id: '5', kind: 'string' },
      { _id: 5, kind: 'number' },
    ]);
    expect(await w.ok('POST', 'preview', `${P}/find`, { query: { _id: 5 } })).toEqual([
      { _id: 5, kind: 'number' },
    ]);
    expect(await w.ok('POST', 'preview', `${P}/find`, { query: { _id: '5' } })).toEqual([
      { _id: '5', kind: 'string' },
    ]);
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 2 });
  });

  it('extended JSON $oid, $numberLong beyond 2^53 and $date → round trip exactly, and compare by type', async () => {
    const doc = {
      _id: { $oid: '5f1d7a2b9c8e4a0012345678' },
      big: { $numberLong: '9007199254740993' },
      small: { $numberLong: '-42' },
      when: { $date: '2026-01-02T03:04:05.678Z' },
      ref: { $oid: '0123456789abcdef01234567' },
    };
    expect(await w.ok('POST', 'preview', `${P}/insert`, [doc])).toEqual([doc]);
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([doc]);
    const byLong = { big: { $numberLong: '9007199254740993' } };
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: byLong })).toEqual({ count: 1 });
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { big: 9007199254740992 } })).toEqual({
      count: 0,
    });
    const byDate = { when: { $gt: { $date: '2026-01-01T00:00:00Z' } } };
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: byDate })).toEqual({ count: 1 });
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { when: { $gt: '2000' } } })).toEqual({
      count: 0,
    });
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { _id: doc._id } })).toEqual({ count: 1 });
  });

  it('Content-Type application/json;charset=UTF-8 → accepted', async () => {
    const res = await w.call('POST', 'preview', `${P}/insert`, '{"a":1}', {
      'x-svc-jwt': w.jwt,
      'content-type': 'application/json;charset=UTF-8',
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('duplicate _id → 409 NOSQL_DUPLICATE_KEY and nothing of the batch is stored', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 1 });
    const res = await w.call('POST', 'preview', `${P}/insert`, [{ _id: 2 }, { _id: 1 }]);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'NOSQL_DUPLICATE_KEY' });
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 1 });
  });

  it.each([
    ['an empty array', []],
    ['a number', 5],
    ['an array holding a string', ['x']],
    ['a $-prefixed field', { $set: { a: 1 } }],
    ['an array _id', { _id: [1, 2] }],
    ['an extended JSON value as the document', { $oid: '5f1d7a2b9c8e4a0012345678' }],
    ['a bad $numberLong', { n: { $numberLong: 'twelve' } }],
    ['a $numberLong out of range', { n: { $numberLong: '9223372036854775808' } }],
  ])('insert of %s → 400, nothing stored', async (_name, body) => {
    const res = await w.call('POST', 'preview', `${P}/insert`, body);
    expect(res.status).toBe(400);
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 0 });
  });

  it('find with sort, skip, limit and fields → the right page with only the asked fields', async () => {
    await w.ok(
      'POST',
      'preview',
      `${P}/insert`,
      Array.from({ length: 30 }, (_, i) => ({ _id: i, level: i % 10, name: `p${i}`, secret: 'x' })),
    );
    const page = await w.ok<Docs>('POST', 'preview', `${P}/find`, {
      query: { level: { $gte: 5 } },
      sort: { level: -1, name: 1 },
      skip: 1,
      limit: 3,
      fields: { name: 1, level: 1 },
    });
    expect(page).toEqual([
      { _id: 29, level: 9, name: 'p29' },
      { _id: 9, level: 9, name: 'p9' },
      { _id: 18, level: 8, name: 'p18' },
    ]);
  });

  it('find without limit over 2,500 documents → all of them, streamed as one JSON array', async () => {
    const docs = Array.from({ length: 2500 }, (_, i) => ({ _id: i, v: i }));
    await w.ok('POST', 'preview', `${P}/insert`, docs);
    const res = await w.call('POST', 'preview', `${P}/find`, { sort: { v: 1 } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual(docs);
    const unsorted = (await w.ok<Docs>('POST', 'preview', `${P}/find`, { skip: 10 })).map((d) => d._id);
    expect(unsorted).toHaveLength(2490);
    expect(new Set(unsorted).size).toBe(2490);
  });

  it('$in and $nin with regular expressions, $comment → answered by the database as MongoDB does', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [
      { _id: 1, name: 'apple' },
      { _id: 2, name: 'Apricot' },
      { _id: 3, name: 'banana' },
      { _id: 4, name: 5 },
      { _id: 5, name: ['kiwi', 'avocado'] },
      { _id: 6 },
    ]);
    const ids = async (query: unknown) =>
      (await w.ok<Docs>('POST', 'preview', `${P}/find`, { query, sort: { _id: 1 } })).map((d) => d._id);
    const re = { $regularExpression: { pattern: '^a', options: 'i' } };
    expect(await ids({ name: { $in: [re, 5] } })).toEqual([1, 2, 4, 5]);
    expect(await ids({ name: { $nin: [re, 5] } })).toEqual([3, 6]);
    expect(await ids({ name: { $in: [{ $regex: 'an' }] }, $comment: 'bananas only' })).toEqual([3]);
  });

  it('limit above 10000 → capped at 10000, not refused', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [{ _id: 1 }, { _id: 2 }]);
    expect(await w.ok<Docs>('POST', 'preview', `${P}/find`, { limit: 10_001, sort: { _id: 1 } })).toEqual([
      { _id: 1 },
      { _id: 2 },
    ]);
  });

  it('hint naming an index (by name or keys) or $natural, comment, batchSize → the same answer', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [
      { _id: 1, level: 3 },
      { _id: 2, level: 7 },
    ]);
    expect((await w.call('POST', 'preview', `${P}/index/level_1`, { level: 1 })).status).toBe(200);
    const plain = await w.ok<Docs>('POST', 'preview', `${P}/find`, { query: { level: { $gt: 5 } } });
    expect(plain).toEqual([{ _id: 2, level: 7 }]);
    for (const extra of [
      { hint: 'level_1' },
      { hint: { level: 1 } },
      { hint: '_id_' },
      { hint: { $natural: 1 } },
      { comment: 'from the test' },
      { batchSize: 1 },
      { maxTimeMS: 10_000 },
    ]) {
      const res = await w.ok<Docs>('POST', 'preview', `${P}/find`, {
        query: { level: { $gt: 5 } },
        ...extra,
      });
      expect(res, JSON.stringify(extra)).toEqual(plain);
    }
  });

  it('maxTimeMS passed between batches → 503 QUERY_MAX_TIME_EXPIRED; the next find answers', async () => {
    const docs = Array.from({ length: 6000 }, (_, i) => ({ _id: i, v: 6000 - i, pad: 'x'.repeat(200) }));
    await w.ok('POST', 'preview', `${P}/insert`, docs);
    const res = await w.call('POST', 'preview', `${P}/find`, { sort: { v: 1 }, maxTimeMS: 1 });
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ code: 'QUERY_MAX_TIME_EXPIRED' });
    expect((await w.ok<Docs>('POST', 'preview', `${P}/find`, { limit: 1, sort: { v: 1 } }))[0]?._id).toBe(
      5999,
    );
  });

  it.each([
    ['a negative limit', 'QUERY_BAD_FIND_OPTION', { limit: -1 }],
    ['negative skip', 'QUERY_BAD_FIND_OPTION', { skip: -1 }],
    ['a string limit', 'QUERY_BAD_FIND_OPTION', { limit: '5' }],
    ['an unknown operator', 'QUERY_UNKNOWN_OPERATOR', { query: { a: { $where: 'x' } } }],
    ['$where at the top', 'QUERY_UNKNOWN_OPERATOR', { query: { $where: 'sleep(1)' } }],
    ['an unknown body field', 'NOSQL_BAD_BODY', { query: {}, collation: { locale: 'fr' } }],
    ['a hint that names no index', 'QUERY_BAD_FIND_OPTION', { query: {}, hint: 'nowhere_1' }],
    ['a hint by keys no index has', 'QUERY_BAD_FIND_OPTION', { query: {}, hint: { nowhere: 1 } }],
    ['a negative maxTimeMS', 'QUERY_BAD_FIND_OPTION', { maxTimeMS: -5 }],
    ['a bad sort', 'QUERY_BAD_SORT', { sort: { a: 2 } }],
    [
      'a $meta projection',
      'QUERY_UNSUPPORTED_PROJECTION_OPERATOR',
      { fields: { a: { $meta: 'textScore' } } },
    ],
    ['an array body', 'NOSQL_BAD_BODY', [1]],
  ])('find with %s → 400 %s', async (_name, code, body) => {
    const res = await w.call('POST', 'preview', `${P}/find`, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code });
    if (code === 'QUERY_UNKNOWN_OPERATOR')
      expect((res.json as { message: string }).message).toContain('$where');
  });

  it('limit 0 and an absent limit → up to 10000', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [{ a: 1 }, { a: 2 }]);
    expect(await w.ok<Docs>('POST', 'preview', `${P}/find`, { limit: 0 })).toHaveLength(2);
    expect(await w.ok<Docs>('POST', 'preview', `${P}/find`)).toHaveLength(2);
  });

  it('unknown collection → 404 NOSQL_COLLECTION_NOT_FOUND; bad name → 400', async () => {
    const res = await w.call('POST', 'preview', 'collection/nothere/find', {});
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ code: 'NOSQL_COLLECTION_NOT_FOUND' });
    const bad = await w.call(
      'POST',
      'preview',
      `collection/${encodeURIComponent("x'; DROP TABLE nosql_documents;--")}/find`,
      {},
    );
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'NOSQL_BAD_COLLECTION_NAME' });
  });
});

describe('stages', () => {
  beforeEach(reset);

  it('a document inserted in Preview → not in Live, and the reverse', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 'p', stage: 'preview' });
    await w.ok('POST', 'live', `${P}/insert`, { _id: 'l', stage: 'live' });
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([{ _id: 'p', stage: 'preview' }]);
    expect(await w.ok('POST', 'live', `${P}/find`, {})).toEqual([{ _id: 'l', stage: 'live' }]);
    await w.ok('POST', 'live', `${P}/remove`, { query: { _id: 'l' } });
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 1 });
  });

  it('the same _id in both stages → two documents, updated separately', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 1, n: 1 });
    await w.ok('POST', 'live', `${P}/insert`, { _id: 1, n: 1 });
    await w.ok('POST', 'live', `${P}/update`, { query: { _id: 1 }, update: { $inc: { n: 5 } } });
    expect(await w.ok('POST', 'live', `${P}/find`, {})).toEqual([{ _id: 1, n: 6 }]);
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([{ _id: 1, n: 1 }]);
  });
});

describe('save, update, remove', () => {
  beforeEach(reset);

  it('save without _id → inserted with an ObjectId; save with the same _id → replaced', async () => {
    const saved = await w.ok<Record<string, unknown>>('POST', 'preview', `${P}/save`, { a: 1 });
    expect(saved._id).toEqual({ $oid: expect.any(String) });
    await w.ok('POST', 'preview', `${P}/save`, { _id: saved._id, b: 2 });
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([{ _id: saved._id, b: 2 }]);
  });

  it('save of an array → 400 NOSQL_BAD_BODY', async () => {
    const res = await w.call('POST', 'preview', `${P}/save`, [{ a: 1 }]);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_BAD_BODY' });
  });

  it('update without multi → only the first match (by _id) changes; with multi → every match', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [
      { _id: 1, t: 'a', n: 0 },
      { _id: 2, t: 'a', n: 0 },
      { _id: 3, t: 'b', n: 0 },
    ]);
    const one = await w.ok('POST', 'preview', `${P}/update`, {
      query: { t: 'a' },
      update: { $inc: { n: 1 } },
    });
    expect(one).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
    const all = await w.ok('POST', 'preview', `${P}/update`, {
      query: { t: 'a' },
      update: { $inc: { n: 1 } },
      multi: true,
    });
    expect(all).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    expect(await w.ok('POST', 'preview', `${P}/find`, { sort: { _id: 1 }, fields: { n: 1 } })).toEqual([
      { _id: 1, n: 2 },
      { _id: 2, n: 1 },
      { _id: 3, n: 0 },
    ]);
  });

  it('update that changes nothing → matched 1, modified 0', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 1, n: 5 });
    const out = await w.ok('POST', 'preview', `${P}/update`, {
      query: { _id: 1 },
      update: { $set: { n: 5 } },
    });
    expect(out).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
  });

  it('replacement document → the document is replaced, _id kept', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 'r', a: 1, b: 2 });
    await w.ok('POST', 'preview', `${P}/update`, { query: { _id: 'r' }, update: { c: 3 } });
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([{ _id: 'r', c: 3 }]);
  });

  it('upsert with no match → a document seeded from the query; upsertedId answered', async () => {
    const out = await w.ok<Record<string, unknown>>('POST', 'preview', `${P}/update`, {
      query: { userName: 'zed', level: { $gt: 3 } },
      update: { $set: { score: 10 }, $setOnInsert: { created: { $date: '2026-01-01T00:00:00Z' } } },
      upsert: true,
    });
    expect(out).toMatchObject({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1 });
    const found = await w.ok<Docs>('POST', 'preview', `${P}/find`, {});
    expect(found).toEqual([
      { _id: out.upsertedId, userName: 'zed', score: 10, created: { $date: '2026-01-01T00:00:00.000Z' } },
    ]);
  });

  it.each([
    [
      'multi with a replacement',
      'NOSQL_MULTI_REPLACEMENT',
      { query: { _id: 1 }, update: { a: 1 }, multi: true },
    ],
    [
      'an unknown update operator',
      'QUERY_UNKNOWN_UPDATE_OPERATOR',
      { query: { _id: 1 }, update: { $foo: { a: 1 } } },
    ],
    ['no update', 'NOSQL_BAD_BODY', { query: { _id: 1 } }],
    ['multi as a string', 'NOSQL_BAD_BODY', { query: { _id: 1 }, update: { $set: { a: 1 } }, multi: 'yes' }],
    ['a change of _id', 'UPDATE_IMMUTABLE_ID', { query: { _id: 1 }, update: { $set: { _id: 9 } } }],
    ['$inc of a string field', 'UPDATE_TYPE_MISMATCH', { query: { _id: 1 }, update: { $inc: { s: 1 } } }],
  ])('update with %s → 400 %s, document unchanged', async (_name, code, body) => {
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 1, s: 'x' });
    const res = await w.call('POST', 'preview', `${P}/update`, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code });
    expect(await w.ok('POST', 'preview', `${P}/find`, {})).toEqual([{ _id: 1, s: 'x' }]);
  });

  it('remove with {"query": {}} on a system collection → every document removed', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', { a: 1 });
    expect(await w.ok('POST', 'preview', `${P}/remove`, { query: {} })).toEqual({
      deletedCount: 3,
      message: 'OK',
    });
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 0 });
    expect(await w.ok('POST', 'preview', 'collection/challengeInstance/count', {})).toEqual({ count: 1 });
  });

  it('remove with a filter → only the matches; without query → 400', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [{ a: 1 }, { a: 2 }, { a: 3 }]);
    expect(await w.ok('POST', 'preview', `${P}/remove`, { query: { a: { $gte: 2 } } })).toMatchObject({
      deletedCount: 2,
    });
    const res = await w.call('POST', 'preview', `${P}/remove`, {});
    expect(res.status).toBe(400);
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 1 });
  });
});

describe('aggregate', () => {
  beforeEach(reset);

  it('$match/$sort/$limit pushed to SQL, then $group in JavaScript → grouped totals', async () => {
    await w.ok(
      'POST',
      'preview',
      `${P}/insert`,
      Array.from({ length: 40 }, (_, i) => ({ _id: i, country: ['FR', 'DE', 'US'][i % 3], xp: i })),
    );
    const out = await w.ok('POST', 'preview', `${P}/aggregate`, [
      { $match: { xp: { $gte: 10 } } },
      { $group: { _id: '$country', total: { $sum: '$xp' }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    const expected = ['DE', 'FR', 'US'].map((c, k) => {
      const xs = Array.from({ length: 40 }, (_, i) => i).filter((i) => i >= 10 && i % 3 === [1, 0, 2][k]);
      return { _id: c, total: xs.reduce((a, b) => a + b, 0), n: xs.length };
    });
    expect(out).toEqual(expected);
    const top = await w.ok('POST', 'preview', `${P}/aggregate`, [
      { $sort: { xp: -1 } },
      { $limit: 2 },
      { $project: { xp: 1, _id: 0 } },
    ]);
    expect(top).toEqual([{ xp: 39 }, { xp: 38 }]);
  });

  it.each([
    ['an unknown stage', 'QUERY_UNKNOWN_PIPELINE_STAGE', [{ $lookup: {} }]],
    ['an object body', 'QUERY_BAD_PIPELINE', { $match: {} }],
    ['an unknown accumulator', 'QUERY_UNKNOWN_ACCUMULATOR', [{ $group: { _id: null, x: { $top: 1 } } }]],
  ])('aggregate with %s → 400 %s', async (_name, code, body) => {
    const res = await w.call('POST', 'preview', `${P}/aggregate`, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code });
  });
});
