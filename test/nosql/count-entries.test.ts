// Count entries (migration 0020, src/store/key-entries.ts) over HTTP: a count of key tests on an indexed path
// reads the index's entries (an Index Only Scan, no document), and every write path keeps the entries equal to
// the keys of the documents: inserts, updates of the key and of other fields, $unset, replacement, upsert,
// findAndModify, removal, an index build while writes go on, a failed build, drop of the index and of the
// collection, and the migration's fill of indexes built before it. Counts stay exact when a path gains an array
// or an index is dropped after a count was compiled (the statement reports it and the count runs again).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFilter } from '../../src/query/filter.js';
import { currentSchema } from '../../src/store/db.js';
import { countSql } from '../../src/store/document-counts.js';
import { renderMigration } from '../../src/store/migrate.js';
import { arrayFacts } from '../../src/store/multikey.js';
import { createWorld, type World } from './world.js';

let w: World;
const NAMES = ['cplayer', 'cwrites', 'cbuild', 'cdrop', 'cmig'];
beforeAll(async () => {
  w = await createWorld();
  for (const name of NAMES) await w.ok('POST', 'preview', `collection/${name}/runtime`, {});
});
afterAll(async () => {
  await w.close();
});

const COUNTRIES = ['GB', 'FR', 'DE', 'JP', 'BR'];
type Player = { _id: number | string; level?: unknown; country?: unknown; xp?: number };
const player = (i: number): Player => {
  const p: Player = { _id: i, level: i % 50, xp: 0 };
  if (i % 7 !== 0) p.country = i % 11 === 0 ? null : COUNTRIES[i % 5];
  return p;
};

const scopeOf = (name: string) => ({
  game: w.apiKey,
  stage: 'preview' as const,
  collection: `script.${name}`,
});
const path = (name: string) => `collection/script.${name}`;
const pool = () => w.server.store.pool;

/** Entries that differ from the keys of the documents (both ways), over the collection's indexes; 0 when exact. */
async function disagreements(name: string): Promise<number> {
  const s = scopeOf(name);
  const { rows } = await pool().query<{ n: string }>(
    `WITH k AS (SELECT * FROM nosql_key_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3),
          want AS (SELECT k.id, pb_pk(d.doc, k.path) AS key, d.id AS doc_id FROM k
                     JOIN nosql_documents AS d ON d.game_id = k.game_id AND d.stage = k.stage AND d.collection = k.collection),
          have AS (SELECT e.index_id, e.key, e.doc_id FROM nosql_key_entries AS e JOIN k ON k.id = e.index_id)
     SELECT ((SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM have) AS a)
           + (SELECT count(*) FROM (SELECT * FROM have EXCEPT SELECT * FROM want) AS b)) AS n`,
    [s.game, s.stage, s.collection],
  );
  return Number(rows[0]!.n);
}

async function keyIndexes(name: string): Promise<Array<{ path: string[]; ready: boolean }>> {
  const s = scopeOf(name);
  const { rows } = await pool().query<{ path: string[]; ready: boolean }>(
    'SELECT path, ready FROM nosql_key_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 ORDER BY id',
    [s.game, s.stage, s.collection],
  );
  return rows;
}

const count = async (name: string, query: unknown) =>
  (await w.ok<{ count: number }>('POST', 'preview', `${path(name)}/count`, { query })).count;

/** The count statement the server would run now (facts read afresh), and its plan. */
async function countPlan(name: string, query: unknown): Promise<string> {
  const stmt = countSql(scopeOf(name), parseFilter(query), await arrayFacts(pool(), scopeOf(name), true));
  const { rows } = await pool().query<{ 'QUERY PLAN': string }>(`EXPLAIN ${stmt.text}`, stmt.values);
  return rows.map((r) => r['QUERY PLAN']).join('\n');
}

const matches = (docs: Player[], test: (p: Player) => boolean) => docs.filter(test).length;
const num = (v: unknown) => (typeof v === 'number' ? v : Number.NaN);

const SHAPES: Array<[unknown, (p: Player) => boolean]> = [
  [{ country: 'GB' }, (p) => p.country === 'GB'],
  [{ country: { $in: ['GB', 'JP'] } }, (p) => p.country === 'GB' || p.country === 'JP'],
  [{ country: null }, (p) => p.country === undefined || p.country === null],
  [{ country: { $exists: true } }, (p) => p.country !== undefined],
  [{ level: { $gte: 40 } }, (p) => num(p.level) >= 40],
  [{ level: { $gt: 10, $lte: 14 } }, (p) => num(p.level) > 10 && num(p.level) <= 14],
  [{ level: { $lt: 5 } }, (p) => num(p.level) < 5],
  [{ level: 7 }, (p) => p.level === 7],
];

async function expectCounts(name: string, docs: Player[]): Promise<void> {
  for (const [query, test] of SHAPES) {
    expect({ query, n: await count(name, query) }).toEqual({ query, n: matches(docs, test) });
  }
}

