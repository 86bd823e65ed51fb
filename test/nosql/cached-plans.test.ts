// Reads on cached plans (src/store/query.ts planCachedQuery, decided in src/store/read-plans.ts): on PostgreSQL a
// read whose scope is written as literals and that gives the planner one index at most becomes, the second time
// its text runs, a named prepared statement of the connection; one with two indexes to choose from never does;
// a connection keeps MAX_CACHED_PLANS of them at most; answers stay exact past the switch to a generic plan,
// including after a document brings an array onto the indexed path. The same on both stores (the embedded
// store's one session included).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/query/filter.js';
import { parseIndexKeys } from '../../src/query/indexes.js';
import { idKey, storedText } from '../../src/query/values.js';
import type { Store } from '../../src/store/db.js';
import { countMatches } from '../../src/store/document-counts.js';
import { explainRead, readTextBatches } from '../../src/store/document-reads.js';
import { insertDocuments } from '../../src/store/documents.js';
import { buildPgIndex, recordIndex } from '../../src/store/indexes.js';
import { MAX_CACHED_PLANS } from '../../src/store/query.js';
import { freshStore, oneConnection } from '../harness.js';

const SCOPE = { game: 'plangame1', stage: 'preview' as const, collection: 'players' };
const COUNTRIES = ['FR', 'DE', 'US', 'JP', 'BR'];
const N = 2000;
const player = (i: number) => ({ _id: `p${i}`, level: i % 100, country: COUNTRIES[i % 5]!, n: i });

async function find(store: Store, filter: unknown, limit?: number, sort: Array<[string, 1 | -1]> = []) {
  const plan = {
    filter: parseFilter(filter),
    sort: sort.map(([path, dir]) => ({ path, parts: path.split('.'), dir })),
    skip: 0,
    limit,
  };
  const out: number[] = [];
  for await (const texts of readTextBatches(store.pool, SCOPE, plan))
    for (const t of texts) out.push((JSON.parse(t) as { n: number }).n);
  return out;
}

/** The cached-plan statements of the store's one connection, with how often each ran on a generic plan. */
async function cachedPlans(
  store: Store,
): Promise<Array<{ statement: string; generic: number; custom: number }>> {
  const { rows } = await store.pool.query<{ statement: string; generic: string; custom: string }>(
    `SELECT statement, generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements
      WHERE name LIKE 'pb\\_r\\_%'`,
  );
  return rows.map((r) => ({ statement: r.statement, generic: Number(r.generic), custom: Number(r.custom) }));
}

