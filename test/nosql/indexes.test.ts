// Indexes over HTTP: create (single, compound, descending, unique), list, drop, explain, unique violations.
import { randomBytes } from 'node:crypto';
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

async function reset(): Promise<void> {
  for (const stage of ['preview', 'live'] as const) {
    const list = await w.ok<Array<{ name: string }>>('GET', stage, `${P}/indices`);
    for (const idx of list.filter((i) => i.name !== '_id_'))
      await w.ok('DELETE', stage, `${P}/index/${idx.name}`);
  }
  await w.server.store.pool.query('DELETE FROM nosql_documents WHERE game_id = $1', [w.apiKey]);
}

async function pgIndexCount(): Promise<number> {
  const { rows } = await w.server.store.pool.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'nosql_documents' AND indexname LIKE 'nx\\_%'",
  );
  return Number(rows[0]?.n);
}

describe('index administration', () => {
  beforeEach(reset);

  it('create single, compound and descending indexes → listed with their keys; drop → gone', async () => {
    expect(await w.ok('POST', 'preview', `${P}/index/level_1`, { level: 1 })).toEqual({ message: 'OK' });
    await w.ok('POST', 'preview', `${P}/index/country_level`, { country: 1, level: -1 });
    await w.ok('POST', 'preview', `${P}/index/name_u?unique=true`, { 'profile.name': 1 });
    expect(await w.ok('GET', 'preview', `${P}/indices`)).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { level: 1 }, name: 'level_1' },
      { v: 2, key: { country: 1, level: -1 }, name: 'country_level' },
      { v: 2, key: { 'profile.name': 1 }, name: 'name_u', unique: true },
    ]);
    expect(await pgIndexCount()).toBe(3);
    expect(await w.ok('GET', 'live', `${P}/indices`)).toEqual([{ v: 2, key: { _id: 1 }, name: '_id_' }]);
    await w.ok('DELETE', 'preview', `${P}/index/country_level`);
    expect(
      (await w.ok<Array<{ name: string }>>('GET', 'preview', `${P}/indices`)).map((i) => i.name),
    ).toEqual(['_id_', 'level_1', 'name_u']);
    expect(await pgIndexCount()).toBe(2);
  });

  it('the same index twice → OK; same name with other keys → 409; same keys under another name → 409', async () => {
    await w.ok('POST', 'preview', `${P}/index/level_1`, { level: 1 });
    expect(await w.ok('POST', 'preview', `${P}/index/level_1`, { level: 1 })).toEqual({ message: 'OK' });
    const other = await w.call('POST', 'preview', `${P}/index/level_1`, { level: -1 });
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: 'NOSQL_INDEX_CONFLICT' });
    const twin = await w.call('POST', 'preview', `${P}/index/lvl`, { level: 1 });
    expect(twin.status).toBe(409);
    expect(await pgIndexCount()).toBe(1);
  });

  it.each([
    ['keys not 1 or -1', 'level_x', { level: 2 }, 'QUERY_BAD_INDEX_KEYS'],
    ['no keys', 'empty', {}, 'QUERY_BAD_INDEX_KEYS'],
    ['a $ path', 'dollar', { $where: 1 }, 'QUERY_BAD_FIELD_PATH'],
    ['the _id_ name', '_id_', { a: 1 }, 'NOSQL_BAD_INDEX_NAME'],
    ['a quote in the name', "a'b", { a: 1 }, 'NOSQL_BAD_INDEX_NAME'],
    ['unique=maybe', 'u?unique=maybe', { a: 1 }, 'NOSQL_BAD_BODY'],
  ])('create with %s → 400', async (_what, name, body, code) => {
    const res = await w.call(
      'POST',
      'preview',
      `${P}/index/${name.includes('?') ? name : encodeURIComponent(name)}`,
      body,
    );
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code });
    expect(await pgIndexCount()).toBe(0);
  });

  it('drop of an unknown index → 404; drop of _id_ → 400', async () => {
    expect((await w.call('DELETE', 'preview', `${P}/index/nope`)).status).toBe(404);
    expect((await w.call('DELETE', 'preview', `${P}/index/_id_`)).status).toBe(400);
  });

  it('an indexed find → EXPLAIN shows the PostgreSQL index, and the answer is the same as without it', async () => {
    const docs = Array.from({ length: 3000 }, (_, i) => ({ displayName: `user${i}`, level: (i % 100) + 1 }));
    await w.ok('POST', 'preview', `${P}/insert`, docs);
    const query = { query: { displayName: 'user1234' } };
    const before = await w.ok('POST', 'preview', `${P}/find`, query);
    await w.ok('POST', 'preview', `${P}/index/displayName_1`, { displayName: 1 });
    await w.ok('POST', 'preview', `${P}/index/level_-1`, { level: -1 });
    await w.server.store.pool.query('ANALYZE nosql_documents');
    const explained = await w.ok<{ indexesUsed: string[]; plan: unknown }>(
      'POST',
      'preview',
      `${P}/explain`,
      query,
    );
    expect(explained.indexesUsed).toEqual(['displayName_1']);
    expect(JSON.stringify(explained.plan)).toMatch(/"Node Type":"(Bitmap )?Index Scan"/);
    expect(await w.ok('POST', 'preview', `${P}/find`, query)).toEqual(before);
    const range = await w.ok<{ indexesUsed: string[] }>('POST', 'preview', `${P}/explain`, {
      query: { level: { $gt: 98 } },
      sort: { level: -1 },
      limit: 20,
    });
    expect(range.indexesUsed).toEqual(['level_-1']);
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { level: { $gt: 98 } } })).toEqual({
      count: 60,
    });
  });
});

