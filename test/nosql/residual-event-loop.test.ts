// A residual find ($expr) over many documents runs its JavaScript check on the event loop in bounded slices
// (src/query/filter-residual.ts residualMatches): a /healthz sent while it runs is answered before it ends, and
// the answer is exact. The turn-by-turn guarantee itself is counted in src/query/filter-residual-slices.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

describe('residual find and the event loop', () => {
  it('a find testing 3,000 documents with $expr: /healthz answers first; skip and limit count exact matches', {
    timeout: 120_000,
  }, async () => {
    const c = 'script.residualLoop';
    expect((await w.call('POST', 'preview', `collection/${c}/runtime`)).status).toBe(200);
    for (let from = 0; from < 3000; from += 1000) {
      const docs = Array.from({ length: 1000 }, (_, k) => ({
        _id: from + k,
        a: (from + k) % 7,
        b: 3,
        pad: 'p'.repeat(500),
      }));
      await w.ok('POST', 'preview', `collection/${c}/insert`, docs);
    }
    const order: string[] = [];
    const found = w
      .call('POST', 'preview', `collection/${c}/find`, {
        query: { $expr: { $gt: ['$a', '$b'] } },
        fields: { a: 1 },
        sort: { _id: 1 },
        skip: 5,
        limit: 10_000,
      })
      .then((res) => {
        order.push('find');
        return res;
      });
    const health = w.server.app.inject({ method: 'GET', url: '/healthz' }).then((res) => {
      order.push('healthz');
      return res;
    });
    const [res, h] = await Promise.all([found, health]);
    expect(h.statusCode).toBe(200);
    expect(order).toEqual(['healthz', 'find']);
    expect(res.status).toBe(200);
    const expected = Array.from({ length: 3000 }, (_, i) => i)
      .filter((i) => i % 7 > 3)
      .slice(5)
      .map((i) => ({ _id: i, a: i % 7 }));
    expect(res.json).toEqual(expected);
    const counted = await w.ok<{ count: number }>('POST', 'preview', `collection/${c}/count`, {
      query: { $expr: { $gt: ['$a', '$b'] } },
    });
    expect(counted.count).toBe(expected.length + 5);
  });
});
