// Counts (store/document-counts.ts countSql, the statement countMatches runs) over partial indexes as the API
// builds them: an indexed equality, $in or range on a path that never held an array is the index condition
// alone (no per-row Filter, no array arm, no document read); an empty filter is an Index Only Scan; each
// count is exact. When a document brings an array onto the indexed path, a count compiled with the old
// record reports it in the same statement (after which countMatches compiles again) and one compiled with the
// new record counts the array's elements as MongoDB does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/query/filter.js';
import type { ArrayFacts } from '../../src/query/filter-sql.js';
import { indexColumnsSql, parseIndexKeys } from '../../src/query/indexes.js';
import { storedText } from '../../src/query/values.js';
import { countSql } from '../../src/store/document-counts.js';
import { keyStatisticsSql } from '../../src/store/indexes.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const ROWS = 8000;
const COUNTRIES = ['FR', 'DE', 'US', 'JP', 'BR', 'IN', 'GB', 'ES', 'IT', 'CA'];
const player = (i: number) => ({ _id: i, level: 1 + ((i * 7919) % 100), country: COUNTRIES[i % 10]! });
const SCOPE = { game: 'g', stage: 'live' as const, collection: 'players' };

/** The facts a read compiles with: the record as the triggers wrote it, and the paths the indexes lead with. */
async function factsOf(store: TestStore): Promise<ArrayFacts> {
  return factsFrom(await recordOf(store));
}

async function recordOf(store: TestStore): Promise<Set<string>> {
  const rows = await store.query<{ field: string }>(
    "SELECT field FROM nosql_multikey WHERE collection = 'players'",
  );
  return new Set(rows.map((r) => r.field));
}

/** A read's facts, fresh for each statement (relied collects the fields one compilation relied on). */
function factsFrom(fields: Set<string>): ArrayFacts {
  return {
    arrayFree: (f) => !fields.has(f),
    relied: new Set(),
    leadsIndex: (p) => ['country', 'level'].includes(p),
  };
}

async function countRow(store: TestStore, query: unknown, facts: ArrayFacts) {
  const stmt = countSql(SCOPE, parseFilter(query), facts);
  const rows = await store.query<{ n: string | number; stale: boolean }>(stmt.text, stmt.values);
  return { n: Number(rows[0]!.n), stale: rows[0]!.stale };
}

async function count(store: TestStore, query: unknown, facts: ArrayFacts): Promise<number> {
  const { n, stale } = await countRow(store, query, facts);
  expect(stale).toBe(false);
  return n;
}