describe('unique indexes', () => {
  beforeEach(reset);

  it('insert of a duplicate key → 409 NOSQL_DUPLICATE_KEY naming the index; nothing written', async () => {
    await w.ok('POST', 'preview', `${P}/index/userName_u?unique=true`, { userName: 1 });
    await w.ok('POST', 'preview', `${P}/insert`, { userName: 'ann' });
    const res = await w.call('POST', 'preview', `${P}/insert`, [{ userName: 'bob' }, { userName: 'ann' }]);
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'NOSQL_DUPLICATE_KEY' });
    expect((res.json as { message: string }).message).toContain('userName_u');
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 1 });
  });

  it('update or save into a duplicate key → 409, the document unchanged', async () => {
    await w.ok('POST', 'preview', `${P}/index/userName_u?unique=true`, { userName: 1 });
    await w.ok('POST', 'preview', `${P}/insert`, [
      { _id: 1, userName: 'ann' },
      { _id: 2, userName: 'bob' },
    ]);
    const upd = await w.call('POST', 'preview', `${P}/update`, {
      query: { _id: 2 },
      update: { $set: { userName: 'ann' } },
    });
    expect(upd.status).toBe(409);
    const save = await w.call('POST', 'preview', `${P}/save`, { _id: 2, userName: 'ann' });
    expect(save.status).toBe(409);
    expect(await w.ok('POST', 'preview', `${P}/find`, { query: { _id: 2 } })).toEqual([
      { _id: 2, userName: 'bob' },
    ]);
  });

  it('unique index over existing duplicates → 409 and no index left behind', async () => {
    await w.ok('POST', 'preview', `${P}/insert`, [{ userName: 'ann' }, { userName: 'ann' }]);
    const res = await w.call('POST', 'preview', `${P}/index/userName_u?unique=true`, { userName: 1 });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({
      code: 'NOSQL_DUPLICATE_KEY',
      message: 'Duplicate key for index userName_u',
    });
    expect(await w.ok('GET', 'preview', `${P}/indices`)).toHaveLength(1);
    expect(await pgIndexCount()).toBe(0);
  });

  it('unique per stage and collection: the same key in Live and in another collection → allowed', async () => {
    await w.ok('POST', 'preview', `${P}/index/userName_u?unique=true`, { userName: 1 });
    await w.ok('POST', 'preview', `${P}/insert`, { userName: 'ann' });
    await w.ok('POST', 'live', `${P}/insert`, { userName: 'ann' });
    await w.ok('POST', 'preview', 'collection/challengeInstance/insert', { userName: 'ann' });
  });

  it('an array in a uniquely indexed field → 400 NOSQL_UNIQUE_INDEX_ARRAY', async () => {
    await w.ok('POST', 'preview', `${P}/index/tags_u?unique=true`, { tags: 1 });
    const res = await w.call('POST', 'preview', `${P}/insert`, { tags: ['a', 'b'] });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_UNIQUE_INDEX_ARRAY' });
  });

  it('a value too large for a btree index → 400 NOSQL_INDEX_KEY_TOO_LARGE, not stored', async () => {
    await w.ok('POST', 'preview', `${P}/index/bio_1`, { bio: 1 });
    const res = await w.call('POST', 'preview', `${P}/insert`, { bio: randomBytes(6000).toString('base64') });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'NOSQL_INDEX_KEY_TOO_LARGE' });
    expect(await w.ok('POST', 'preview', `${P}/count`, {})).toEqual({ count: 0 });
  });
});
