// Key statistics (store/indexes.ts): PostgreSQL ignores the statistics of partial indexes, so API indexes
// alone leave the planner guessing 0.5% for every key condition. With expression statistics on the keys, a
// compound filter with a limit (Q4 of the bench) is read through an index scan that stops at the limit,
// not through a bitmap of every entry of the first key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFilter, parseFilter } from '../../src/query/filter.js';
import type { ArrayFacts } from '../../src/query/filter-sql.js';
import { indexColumnsSql, parseIndexKeys } from '../../src/query/indexes.js';
import { storedText } from '../../src/query/values.js';
import { keyStatisticsSql } from '../../src/store/indexes.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const ROWS = 8000;
const COUNTRIES = ['FR', 'DE', 'US', 'JP', 'BR', 'IN', 'GB', 'ES', 'IT', 'CA'];
const player = (i: number) => ({ _id: i, level: 1 + ((i * 7919) % 100), country: COUNTRIES[i % 10]! });

async function plan(store: TestStore, query: unknown, limit?: number, count = false): Promise<string> {
  const params: unknown[] = ['g', 'live', 'players'];
  const facts: ArrayFacts = { arrayFree: () => true, relied: new Set(), leadsIndex: () => true };
  const where = compileFilter(parseFilter(query), 'd.doc', params, facts);
  const sql = `EXPLAIN SELECT ${count ? 'count(*)' : 'd.doc'} FROM nosql_documents AS d
    WHERE d.game_id = $1 AND d.stage = $2 AND d.collection = $3 AND ${where}${limit ? ` LIMIT ${limit}` : ''}`;
  const rows = await store.query<{ 'QUERY PLAN': string }>(sql, params);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

describe.each(STORES)('key statistics on $name', ({ open }) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await open();
    const docs = Array.from({ length: ROWS }, (_, i) => `{"id":"${i}","doc":${storedText(player(i))}}`);
    await store.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
       SELECT 'g', 'live', 'players', x ->> 'id', x -> 'doc' FROM jsonb_array_elements($1::jsonb) AS x`,
      [`[${docs.join(',')}]`],
    );
    // Partial indexes as the API builds them, one per field (the bench's shape).
    for (const field of ['country', 'level']) {
      const cols = indexColumnsSql(parseIndexKeys({ [field]: 1 }), 'doc');
      await store.query(
        `CREATE INDEX by_${field} ON nosql_documents (${cols}, id)
          WHERE game_id = 'g' AND stage = 'live' AND collection = 'players'`,
      );
      await store.query(keyStatisticsSql([field]));
      await store.query(keyStatisticsSql([field])); // IF NOT EXISTS: a second build of the path is a no-op
    }
    await store.query('ANALYZE nosql_documents');
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('the planner estimates an indexed equality from the statistics, not a 0.5% guess', async () => {
    const text = await plan(store, { country: 'JP' }, undefined, true);
    const rows = Number(/rows=(\d+)/.exec(text.split('\n').find((l) => /Scan/.test(l))!)![1]);
    expect(rows).toBeGreaterThan(ROWS / 20);
    expect(rows).toBeLessThan(ROWS / 5);
  });

  it('country and level >= 50, limit 20 → an index scan that stops at the limit, no bitmap of every entry', async () => {
    const text = await plan(store, { country: 'JP', level: { $gte: 50 } }, 20);
    expect(text).toMatch(/Index Scan using by_(country|level)/);
    expect(text).not.toMatch(/Bitmap|Seq Scan/);
  });
});