async function plan(store: TestStore, query: unknown, facts: ArrayFacts): Promise<string> {
  const stmt = countSql(SCOPE, parseFilter(query), facts);
  const rows = await store.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${stmt.text}`, stmt.values);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

/** The index found the matches and nothing is tested per row (the one-time record check aside). */
function expectIndexOnly(text: string, index: RegExp): void {
  expect(text).toMatch(index);
  expect(text).not.toMatch(/Seq Scan|pb_walk|pb_sk_|pb_arr/);
  // Filters of the record's check (on nosql_multikey) are once per statement; none may test a document.
  const perRow = text.split('\n').filter((l) => /Filter:.*(pb_|doc)/.test(l));
  expect(perRow).toEqual([]);
}

const SHAPES: Array<[string, unknown, (p: ReturnType<typeof player>) => boolean, RegExp]> = [
  ['equality', { country: 'JP' }, (p) => p.country === 'JP', /Index Scan.*by_country/],
  [
    '$in',
    { country: { $in: ['JP', 'FR', 'GB'] } },
    (p) => ['JP', 'FR', 'GB'].includes(p.country),
    /Index Scan.*by_country/,
  ],
  ['range $gte', { level: { $gte: 95 } }, (p) => p.level >= 95, /Index Scan.*by_level/],
  ['range $lt', { level: { $lt: 4 } }, (p) => p.level < 4, /Index Scan.*by_level/],
  [
    'two-sided range',
    { level: { $gt: 10, $lte: 14 } },
    (p) => p.level > 10 && p.level <= 14,
    /Index Scan.*by_level/,
  ],
];

describe.each(STORES)('count plans on $name', ({ open }) => {
  let store: TestStore;
  const players = Array.from({ length: ROWS }, (_, i) => player(i));
  beforeAll(async () => {
    store = await open();
    const docs = players.map((p) => `{"id":"${p._id}","doc":${storedText(p)}}`);
    await store.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
       SELECT 'g', 'live', 'players', x ->> 'id', x -> 'doc' FROM jsonb_array_elements($1::jsonb) AS x`,
      [`[${docs.join(',')}]`],
    );
    for (const field of ['country', 'level']) {
      const cols = indexColumnsSql(parseIndexKeys({ [field]: 1 }), 'doc');
      await store.query(
        `CREATE INDEX by_${field} ON nosql_documents (${cols}, id)
          WHERE game_id = 'g' AND stage = 'live' AND collection = 'players'`,
      );
      await store.query(keyStatisticsSql([field]));
    }
    // VACUUM sets the visibility map, which an Index Only Scan needs to skip the heap (autovacuum's job).
    await store.query('VACUUM ANALYZE nosql_documents');
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it.each(SHAPES)('%s → the index condition alone, exact', async (_name, query, test, index) => {
    const facts = await factsOf(store);
    expectIndexOnly(await plan(store, query, facts), index);
    expect(await count(store, query, facts)).toBe(players.filter(test).length);
  });

  it('no filter → an Index Only Scan (the statement references no document)', async () => {
    const facts = await factsOf(store);
    const text = await plan(store, {}, facts);
    expect(text).toMatch(/Index Only Scan/);
    expect(text).not.toMatch(/Seq Scan|Bitmap Heap Scan/);
    expect(await count(store, {}, facts)).toBe(ROWS);
  });

  it('an equality and a range on two indexed paths → an index, exact', async () => {
    const facts = await factsOf(store);
    const query = { country: 'GB', level: { $gte: 50 } };
    const text = await plan(store, query, facts);
    expect(text).toMatch(/Index Scan.*by_(country|level)/);
    expect(text).not.toMatch(/Seq Scan|pb_walk|pb_sk_|pb_arr/);
    expect(await count(store, query, facts)).toBe(
      players.filter((p) => p.country === 'GB' && p.level >= 50).length,
    );
  });

  it('a document bringing an array onto the indexed path: the old facts report it, the new ones count it', async () => {
    const before = await recordOf(store);
    await store.query(
      `INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ('g', 'live', 'players', 'arr', $1)`,
      [storedText({ _id: 'arr', level: [1000, -5], country: 'GB' })],
    );
    // Compiled before the record knew: the statement reports it in its own snapshot (countMatches then reads
    // the record and compiles again); a count on paths the record does not name stands.
    expect((await countRow(store, { level: { $gte: 95 } }, factsFrom(before))).stale).toBe(true);
    expect(await countRow(store, { country: 'JP' }, factsFrom(before))).toEqual({
      n: players.filter((p) => p.country === 'JP').length,
      stale: false,
    });
    const facts = await factsOf(store);
    expect(facts.arrayFree('level')).toBe(false);
    // {country: 'GB', level: [1000, -5]}: each operator matches when some element does (MongoDB applies
    // $gt and $lte of one path to the elements separately: 1000 > 10 and -5 <= 14), so it counts for every
    // shape but the equality on JP.
    for (const [name, query, test] of SHAPES) {
      const extra = name === 'equality' ? 0 : 1;
      expect(await count(store, query, facts)).toBe(players.filter(test).length + extra);
    }
    // The array arm is an index condition too: the index still finds the matches.
    expect(await plan(store, { level: { $gte: 95 } }, facts)).toMatch(/Index Scan.*by_level/);
    // country never held an array: its count still needs no per-row test.
    expectIndexOnly(await plan(store, { country: 'JP' }, facts), /Index Scan.*by_country/);
  });
});
