// Filters with a residual part ($expr, bitwise operators, under $and/$or/$nor/$not and inside $elemMatch):
// the relaxed SQL must match every document the whole filter matches (so the JavaScript check after it is
// exact), on each store, for generated documents and filters.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docArb, filterArb } from '../../src/query/arbitraries.test-util.js';
import { compileFilter, matchesFilter, parseFilter } from '../../src/query/filter.js';
import { needsResidual, relaxForSql } from '../../src/query/filter-residual.js';
import { type Doc, idKey, storedText, toWire, type Value } from '../../src/query/values.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const residualLeaf = fc.oneof(
  fc
    .record({ a: fc.constantFrom('$n', '$mixed', '$nested.p.q'), b: fc.constantFrom('$n', 0, 2) })
    .map(({ a, b }) => ({ $expr: { $gt: [a, b] } })),
  fc
    .record({
      path: fc.constantFrom('n', 'arr', 'objs.x', 'mixed'),
      op: fc.constantFrom('$bitsAllSet', '$bitsAnySet', '$bitsAllClear', '$bitsAnyClear'),
      mask: fc.oneof(fc.integer({ min: 0, max: 7 }), fc.constant([0, 1])),
    })
    .map(({ path, op, mask }) => ({ [path]: { [op]: mask } })),
  fc.constantFrom(
    { objs: { $elemMatch: { x: { $bitsAnySet: 1 } } } },
    { arr: { $elemMatch: { $bitsAllSet: 2 } } },
  ),
);

/** A generated SQL-able filter combined with a residual predicate under and/or/nor/not. */
const filterWithResidual = fc
  .tuple(filterArb(false), residualLeaf, fc.constantFrom('$and', '$or', '$nor', 'not'))
  .map(([f, r, how]) => {
    if (how === 'not') {
      const [path, cond] = Object.entries(r)[0]!;
      return path === '$expr' ? { $nor: [r, f] } : { $and: [f, { [path]: { $not: cond } }] };
    }
    return { [how]: [f, r] };
  });

describe.each(STORES)('residual filters on $name', ({ open }) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store.close();
  });

  it('the relaxed SQL matches a superset of the exact matches; the residual check gives them exactly', async () => {
    const cases = fc.sample(
      fc.tuple(
        fc.array(docArb(false), { minLength: 6, maxLength: 10 }),
        fc.array(filterWithResidual, { minLength: 20, maxLength: 20 }),
      ),
      { numRuns: 10, seed: 20241124 },
    );
    let checked = 0;
    let narrowed = 0;
    for (const [i, [docs, filters]] of cases.entries()) {
      const collection = `r${i}`;
      const rows = docs.map(
        (doc, k) => `{"id":${JSON.stringify(idKey(k))},"doc":${storedText({ _id: k, ...doc })}}`,
      );
      await store.query(
        `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
         SELECT 'g', 'live', $1, x ->> 'id', x -> 'doc' FROM jsonb_array_elements($2::jsonb) AS x`,
        [collection, `[${rows.join(',')}]`],
      );
      const params: unknown[] = [collection];
      const nodes = filters.map((f) => parseFilter(toWire(f as Value)));
      for (const node of nodes) expect(needsResidual(node)).toBe(true);
      const columns = nodes.map((node, k) => `${compileFilter(relaxForSql(node), 'd.doc', params)} AS m${k}`);
      const result = await store.query<Record<string, unknown>>(
        `SELECT d.id, ${columns.join(', ')} FROM nosql_documents AS d WHERE d.collection = $1`,
        params,
      );
      for (const row of result) {
        const k = docs.findIndex((_d, idx) => idKey(idx) === row.id);
        const doc: Doc = { _id: k, ...docs[k]! };
        nodes.forEach((node, j) => {
          const exact = matchesFilter(node, doc);
          const sql = row[`m${j}`] as boolean;
          if (exact && !sql)
            throw new Error(
              `relaxed SQL missed a match: ${JSON.stringify(filters[j])} on ${JSON.stringify(toWire(doc))}`,
            );
          if (sql && !exact) narrowed++;
          checked++;
        });
      }
    }
    expect(checked).toBeGreaterThan(1000);
    // The residual check does work: the relaxed SQL lets through documents the whole filter refuses.
    expect(narrowed).toBeGreaterThan(0);
  });
});
