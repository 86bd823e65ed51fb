// Expression indexes from indexExpressions are used by the planner for equality, range and sorted range finds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFilter, parseFilter } from '../../src/query/filter.js';
import type { ArrayFacts } from '../../src/query/filter-sql.js';
import { indexColumnsSql, parseIndexKeys } from '../../src/query/indexes.js';
import { compileSort, parseSort } from '../../src/query/sort.js';
import { storedText } from '../../src/query/values.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const ROWS = 6000;
const COUNTRIES = ['FR', 'DE', 'US', 'JP', 'BR', 'IN', 'GB', 'ES', 'IT', 'CA'];

function player(i: number) {
  // Few players have a high level, so "level > 90" is selective, as in a real game.
  return {
    _id: i,
    displayName: `player-${i}`,
    level: Math.floor(100 * (i / ROWS) ** 8),
    country: COUNTRIES[i % 10]!,
  };
}

async function plan(
  store: TestStore,
  query: unknown,
  sort?: unknown,
  limit?: number,
  facts?: ArrayFacts,
  count = false,
): Promise<string> {
  const params: unknown[] = ['g', 'live', 'players'];
  const order = sort ? ` ORDER BY ${compileSort(parseSort(sort), 'd.doc', params, facts)}, d.id` : '';
  const where = compileFilter(parseFilter(query), 'd.doc', params, facts);
  const sql = `EXPLAIN SELECT ${count ? 'count(*)' : 'd.doc'} FROM nosql_documents AS d
    WHERE d.game_id = $1 AND d.stage = $2 AND d.collection = $3 AND ${where}${order}${limit ? ` LIMIT ${limit}` : ''}`;
  const rows = await store.query<{ 'QUERY PLAN': string }>(sql, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The facts a read compiles with: the collection's multikey record as the triggers wrote it. */
async function factsOf(store: TestStore): Promise<ArrayFacts> {
  const rows = await store.query<{ field: string }>(
    "SELECT field FROM nosql_multikey WHERE collection = 'players'",
  );
  const fields = new Set(rows.map((r) => r.field));
  return { arrayFree: (f) => !fields.has(f), relied: new Set() };
}

/** No key recomputation per row: no array arm, no sort key and no key function outside index conditions. */
function expectNoPerRowKeys(text: string): void {
  expect(text).not.toMatch(/pb_walk|pb_sk_|pb_arr/);
  for (const line of text.split('\n').filter((l) => /Filter:/.test(l))) expect(line).not.toMatch(/pb_/);
  expect(text).not.toMatch(/Seq Scan/);
}

describe.each(STORES)('index use on $name', ({ open }) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await open();
    const docs = Array.from({ length: ROWS }, (_, i) => `{"id":"${i}","doc":${storedText(player(i))}}`);
    await store.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
       SELECT 'g', 'live', 'players', x ->> 'id', x -> 'doc' FROM jsonb_array_elements($1::jsonb) AS x`,
      [`[${docs.join(',')}]`],
    );
    for (const [name, keys] of [
      ['by_name', { displayName: 1 }],
      ['by_level', { level: -1 }],
      ['by_country_level', { country: 1, level: 1 }],
    ] as const) {
      const cols = indexColumnsSql(parseIndexKeys(keys), 'doc');
      await store.query(`CREATE INDEX ${name} ON nosql_documents (game_id, stage, collection, ${cols})`);
    }
    await store.query('ANALYZE nosql_documents');
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('find by displayName (equality) → index scan on by_name', async () => {
    const text = await plan(store, { displayName: 'player-4321' });
    expect(text).toMatch(/(Index Scan|Bitmap Index Scan) on by_name/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('find level > 90 (range) → index scan on by_level', async () => {
    const text = await plan(store, { level: { $gt: 90 } });
    expect(text).toMatch(/(Index Scan|Bitmap Index Scan)( Backward)? on by_(country_)?level/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('find level > 90 sorted by level desc limit 20 → index scan, then top-N', async () => {
    const text = await plan(store, { level: { $gt: 90 } }, { level: -1 }, 20);
    expect(text).toMatch(/(Index Scan|Bitmap Index Scan)( Backward)? on by_(country_)?level/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  it('find country and level >= 50 limit 20 → index scan on the compound index', async () => {
    const text = await plan(store, { country: 'JP', level: { $gte: 50 } }, undefined, 20);
    expect(text).toMatch(/(Index Scan|Bitmap Index Scan) on by_(country_)?level/);
    expect(text).not.toMatch(/Seq Scan/);
  });

  describe('with the multikey record (no path of these players holds an array)', () => {
    it('equality → index condition alone', async () => {
      const text = await plan(
        store,
        { displayName: 'player-4321' },
        undefined,
        undefined,
        await factsOf(store),
      );
      expect(text).toMatch(/Index Scan.* (on|using) by_name/);
      expectNoPerRowKeys(text);
    });

    it('range sorted by the indexed field desc, limit 20 → the index read backward, no sort of the matches', async () => {
      const text = await plan(store, { level: { $gt: 50 } }, { level: -1 }, 20, await factsOf(store));
      expect(text).toMatch(/Index Scan( Backward)? using by_level/);
      expect(text).not.toMatch(/(^|->\s+)Sort\b/m);
      expectNoPerRowKeys(text);
    });

    it('sort without a filter, ascending, limit 5 → an index gives the order', async () => {
      const text = await plan(store, {}, { level: 1 }, 5, await factsOf(store));
      expect(text).toMatch(/Index Scan( Backward)? using by_level/);
      expect(text).not.toMatch(/(^|->\s+)Sort\b/m);
    });

    it('count of an equality and of a range → index conditions, no per-row keys', async () => {
      const facts = await factsOf(store);
      for (const q of [{ country: 'JP' }, { level: { $gte: 95 } }]) {
        const text = await plan(store, q, undefined, undefined, facts, true);
        expect(text).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
        expectNoPerRowKeys(text);
      }
    });

    it('compound filter and $in, limit 20 → index conditions', async () => {
      const facts = await factsOf(store);
      const both = await plan(store, { country: 'JP', level: { $gte: 50 } }, undefined, 20, facts);
      expect(both).toMatch(/Index Scan.* (on|using) by_(country_)?level/);
      expectNoPerRowKeys(both);
      const inList = await plan(
        store,
        { displayName: { $in: ['player-1', 'player-2'] } },
        undefined,
        20,
        facts,
      );
      expect(inList).toMatch(/Index Scan.* (on|using) by_name/);
      expectNoPerRowKeys(inList);
    });
  });

  it('count of a string equality on a path an index leads with → the index condition alone, no per-row filter', async () => {
    // With leadsIndex (store/multikey.ts reads it from the catalogue) the stored-JSON comparison, which only
    // speeds up collection scans, is left out: the heap is visited for visibility, no document is read.
    const facts = {
      ...(await factsOf(store)),
      leadsIndex: (p: string) => ['country', 'displayName'].includes(p),
    };
    const text = await plan(store, { country: 'JP' }, undefined, undefined, facts, true);
    expect(text).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
    expect(text).not.toMatch(/Filter:/);
    expectNoPerRowKeys(text);
    // Without an index leading with the path the comparison stays (a scan tests it before the key).
    const unindexed = await plan(store, { country: 'JP' }, undefined, undefined, await factsOf(store), true);
    expect(unindexed).toMatch(/#>/);
  });

  it('indexed finds → the same documents as the filter without index', async () => {
    const params: unknown[] = [];
    const where = compileFilter(parseFilter({ level: { $gt: 90 } }), 'd.doc', params);
    const rows = await store.query<{ n: string | number }>(
      `SELECT count(*) AS n FROM nosql_documents AS d WHERE ${where}`,
      params,
    );
    const expected = Array.from({ length: ROWS }, (_, i) => player(i)).filter((p) => p.level > 90).length;
    expect(Number(rows[0]!.n)).toBe(expected);
  });
});