describe('counts read the count entries of an index', () => {
  const docs = Array.from({ length: 3000 }, (_, i) => player(i));

  it('equality, $in, null, $exists and ranges on indexed paths → an Index Only Scan of the entries, exact', async () => {
    const n = 'cplayer';
    await w.ok('POST', 'preview', `${path(n)}/insert`, docs);
    await w.ok('POST', 'preview', `${path(n)}/index/country_1`, { country: 1 });
    await w.ok('POST', 'preview', `${path(n)}/index/level_1`, { level: 1 });
    expect(await keyIndexes(n)).toEqual([
      { path: ['country'], ready: true },
      { path: ['level'], ready: true },
    ]);
    expect(await disagreements(n)).toBe(0);
    // The visibility map, which an Index Only Scan needs to skip the heap (autovacuum's job, set by 0020).
    await pool().query('VACUUM ANALYZE nosql_key_entries');
    for (const [query, test] of SHAPES) {
      const plan = await countPlan(n, query);
      expect(plan).not.toMatch(/nosql_documents/);
      // A count matching most of a small table's entries is read by a scan of it, as the planner prefers.
      if (matches(docs, test) < docs.length / 4) {
        expect(plan).toMatch(/Index Only Scan using nosql_key_entries_pkey/);
        expect(plan).not.toMatch(/Seq Scan/);
      }
    }
    await expectCounts(n, docs);
    // A filter on two paths, or on an unindexed one, still counts the documents.
    expect(await countPlan(n, { country: 'GB', level: 3 })).toMatch(/nosql_documents/);
    expect(await count(n, { country: 'GB', level: 3 })).toBe(
      matches(docs, (p) => p.country === 'GB' && p.level === 3),
    );
    expect(await countPlan(n, { xp: 0 })).toMatch(/nosql_documents/);
  });

  it('an array brought onto the path → the count reads the documents with array semantics, exact', async () => {
    const n = 'cplayer';
    const before = await arrayFacts(pool(), scopeOf(n), true);
    const stale = countSql(scopeOf(n), parseFilter({ level: { $gte: 40 } }), before);
    expect(stale.text).toMatch(/nosql_key_entries/);
    await w.ok('POST', 'preview', `${path(n)}/insert`, { _id: 'arr', level: [1000, -5], country: 'GB' });
    // Compiled before the array came: the statement reports it in its own snapshot.
    const { rows } = await pool().query<{ stale: boolean }>(stale.text, stale.values);
    expect(rows[0]!.stale).toBe(true);
    expect(await countPlan(n, { level: { $gte: 40 } })).toMatch(/nosql_documents/);
    const withArray = [...docs, { _id: 'arr', level: [1000, -5], country: 'GB' }];
    expect(await count(n, { level: { $gte: 40 } })).toBe(matches(docs, (p) => num(p.level) >= 40) + 1);
    expect(await count(n, { level: { $lt: 5 } })).toBe(matches(docs, (p) => num(p.level) < 5) + 1);
    // country never held an array: its entries still answer.
    expect(await countPlan(n, { country: 'GB' })).toMatch(/nosql_key_entries/);
    expect(await count(n, { country: 'GB' })).toBe(matches(withArray, (p) => p.country === 'GB'));
    expect(await disagreements(n)).toBe(0);
  });
});

describe('every write keeps the entries equal to the documents', () => {
  it('insert, update of the key and of other fields, $unset, replace, upsert, findAndModify, remove', async () => {
    const n = 'cwrites';
    const model = new Map<unknown, Player>();
    const put = (p: Player) => model.set(p._id, p);
    const all = () => [...model.values()];
    await w.ok('POST', 'preview', `${path(n)}/index/country_1`, { country: 1 });
    await w.ok('POST', 'preview', `${path(n)}/index/level_1_country_1`, { level: 1, country: 1 });
    const docs = Array.from({ length: 300 }, (_, i) => player(i));
    await w.ok('POST', 'preview', `${path(n)}/insert`, docs);
    docs.forEach(put);
    const step = async () => {
      expect(await disagreements(n)).toBe(0);
      await expectCounts(n, all());
    };
    await step();

    await w.ok('POST', 'preview', `${path(n)}/update`, {
      query: { level: { $lt: 10 } },
      update: { $inc: { level: 100 } },
      multi: true,
    });
    for (const p of all()) if (num(p.level) < 10) p.level = num(p.level) + 100;
    await step();

    await w.ok('POST', 'preview', `${path(n)}/update`, {
      query: { country: 'FR' },
      update: { $set: { xp: 5 } },
      multi: true,
    });
    await step();

    await w.ok('POST', 'preview', `${path(n)}/update`, {
      query: { country: 'DE' },
      update: { $unset: { country: '' } },
      multi: true,
    });
    for (const p of all()) if (p.country === 'DE') delete p.country;
    await step();

    await w.ok('POST', 'preview', `${path(n)}/update`, {
      query: { _id: 1 },
      update: { level: 3, country: 'JP' },
    });
    put({ _id: 1, level: 3, country: 'JP' });
    await w.ok('POST', 'preview', `${path(n)}/update`, {
      query: { _id: 'new' },
      update: { $set: { level: 42, country: 'GB' } },
      upsert: true,
    });
    put({ _id: 'new', level: 42, country: 'GB' });
    await step();

    await w.ok('POST', 'preview', `collection/script.${n}/findAndModify`, {
      query: { _id: 2 },
      update: { $set: { country: 'BR', level: 49 } },
    });
    put({ ...model.get(2)!, country: 'BR', level: 49 });
    await step();

    await w.ok('POST', 'preview', `${path(n)}/remove`, { query: { country: 'GB' } });
    for (const p of all()) if (p.country === 'GB') model.delete(p._id);
    await step();
  });
});