describe('reads on cached plans', () => {
  let fresh: Awaited<ReturnType<typeof freshStore>>;
  // One connection, so that the session the statements are prepared in is the one the checks read.
  let single: Store;

  beforeAll(async () => {
    fresh = await freshStore();
    single = await oneConnection(fresh);
    const docs = Array.from({ length: N }, (_, i) => player(i));
    await insertDocuments(single.pool, SCOPE, {
      ids: docs.map((d) => idKey(d._id)),
      texts: docs.map((d) => storedText(d)),
    });
    for (const [field, hex] of [
      ['level', 'a'],
      ['country', 'b'],
    ] as const) {
      const pgName = `nx_${hex.repeat(40)}`;
      const keys = parseIndexKeys({ [field]: 1 });
      await buildPgIndex(
        single.pool,
        SCOPE,
        pgName,
        { keys, unique: false },
        { concurrently: false, buildTimeoutMs: 60_000 },
      );
      await recordIndex(single.pool, SCOPE, {
        name: `${field}_1`,
        keys: [[field, 1]],
        unique: false,
        pg_name: pgName,
      });
    }
    await single.pool.query('ANALYZE nosql_documents');
  }, 60_000);

  afterAll(async () => {
    if (single !== fresh.store) await single.close();
    await fresh.store.close();
    await fresh.drop();
  });

  const levels = (level: number) => Array.from({ length: N / 100 }, (_, k) => level + 100 * k);

  it('an equality on one indexed path, run ten times with other values → each answer exact; one named statement that went to a generic plan', async () => {
    for (let round = 0; round < 10; round++) {
      const level = 7 + round;
      expect((await find(single, { level }, 100)).sort((a, b) => a - b)).toEqual(levels(level));
      // Over the documents (n is not indexed, so the count entries cannot answer): one index to choose.
      expect(
        await countMatches(
          single.pool,
          SCOPE,
          parseFilter({ country: COUNTRIES[round % 5], n: { $gte: 0 } }),
        ),
      ).toBe(N / 5);
      // Over the count entries: planned at each run, never named (src/store/document-counts.ts).
      expect(await countMatches(single.pool, SCOPE, parseFilter({ country: COUNTRIES[round % 5] }))).toBe(
        N / 5,
      );
    }
    const plans = await cachedPlans(single);
    const read = plans.filter((p) => p.statement.includes("pb_pk(doc, ARRAY[E'level']"));
    const count = plans.filter((p) => p.statement.startsWith('SELECT count(*)'));
    expect(read).toHaveLength(1);
    expect(count).toHaveLength(1);
    expect(count[0]!.statement).toContain('FROM nosql_documents');
    expect(plans.filter((p) => p.statement.includes('nosql_key_entries'))).toEqual([]);
    // The first run of a text goes unnamed; the nine after it are executions of the named statement.
    expect(read[0]!.generic + read[0]!.custom).toBe(9);
    expect(read[0]!.generic).toBeGreaterThan(0);
    expect(read[0]!.statement).toContain(
      "game_id = 'plangame1' AND stage = 'preview' AND collection = 'players'",
    );
  });

  it('a filter on two indexed paths, or a sort on one and a filter on another → never named (a generic plan could pick the wrong index)', async () => {
    const before = (await cachedPlans(single)).length;
    for (let round = 0; round < 8; round++) {
      const both = await find(single, { country: 'FR', level: { $gte: 90 } }, 100);
      expect(both.sort((a, b) => a - b)).toEqual(
        Array.from({ length: N }, (_, i) => i).filter((i) => i % 5 === 0 && i % 100 >= 90),
      );
      // DE is i % 5 = 1; its highest level is 96 (i = 96, 196, ...), ties by _id descending (as text: p996, p96, p896).
      expect(await find(single, { country: 'DE' }, 3, [['level', -1]])).toEqual([996, 96, 896]);
    }
    expect((await cachedPlans(single)).length).toBe(before);
  });

  it('a cached plan stays exact when a document brings an array onto the indexed path', async () => {
    for (let round = 0; round < 8; round++)
      expect(await find(single, { level: 42 }, 100)).toHaveLength(N / 100);
    const holder = { _id: 'arr1', level: [42, 43], country: 'FR', n: -1 };
    await insertDocuments(single.pool, SCOPE, { ids: [idKey(holder._id)], texts: [storedText(holder)] });
    expect((await find(single, { level: 42 }, 100)).sort((a, b) => a - b)).toEqual([-1, ...levels(42)]);
    expect((await find(single, { level: 43 }, 100)).sort((a, b) => a - b)).toEqual([-1, ...levels(43)]);
    expect(await countMatches(single.pool, SCOPE, parseFilter({ level: 43 }))).toBe(N / 100 + 1);
  });

  it("a session that lost its statements (DEALLOCATE ALL, as a pooler's DISCARD ALL does) → the reads go on exact, and are prepared again", async () => {
    for (let round = 0; round < 3; round++)
      expect(await find(single, { country: 'BR' }, 100)).toHaveLength(100);
    expect((await cachedPlans(single)).some((p) => p.statement.includes("E'country'"))).toBe(true);
    await single.pool.query('DEALLOCATE ALL');
    expect(await cachedPlans(single)).toEqual([]);
    for (let round = 0; round < 3; round++) {
      const rows = await find(single, { country: 'BR' }, 100);
      expect(rows).toHaveLength(100);
      expect(rows.every((i) => i % 5 === 4)).toBe(true);
    }
    expect((await cachedPlans(single)).some((p) => p.statement.includes("E'country'"))).toBe(true);
  });

  it(`120 distinct texts → ${MAX_CACHED_PLANS} named at most, the least recently used deallocated, answers exact`, async () => {
    // Two filter shapes, each with limits 1..60: 120 texts, each run twice, the newest last.
    const upToJP = new Set([0, 1, 3, 4]);
    for (let limit = 1; limit <= 60; limit++) {
      for (let twice = 0; twice < 2; twice++) {
        const jp = await find(single, { country: 'JP' }, limit);
        expect(jp).toHaveLength(limit);
        expect(jp.every((i) => i % 5 === 3)).toBe(true);
        const some = await find(single, { country: { $lte: 'JP' } }, limit);
        expect(some).toHaveLength(limit);
        expect(some.every((i) => i === -1 || upToJP.has(i % 5))).toBe(true);
      }
    }
    const plans = await cachedPlans(single);
    expect(plans.length).toBe(MAX_CACHED_PLANS);
    // The newest are kept (limit 60's), the oldest (limit 1's) were deallocated.
    expect(plans.filter((p) => p.statement.endsWith(' LIMIT 60'))).toHaveLength(2);
    expect(plans.filter((p) => p.statement.endsWith(' LIMIT 1'))).toEqual([]);
  });
});

