// A filter that is an _id equality alone (a string or an ObjectId) compiles to the id column alone: the primary
// key answers it, no key function runs per row, and it matches exactly what MongoDB matches (an ObjectId and the
// string of its hex are different _ids).
import { ObjectId } from 'bson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/query/filter.js';
import { idKey, storedText } from '../../src/query/values.js';
import { compileWhere } from '../../src/store/document-reads.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const scope = { game: 'g', stage: 'live', collection: 'c' } as const;
const HEX = '5f1d7f9e8b3c2a1d0e4f6a7b';

// Filters are in their wire form, as a request carries them ({$oid: ...} for an ObjectId).
describe('the compiled filter of an _id equality', () => {
  it('is the id column alone for a string or an ObjectId, bare or with $eq', () => {
    for (const filter of [
      { _id: 'p1' },
      { _id: { $eq: 'p1' } },
      { _id: { $oid: HEX } },
      { $and: [{ _id: 'p1' }] },
    ]) {
      const where = compileWhere(scope, parseFilter(filter));
      expect(where.text).toBe("game_id = 'g' AND stage = 'live' AND collection = 'c' AND id = $1");
      expect(where.values).toHaveLength(1);
    }
  });

  it('binds the scope as $1..$3 when a name falls outside the patterns its literals need', () => {
    const odd = { game: "g'1", stage: 'live', collection: 'c' } as const;
    const where = compileWhere(odd, parseFilter({ _id: 'p1' }));
    expect(where.text).toBe('game_id = $1 AND stage = $2 AND collection = $3 AND id = $4');
    expect(where.values).toEqual(["g'1", 'live', 'c', idKey('p1')]);
  });

  it('keeps the filter for any other _id and beside other conditions', () => {
    for (const filter of [{ _id: 5 }, { _id: { a: 1 } }, { _id: 'p1', level: 3 }, { _id: { $gt: 'p1' } }]) {
      expect(compileWhere(scope, parseFilter(filter)).text).toMatch(/doc/);
    }
  });
});

describe.each(STORES)('an _id equality on $name', ({ open }) => {
  let store: TestStore;
  const docs = [
    { _id: 'p1', n: 1 },
    { _id: new ObjectId(HEX), n: 2 },
    { _id: HEX, n: 3 },
    { _id: 7, n: 4 },
  ];
  beforeAll(async () => {
    store = await open();
    for (const d of docs)
      await store.query(
        'INSERT INTO nosql_documents (game_id, stage, collection, id, doc) VALUES ($1, $2, $3, $4, $5::jsonb)',
        ['g', 'live', 'c', idKey(d._id), storedText(d)],
      );
  });
  afterAll(async () => {
    await store?.close();
  });

  async function matches(filter: unknown): Promise<number[]> {
    const where = compileWhere(scope, parseFilter(filter));
    const rows = await store.query<{ n: number }>(
      `SELECT (doc -> 'n')::int AS n FROM nosql_documents WHERE ${where.text} ORDER BY 1`,
      where.values,
    );
    return rows.map((r) => r.n);
  }

  it('matches the one document with that _id, of that type', async () => {
    expect(await matches({ _id: 'p1' })).toEqual([1]);
    expect(await matches({ _id: { $oid: HEX } })).toEqual([2]);
    expect(await matches({ _id: HEX })).toEqual([3]);
    expect(await matches({ _id: { $eq: 'nobody' } })).toEqual([]);
  });

  it('is planned on the primary key, with no key function', async () => {
    const where = compileWhere(scope, parseFilter({ _id: 'p1' }));
    const rows = await store.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT doc FROM nosql_documents WHERE ${where.text}`,
      where.values,
    );
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index Scan using nosql_documents_pkey/);
    expect(plan).not.toMatch(/pb_/);
  });
});