describe('index builds, drops and the migration', () => {
  it('writes while an index is built → the entries match the documents when it is ready', async () => {
    const n = 'cbuild';
    await w.ok(
      'POST',
      'preview',
      `${path(n)}/insert`,
      Array.from({ length: 2000 }, (_, i) => player(i)),
    );
    const writes = async (from: number) => {
      for (let i = from; i < from + 40; i++) {
        await w.ok('POST', 'preview', `${path(n)}/update`, {
          query: { level: i },
          update: { $inc: { level: 1 } },
          multi: true,
        });
        await w.ok('POST', 'preview', `${path(n)}/insert`, player(5000 + i));
        await w.ok('POST', 'preview', `${path(n)}/remove`, { query: { _id: 3 * i } });
      }
    };
    await Promise.all([
      w.ok('POST', 'preview', `${path(n)}/index/level_1`, { level: 1 }),
      writes(0),
      writes(40),
    ]);
    expect(await keyIndexes(n)).toEqual([{ path: ['level'], ready: true }]);
    expect(await disagreements(n)).toBe(0);
    // On two paths, the count reads the documents.
    expect(await countPlan(n, { level: { $gte: 20 }, xp: 0 })).toMatch(/nosql_documents/);
    const fromDocuments = await count(n, { level: { $gte: 20 }, xp: 0 });
    expect(await countPlan(n, { level: { $gte: 20 } })).toMatch(/nosql_key_entries/);
    expect(await count(n, { level: { $gte: 20 } })).toBe(fromDocuments);
  });

  it('a unique build that fails leaves no count index behind', async () => {
    const n = 'cbuild';
    const res = await w.call('POST', 'preview', `${path(n)}/index/country_u?unique=true`, { country: 1 });
    expect(res.status).toBe(409);
    expect(await keyIndexes(n)).toEqual([{ path: ['level'], ready: true }]);
  });

  it('drop of the index, then of the collection → their entries are gone; counts stay exact', async () => {
    const n = 'cdrop';
    const docs = Array.from({ length: 500 }, (_, i) => player(i));
    await w.ok('POST', 'preview', `${path(n)}/insert`, docs);
    await w.ok('POST', 'preview', `${path(n)}/index/country_1`, { country: 1 });
    await w.ok('POST', 'preview', `${path(n)}/index/level_1`, { level: 1 });
    const compiled = countSql(
      scopeOf(n),
      parseFilter({ country: 'GB' }),
      await arrayFacts(pool(), scopeOf(n), true),
    );
    expect(compiled.text).toMatch(/nosql_key_entries/);
    await w.ok('DELETE', 'preview', `${path(n)}/index/country_1`);
    expect(await keyIndexes(n)).toEqual([{ path: ['level'], ready: true }]);
    // Compiled while the index was there: the statement reports it gone.
    const { rows } = await pool().query<{ stale: boolean }>(compiled.text, compiled.values);
    expect(rows[0]!.stale).toBe(true);
    await expectCounts(n, docs);
    expect(await disagreements(n)).toBe(0);
    const entries = async () =>
      Number((await pool().query<{ n: string }>('SELECT count(*) AS n FROM nosql_key_entries')).rows[0]!.n);
    const before = await entries();
    await w.ok('DELETE', 'preview', path(n));
    expect(await keyIndexes(n)).toEqual([]);
    expect(await entries()).toBe(before - 500);
  });

  it('migration 0020 fills the entries of indexes built before it', async () => {
    const n = 'cmig';
    const docs = Array.from({ length: 400 }, (_, i) => player(i));
    await w.ok('POST', 'preview', `${path(n)}/insert`, docs);
    await w.ok('POST', 'preview', `${path(n)}/index/country_1`, { country: 1 });
    // As before 0020: the index without a count index or entries.
    const s = scopeOf(n);
    await pool().query(
      `WITH k AS (DELETE FROM nosql_key_indexes WHERE game_id = $1 AND stage = $2 AND collection = $3 RETURNING id)
       DELETE FROM nosql_key_entries USING k WHERE index_id = k.id`,
      [s.game, s.stage, s.collection],
    );
    expect(await keyIndexes(n)).toEqual([]);
    const sql = readFileSync(
      resolve(import.meta.dirname, '../../src/store/migrations/0020_index_key_entries.sql'),
      'utf8',
    );
    const client = await pool().connect();
    try {
      await client.query('BEGIN');
      await client.query(renderMigration(sql, (await currentSchema(client))!));
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await keyIndexes(n)).toEqual([{ path: ['country'], ready: true }]);
    expect(await disagreements(n)).toBe(0);
    await expectCounts(n, docs);
  });
});
