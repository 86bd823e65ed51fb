// Document writes run as named prepared statements on PostgreSQL (src/store/query.ts, preparedQuery): the
// answers stay the same past the switch to a generic plan, a session that lost its statements parses them
// again, and the embedded store (whose clients share one session) never names a statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/db.js';
import { insertDocuments, saveDocument } from '../../src/store/documents.js';
import { freshStore, oneConnection, storeKind, TEST_DATABASE_URL } from '../harness.js';

const scope = (collection: string) => ({ game: 'prepgame1', stage: 'preview' as const, collection });
const doc = (id: string, n: number) => JSON.stringify({ _id: id, n, tags: ['a'] });

async function stored(store: Store, collection: string): Promise<Array<{ id: string; n: number }>> {
  const { rows } = await store.pool.query<{ id: string; n: number }>(
    `SELECT id, (doc->>'n')::int AS n FROM nosql_documents
      WHERE game_id = 'prepgame1' AND stage = 'preview' AND collection = $1 ORDER BY id`,
    [collection],
  );
  return rows;
}

async function preparedNames(store: Store): Promise<string[]> {
  const { rows } = await store.pool.query<{ name: string }>(
    "SELECT name FROM pg_prepared_statements WHERE name LIKE 'pb\\_%' ORDER BY name",
  );
  return rows.map((r) => r.name);
}

describe('document writes as prepared statements', () => {
  let fresh: Awaited<ReturnType<typeof freshStore>>;
  // One connection, so that the session the statements are prepared in is the one the checks read.
  let single: Store;

  beforeAll(async () => {
    fresh = await freshStore();
    single = await oneConnection(fresh);
  });

  afterAll(async () => {
    if (single !== fresh.store) await single.close();
    await fresh.store.close();
    await fresh.drop();
  });

  it('twelve inserts and saves over three collections (past the generic plan switch) → every row where it was written, each save telling a replace from an insert', async () => {
    for (let i = 0; i < 12; i++) {
      const collection = `c${i % 3}`;
      await insertDocuments(single.pool, scope(collection), { ids: [`i${i}`], texts: [doc(`i${i}`, i)] });
      expect(await saveDocument(single.pool, scope(collection), `s${i % 2}`, doc(`s${i % 2}`, i))).toBe(
        i >= 6,
      );
    }
    expect(await stored(single, 'c0')).toEqual([
      { id: 'i0', n: 0 },
      { id: 'i3', n: 3 },
      { id: 'i6', n: 6 },
      { id: 'i9', n: 9 },
      { id: 's0', n: 6 },
      { id: 's1', n: 9 },
    ]);
    expect((await stored(single, 'c1')).map((r) => r.id)).toEqual(['i1', 'i10', 'i4', 'i7', 's0', 's1']);
  });

  it.skipIf(storeKind !== 'postgres')(
    'PostgreSQL → the session keeps them; after DEALLOCATE ALL the writes go on, and are prepared again',
    async () => {
      await insertDocuments(single.pool, scope('d'), { ids: ['x1'], texts: [doc('x1', 1)] });
      await saveDocument(single.pool, scope('d'), 'x2', doc('x2', 2));
      expect(await preparedNames(single)).toEqual(['pb_insert_documents', 'pb_save_document']);
      // What a pooler's DISCARD ALL does between sessions: the server forgets, pg still believes it parsed them.
      await single.pool.query('DEALLOCATE ALL');
      await insertDocuments(single.pool, scope('d'), { ids: ['x3'], texts: [doc('x3', 3)] });
      expect(await saveDocument(single.pool, scope('d'), 'x2', doc('x2', 4))).toBe(true);
      await insertDocuments(single.pool, scope('d'), { ids: ['x4'], texts: [doc('x4', 5)] });
      expect(await saveDocument(single.pool, scope('d'), 'x4', doc('x4', 6))).toBe(true);
      expect(await stored(single, 'd')).toEqual([
        { id: 'x1', n: 1 },
        { id: 'x2', n: 4 },
        { id: 'x3', n: 3 },
        { id: 'x4', n: 6 },
      ]);
      expect(await preparedNames(single)).toEqual(['pb_insert_documents', 'pb_save_document']);
    },
  );

  it.skipIf(storeKind !== 'postgres')(
    'PostgreSQL, a session that already holds the name for another statement → the write runs unnamed, the other statement stays',
    async () => {
      const other = await openStore({
        databaseUrl: TEST_DATABASE_URL!,
        dataDir: '',
        statementTimeoutMs: 10_000,
        schema: fresh.schema,
        poolSize: 1,
      });
      try {
        // What a pooler sharing server sessions can hand over: the name taken, this client never parsed it.
        await other.pool.query('PREPARE pb_insert_documents AS SELECT 1');
        await insertDocuments(other.pool, scope('g'), { ids: ['w1'], texts: [doc('w1', 1)] });
        await insertDocuments(other.pool, scope('g'), { ids: ['w2'], texts: [doc('w2', 2)] });
        expect((await stored(other, 'g')).map((r) => r.id)).toEqual(['w1', 'w2']);
        const { rows } = await other.pool.query<{ statement: string }>(
          "SELECT statement FROM pg_prepared_statements WHERE name = 'pb_insert_documents'",
        );
        expect(rows).toEqual([{ statement: 'PREPARE pb_insert_documents AS SELECT 1' }]);
      } finally {
        await other.close();
      }
    },
  );

  it.skipIf(storeKind !== 'pglite')(
    'embedded store → no statement is named (its clients share one session)',
    async () => {
      await insertDocuments(single.pool, scope('e'), { ids: ['y1'], texts: [doc('y1', 1)] });
      await saveDocument(single.pool, scope('e'), 'y1', doc('y1', 2));
      expect(await preparedNames(single)).toEqual([]);
      expect(await stored(single, 'e')).toEqual([{ id: 'y1', n: 2 }]);
    },
  );

  it('a duplicate _id still fails the whole insert with 23505, and the connection goes on', async () => {
    await insertDocuments(single.pool, scope('f'), { ids: ['z1'], texts: [doc('z1', 1)] });
    await expect(
      insertDocuments(single.pool, scope('f'), { ids: ['z2', 'z1'], texts: [doc('z2', 2), doc('z1', 3)] }),
    ).rejects.toMatchObject({ code: '23505' });
    await insertDocuments(single.pool, scope('f'), { ids: ['z3'], texts: [doc('z3', 3)] });
    expect((await stored(single, 'f')).map((r) => r.id)).toEqual(['z1', 'z3']);
  });
});