// A one-sided range on the path a read walks in index order to a limit is a row comparison with the id column
// (query/filter-sql.ts rowRange), so that its cached plan is the index walk: the same answers as the plain range,
// at the bound itself, across types (MongoDB's type brackets), in both directions, past the generic plan.
describe('ranges on the sorted path, with a limit', () => {
  let fresh: Awaited<ReturnType<typeof freshStore>>;
  const scope = { ...SCOPE, collection: 'ranges' };
  const docs: Array<{ _id: string; score?: number | string | boolean | null }> = [];
  for (let i = 0; i < 100; i++) docs.push({ _id: `r${i}`, score: i % 50 });
  docs.push({ _id: 'f1', score: 10.5 }, { _id: 's1', score: '30' }, { _id: 's2', score: 'abc' });
  docs.push({ _id: 's3', score: 'b' }, { _id: 'n1', score: null }, { _id: 'm1' }, { _id: 't1', score: true });

  beforeAll(async () => {
    fresh = await freshStore();
    await insertDocuments(fresh.store.pool, scope, {
      ids: docs.map((d) => idKey(d._id)),
      texts: docs.map((d) => storedText(d)),
    });
    const keys = parseIndexKeys({ score: 1 });
    const pgName = `nx_${'c'.repeat(40)}`;
    await buildPgIndex(
      fresh.store.pool,
      scope,
      pgName,
      { keys, unique: false },
      { concurrently: false, buildTimeoutMs: 60_000 },
    );
    await recordIndex(fresh.store.pool, scope, {
      name: 'score_1',
      keys: [['score', 1]],
      unique: false,
      pg_name: pgName,
    });
  }, 60_000);

  afterAll(async () => {
    await fresh.store.close();
    await fresh.drop();
  });

  /** What MongoDB answers: the same type's values in range, by score then _id (as stored ids) in the sort's direction. */
  function expected(op: string, v: number | string, dir: 1 | -1, limit: number): string[] {
    const holds = (x: unknown) =>
      typeof x === typeof v &&
      (op === '$gt' ? x! > v : op === '$gte' ? x! >= v : op === '$lt' ? x! < v : x! <= v);
    const key = (id: string) => idKey(id);
    return docs
      .filter((d) => holds(d.score))
      .sort((a, b) => {
        const by =
          (a.score as number) < (b.score as number)
            ? -1
            : (a.score as number) > (b.score as number)
              ? 1
              : key(a._id) < key(b._id)
                ? -1
                : 1;
        return by * dir;
      })
      .slice(0, limit)
      .map((d) => d._id);
  }

  it("$gt, $gte, $lt and $lte at and around the bounds, numbers and strings, both directions, eight times each → the plain range's answer", async () => {
    for (const op of ['$gt', '$gte', '$lt', '$lte']) {
      for (const v of [10, 10.5, 30, 0, 49, -1, 50, '30', 'b']) {
        for (const dir of [1, -1] as const) {
          const want = expected(op, v, dir, 7);
          for (let round = 0; round < 8; round++) {
            const plan = {
              filter: parseFilter({ score: { [op]: v } }),
              sort: [{ path: 'score', parts: ['score'], dir }],
              skip: 0,
              limit: 7,
            };
            const got: string[] = [];
            for await (const texts of readTextBatches(fresh.store.pool, scope, plan))
              for (const t of texts) got.push((JSON.parse(t) as { _id: string })._id);
            expect(got, `${op} ${JSON.stringify(v)} sort ${dir}`).toEqual(want);
          }
        }
      }
    }
  });

  it('its plan → the index walked in the sort order with the row comparison as its condition, no sort, no per-row filter', async () => {
    for (const [op, dir] of [
      ['$gt', -1],
      ['$lte', 1],
    ] as const) {
      const plan = {
        filter: parseFilter({ score: { [op]: 10 } }),
        sort: [{ path: 'score', parts: ['score'], dir }],
        skip: 0,
        limit: 7,
      };
      const text = JSON.stringify(await explainRead(fresh.store.pool, scope, plan));
      expect(text).toMatch(new RegExp(`"Index Name":"nx_${'c'.repeat(40)}"`));
      expect(text).toMatch(/"Index Cond":"[^"]*ROW\(pb_pk\(doc, '\{score\}'::text\[\]\), id\)/);
      expect(text).not.toMatch(/"Node Type":"(Sort|Seq Scan)"/);
      expect(text).not.toMatch(/"Filter":"[^"]*pb_pk/);
    }
  });
});
