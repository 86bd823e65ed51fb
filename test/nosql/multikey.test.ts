// The multikey record over HTTP: finds, sorts and counts compiled for array-free paths stay exact when a
// document later introduces an array on an indexed path (by insert or update), including when the server's
// cached record is stale (the statement's own check, then a rerun with the array arm); explain in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
  for (const name of ['mkplayer', 'mkupd', 'mkorder', 'mkcount'])
    await w.ok('POST', 'preview', `collection/${name}/runtime`, {});
});
afterAll(async () => {
  await w.close();
});

const P = 'collection/script.mkplayer';
const ids = (docs: Array<{ _id: unknown }>) => docs.map((d) => d._id);

async function record(collection = 'script.mkplayer'): Promise<string[]> {
  const { rows } = await w.server.store.pool.query<{ field: string }>(
    "SELECT field FROM nosql_multikey WHERE game_id = $1 AND stage = 'preview' AND collection = $2 ORDER BY field",
    [w.apiKey, collection],
  );
  return rows.map((r) => r.field);
}

describe('answers stay exact when an indexed path gains an array', () => {
  it('insert, then find/sort/count before and after arrays appear on level', async () => {
    await w.ok('POST', 'preview', `${P}/index/level_1`, { level: 1 });
    const players = Array.from({ length: 30 }, (_, i) => ({
      _id: i,
      level: i,
      country: i % 2 ? 'GB' : 'FR',
    }));
    await w.ok('POST', 'preview', `${P}/insert`, players);
    expect(await record()).toEqual([]);
    // These reads fill the server's cache with "level is array-free".
    expect(
      ids(
        await w.ok('POST', 'preview', `${P}/find`, {
          query: { level: { $gt: 26 } },
          sort: { level: -1 },
          limit: 2,
        }),
      ),
    ).toEqual([29, 28]);
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { level: 1000 } })).toMatchObject({
      count: 0,
    });
    const explain = await w.ok<{ summary: string[] }>('POST', 'preview', `${P}/explain`, {
      query: { level: { $gt: 26 } },
      sort: { level: -1 },
      limit: 2,
    });
    expect(explain.summary.join(' ')).toMatch(/index "level_1"/);

    // A document with an array on level: only the array arm finds it.
    await w.ok('POST', 'preview', `${P}/insert`, { _id: 'arr', level: [1000, -5], country: 'GB' });
    expect(await record()).toEqual(['level']);
    expect(ids(await w.ok('POST', 'preview', `${P}/find`, { query: { level: 1000 } }))).toEqual(['arr']);
    expect(await w.ok('POST', 'preview', `${P}/count`, { query: { level: { $gte: 1000 } } })).toMatchObject({
      count: 1,
    });
    // Descending: an array sorts by its largest element; ascending by its smallest.
    expect(
      ids(await w.ok('POST', 'preview', `${P}/find`, { query: {}, sort: { level: -1 }, limit: 2 })),
    ).toEqual(['arr', 29]);
    expect(
      ids(await w.ok('POST', 'preview', `${P}/find`, { query: {}, sort: { level: 1 }, limit: 2 })),
    ).toEqual(['arr', 0]);
    expect(
      ids(
        await w.ok('POST', 'preview', `${P}/find`, {
          query: { level: { $ne: 1000 } },
          sort: { _id: 1 },
          limit: 100,
        }),
      ),
    ).not.toContain('arr');
  });

  it('an update that introduces an array (nested) on a sorted, filtered path → found and sorted exactly', async () => {
    const C = 'collection/script.mkupd';
    await w.ok('POST', 'preview', `${C}/index/stats.score_-1`, { 'stats.score': -1 });
    await w.ok(
      'POST',
      'preview',
      `${C}/insert`,
      Array.from({ length: 10 }, (_, i) => ({ _id: i, stats: { score: i } })),
    );
    expect(
      ids(
        await w.ok('POST', 'preview', `${C}/find`, {
          query: { 'stats.score': { $lt: 2 } },
          sort: { 'stats.score': 1 },
        }),
      ),
    ).toEqual([0, 1]);
    await w.ok('POST', 'preview', `${C}/update`, {
      query: { _id: 5 },
      update: { $set: { 'stats.score': [[-1], 50] } },
    });
    // [[-1], 50]: a nested array is an element compared as an array (above numbers), so $lt 2 matches no element.
    expect(
      ids(
        await w.ok('POST', 'preview', `${C}/find`, {
          query: { 'stats.score': { $lt: 2 } },
          sort: { 'stats.score': 1 },
        }),
      ),
    ).toEqual([0, 1]);
    expect(ids(await w.ok('POST', 'preview', `${C}/find`, { query: { 'stats.score': 50 } }))).toEqual([5]);
    expect(
      ids(await w.ok('POST', 'preview', `${C}/find`, { query: {}, sort: { 'stats.score': -1 }, limit: 1 })),
    ).toEqual([5]);
  });

  it('field-order lists and recorded fields skip the work, never a new array (a nested one under a reordered object)', async () => {
    const C = 'collection/script.mkorder';
    await w.ok('POST', 'preview', `${C}/index/stats.rank_1`, { 'stats.rank': 1 });
    // Field orders JSONB does not keep ($o lists at both levels), an array only in tags.
    const docs = Array.from({ length: 10 }, (_, i) => ({
      _id: i,
      zeta: i,
      tags: ['a'],
      stats: { zz: 1, rank: i, aa: { yy: 1, bb: 2 } },
    }));
    await w.ok('POST', 'preview', `${C}/insert`, docs);
    expect(await record('script.mkorder')).toEqual(['tags']);
    expect(
      ids(await w.ok('POST', 'preview', `${C}/find`, { query: {}, sort: { 'stats.rank': -1 }, limit: 2 })),
    ).toEqual([9, 8]);
    // tags is recorded already; the new array is two objects down, under reordered objects.
    await w.ok('POST', 'preview', `${C}/insert`, {
      _id: 'deep',
      zeta: 0,
      tags: ['b'],
      stats: { zz: 1, rank: 3, aa: { yy: [5], bb: 2 } },
    });
    expect(await record('script.mkorder')).toEqual(['stats', 'tags']);
    expect(ids(await w.ok('POST', 'preview', `${C}/find`, { query: { 'stats.aa.yy': 5 } }))).toEqual([
      'deep',
    ]);
    await w.ok('POST', 'preview', `${C}/update`, {
      query: { _id: 2 },
      update: { $set: { zeta: [100, -1] } },
    });
    expect(await record('script.mkorder')).toEqual(['stats', 'tags', 'zeta']);
    expect(ids(await w.ok('POST', 'preview', `${C}/find`, { query: { zeta: { $gt: 50 } } }))).toEqual([2]);
  });

  it('equality on a string path an index leads with → the index condition alone (no per-row filter), exact', async () => {
    const C = 'collection/script.mkcount';
    await w.ok('POST', 'preview', `${C}/index/country_1`, { country: 1 });
    // The build added the key's expression statistics (store/indexes.ts), named after the path.
    const stats = await w.server.store.pool.query<{ expr: string }>(
      "SELECT pg_get_statisticsobjdef_expressions(oid)::text AS expr FROM pg_statistic_ext WHERE stxnamespace = current_schema()::regnamespace AND stxname = 'nx_st_' || md5('[\"country\"]')",
    );
    expect(stats.rows.map((r) => r.expr).join()).toMatch(/pb_pk\(doc, ARRAY\['country'::text\]\)/);
    const docs = Array.from({ length: 40 }, (_, i) => ({ _id: i, country: i % 4 ? 'FR' : 'GB', n: i }));
    await w.ok('POST', 'preview', `${C}/insert`, docs);
    const explain = await w.ok<{ plan: unknown }>('POST', 'preview', `${C}/explain`, {
      query: { country: 'GB' },
    });
    expect(JSON.stringify(explain.plan)).not.toMatch(/"Filter":"[^"]*#>/);
    expect(await w.ok('POST', 'preview', `${C}/count`, { query: { country: 'GB' } })).toMatchObject({
      count: 10,
    });
    await w.ok('POST', 'preview', `${C}/insert`, { _id: 'arr', country: ['GB', 'DE'] });
    expect(await w.ok('POST', 'preview', `${C}/count`, { query: { country: 'GB' } })).toMatchObject({
      count: 11,
    });
    expect(ids(await w.ok('POST', 'preview', `${C}/find`, { query: { country: 'DE' } }))).toEqual(['arr']);
  });
});
