// The reads of other collections by $lookup and $unionWith, against a real store: only what the sub-pipeline's
// leading $match/$sort/$skip/$limit keep is read, the same game and stage only, within the document and byte caps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CollectionEntry } from '../../src/nosql/collections.js';
import { insertDocuments } from '../../src/nosql/documents.js';
import { readForeign } from '../../src/nosql/foreign-reads.js';
import { parsePipeline } from '../../src/query/aggregate.js';
import type { Store } from '../../src/store/db.js';
import { freshStore } from '../harness.js';

let store: Store;
let drop: () => Promise<void>;
const scope = { game: 'game-fr', stage: 'preview' as const, collection: 'script.here' };
const entry = (name: string): CollectionEntry => ({ name, optionGroup: 'Runtime', actions: ['FIND'] });

beforeAll(async () => {
  const fresh = await freshStore();
  store = fresh.store;
  drop = fresh.drop;
  const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, n: i, pad: 'x'.repeat(100) }));
  await insertDocuments(store.pool, { ...scope, collection: 'script.other' }, docs);
  await insertDocuments(store.pool, { ...scope, stage: 'live', collection: 'script.other' }, [
    { _id: 'live' },
  ]);
});
afterAll(async () => {
  await store.close();
  await drop();
});

describe('readForeign', () => {
  it('reads what the head of the sub-pipeline keeps, in SQL, from the same stage', async () => {
    const stages = parsePipeline([
      {
        $lookup: {
          from: 'script.other',
          pipeline: [
            { $match: { n: { $gte: 10 } } },
            { $sort: { n: -1 } },
            { $limit: 3 },
            { $project: { n: 1 } },
          ],
          as: 'x',
        },
      },
    ]);
    const reads = await readForeign(store.pool, scope, stages, [entry('script.other')]);
    const spec = (stages[0] as { spec: { read: Parameters<typeof reads>[0] } }).spec;
    expect(reads(spec.read).map((d) => d.n)).toEqual([29, 28, 27]);
  });

  it('past the document or byte cap → 400 naming the stages', async () => {
    const stages = parsePipeline([{ $unionWith: 'script.other' }]);
    const list = [entry('script.other')];
    await expect(
      readForeign(store.pool, scope, stages, list, { documents: 20, bytes: 1e9 }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'QUERY_PIPELINE_BUFFER_LIMIT',
    });
    await expect(
      readForeign(store.pool, scope, stages, list, { documents: 1e6, bytes: 2000 }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'QUERY_TOO_LARGE',
    });
  });

  it('a collection not in the listing → 404 before anything is read', async () => {
    const stages = parsePipeline([{ $unionWith: 'script.other' }]);
    await expect(readForeign(store.pool, scope, stages, [])).rejects.toMatchObject({ status: 404 });
  });
});
