// Issue 20, the /healthz figure: a document request whose body passes 64 KB is parsed and served on a compute
// thread (src/compute/), and batches of large documents are rendered or updated there. What a request gets
// must not depend on where it ran: the same answers, the same catalogue errors, the same database errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
  for (const name of ['threads', 'dup', 'uniq']) await w.ok('POST', 'preview', `collection/${name}/runtime`);
});
afterAll(async () => {
  await w.close();
});

const C = 'collection/script.threads';
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Numbers that match nothing, to carry a body past 64 KB (a number is about 7 bytes of JSON). */
const padding = (n = 15_000) => range(n).map((i) => 1_000_000 + i);

describe('document requests on compute threads', () => {
  beforeAll(async () => {
    const docs = range(300).map((i) => ({
      _id: `d${i}`,
      n: i,
      tag: i % 3 === 0 ? 'x' : 'y',
      pad: 'p'.repeat(400),
    }));
    await w.ok('POST', 'preview', `${C}/insert`, docs);
  });

  it('find with a body past 64 KB → the same answer as the same find with a small body', async () => {
    const small = { query: { n: { $in: [3, 5, 299] } }, fields: { pad: 0 }, sort: { n: -1 } };
    const large = { ...small, query: { n: { $in: [3, 5, 299, ...padding()] } } };
    expect(JSON.stringify(large).length).toBeGreaterThan(64 * 1024);
    const expected = await w.ok('POST', 'preview', `${C}/find`, small);
    expect(expected).toEqual([
      { _id: 'd299', n: 299, tag: 'y' },
      { _id: 'd5', n: 5, tag: 'y' },
      { _id: 'd3', n: 3, tag: 'x' },
    ]);
    expect(await w.ok('POST', 'preview', `${C}/find`, large)).toEqual(expected);
  });

  it('a find reading batches past 64 KB of documents (rendered on a thread) → every document, in order', async () => {
    const all = await w.ok<Array<{ _id: string; n: number; pad: string }>>('POST', 'preview', `${C}/find`, {
      sort: { n: 1 },
    });
    expect(all.map((d) => d.n)).toEqual(range(300));
    expect(all.every((d) => d.pad.length === 400)).toBe(true);
  });

  it('count and remove with bodies past 64 KB → the same counts as small bodies', async () => {
    const count = await w.ok('POST', 'preview', `${C}/count`, {
      query: { n: { $in: [1, 2, ...padding()] } },
    });
    expect(count).toEqual({ count: 2 });
    await w.ok('POST', 'preview', `${C}/insert`, [{ _id: 'gone1' }, { _id: 'gone2' }]);
    const removed = await w.ok('POST', 'preview', `${C}/remove`, {
      query: { _id: { $in: ['gone1', 'gone2', ...padding().map(String)] } },
    });
    expect(removed).toEqual({ deletedCount: 2, message: 'OK' });
  });

  it('update with a body past 64 KB ($set of 8,000 fields) → modified, and the document reads back whole', async () => {
    const fields = Object.fromEntries(range(8000).map((i) => [`f${i}`, i]));
    const res = await w.ok('POST', 'preview', `${C}/update`, {
      query: { _id: 'd1' },
      update: { $set: fields },
    });
    expect(res).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0, upsertedId: null });
    const [doc] = await w.ok<Array<Record<string, unknown>>>('POST', 'preview', `${C}/find`, {
      query: { _id: 'd1' },
    });
    expect(Object.keys(doc!)).toHaveLength(4 + 8000);
    expect(doc!.f7999).toBe(7999);
  });

  it('multi update over documents past 64 KB a batch (applied on a thread) → every match changed once', async () => {
    const res = await w.ok('POST', 'preview', `${C}/update`, {
      query: { tag: 'x' },
      update: { $inc: { n: 1000 }, $push: { seen: 'once' } },
      multi: true,
    });
    expect(res).toMatchObject({ matchedCount: 100, modifiedCount: 100 });
    const changed = await w.ok<Array<{ n: number; seen: string[] }>>('POST', 'preview', `${C}/find`, {
      query: { tag: 'x' },
      fields: { n: 1, seen: 1 },
    });
    expect(changed).toHaveLength(100);
    expect(changed.every((d) => d.n >= 1000 && d.seen.length === 1)).toBe(true);
  });

  it('upsert with a body past 64 KB → inserted, with its _id from the filter', async () => {
    const res = await w.ok('POST', 'preview', `${C}/update`, {
      query: { _id: 'up1' },
      update: { $set: { big: padding() } },
      upsert: true,
    });
    expect(res).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedCount: 1, upsertedId: 'up1' });
  });

  it('aggregate (always on a thread) → the pipeline answer', async () => {
    const res = await w.ok('POST', 'preview', `${C}/aggregate`, [
      { $match: { tag: { $in: ['x', 'y'] } } },
      { $group: { _id: '$tag', count: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    expect(res).toEqual([
      { _id: 'x', count: 100 },
      { _id: 'y', count: 200 },
    ]);
  });
});

describe('errors from compute threads', () => {
  it('insert past 64 KB repeating an existing _id → 409 NOSQL_DUPLICATE_KEY naming _id_, nothing written', async () => {
    await w.ok('POST', 'preview', 'collection/script.dup/insert', { _id: 'taken' });
    const docs = [...range(2000).map((i) => ({ _id: `new${i}`, pad: 'x'.repeat(30) })), { _id: 'taken' }];
    const res = await w.call('POST', 'preview', 'collection/script.dup/insert', docs);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'NOSQL_DUPLICATE_KEY', message: 'Duplicate key for index _id_' });
    expect(await w.ok('POST', 'preview', 'collection/script.dup/count', {})).toEqual({ count: 1 });
  });

  it('insert past 64 KB breaking a unique index → 409 naming that index', async () => {
    await w.ok('POST', 'preview', 'collection/script.uniq/index/email_u?unique=true', { email: 1 });
    const docs = [...range(2000).map((i) => ({ email: `e${i}@x`, pad: 'x'.repeat(30) })), { email: 'e0@x' }];
    const res = await w.call('POST', 'preview', 'collection/script.uniq/insert', docs);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({
      code: 'NOSQL_DUPLICATE_KEY',
      message: 'Duplicate key for index email_u',
    });
  });

  it('malformed JSON past 64 KB → 400 INVALID_JSON', async () => {
    const text = `{"query": {"n": {"$in": [${padding().join(',')}]}}`; // the closing brace is missing
    const res = await w.call('POST', 'preview', `${C}/find`, text);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_JSON' });
    expect((res.json as { requestId?: string }).requestId).toEqual(expect.any(String));
  });

  it('a "__proto__" key in a body past 64 KB → 400 INVALID_JSON, as in a small one', async () => {
    const text = `{"_id": "p", "pad": [${padding().join(',')}], "__proto__": {"polluted": true}}`;
    const res = await w.call('POST', 'preview', `${C}/insert`, text);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'INVALID_JSON' });
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('an unknown update operator in a body past 64 KB → 400 QUERY_UNKNOWN_UPDATE_OPERATOR, as in a small one', async () => {
    const update = { $set: { big: padding() }, $frobnicate: { a: 1 } };
    const res = await w.call('POST', 'preview', `${C}/update`, { query: { _id: 'd2' }, update });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'QUERY_UNKNOWN_UPDATE_OPERATOR' });
  });

  it("a body past 64 KB that is not the verb's shape → the same 400 as a small one", async () => {
    const small = await w.call('POST', 'preview', `${C}/find`, { query: {}, extra: 1 });
    const large = await w.call('POST', 'preview', `${C}/find`, { query: {}, extra: padding() });
    expect(small.status).toBe(400);
    expect(large.status).toBe(400);
    expect((large.json as { code: string }).code).toBe((small.json as { code: string }).code);
  });
});
