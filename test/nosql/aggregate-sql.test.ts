// $count and $group on plain field paths after $match run as SQL (src/query/aggregate-sql.ts) when that is
// exact: generated documents with arrays, nulls, missing fields, longs and mixed numeric types give over HTTP
// exactly what the evaluator gives over the same documents (groups compared as sets: MongoDB leaves their
// order unspecified).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePipeline, runPipelineSync } from '../../src/query/aggregate.js';
import { parseGroup } from '../../src/query/aggregate-group.js';
import { finishGroup, groupAsSql } from '../../src/query/aggregate-sql.js';
import { docArb } from '../../src/query/arbitraries.test-util.js';
import { parseFilter } from '../../src/query/filter.js';
import { type Doc, fromWire, toWire, type Value } from '../../src/query/values.js';
import { groupRows } from '../../src/store/document-groups.js';
import { createWorld, type World } from './world.js';

let w: World;
beforeAll(async () => {
  w = await createWorld();
});
afterAll(async () => {
  await w.close();
});

const KEYS = ['$s', '$n', '$mixed', '$nested.p.q', '$nested', '$arr', '$gone', null, 'all'];
const VALUES = ['$n', '$mixed', '$nested.p.q', '$arr', '$gone'];
// The last has no SQL form (a residual filter): the SQL route must give way to the evaluator.
const MATCHES = [{}, { n: { $gte: 0 } }, { s: { $in: ['a', 'b'] } }, { arr: 1 }, { n: { $bitsAllSet: 1 } }];

/** Integers only on n and nested.p.q in some collections, so that the SQL path answers rather than gives up. */
const intsOnly = (d: Doc, i: number): Doc => ({
  ...d,
  n: i % 5 === 0 ? null : ((i * 7919) % 2001) - 1000,
  nested: { p: { q: i % 4 } },
});

const sorted = (docs: unknown[]) => docs.map((d) => JSON.stringify(d)).sort();

let seq = 0;
describe('aggregation pushdown', () => {
  it('generated documents and pipelines → the HTTP answer equals the evaluator', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(docArb(true), { minLength: 0, maxLength: 25 }),
        fc.boolean(),
        fc.constantFrom(...KEYS),
        fc.constantFrom(...VALUES),
        fc.constantFrom(...MATCHES),
        async (generated, ints, key, value, match) => {
          seq += 1;
          const name = `agg${seq}`;
          await w.ok('POST', 'preview', `collection/${name}/runtime`, {});
          const docs = generated.map((d, i) => ({ _id: i, ...(ints ? intsOnly(d, i) : d) }));
          if (docs.length > 0)
            await w.ok(
              'POST',
              'preview',
              `collection/script.${name}/insert`,
              docs.map((d) => toWire(d)),
            );
          const pipelines: unknown[][] = [
            [{ $match: match }, { $count: 'total' }],
            [
              { $match: match },
              {
                $group: {
                  _id: key === 'all' ? 'all' : key,
                  c: { $sum: 1 },
                  t: { $sum: value },
                  a: { $avg: value },
                },
              },
            ],
            [
              { $match: match },
              { $group: { _id: key, a: { $avg: value } } },
              { $sort: { a: -1 } },
              { $limit: 2 },
            ],
          ];
          for (const p of pipelines) {
            const expected = runPipelineSync(
              parsePipeline(fromWire(p as Value, { allowDollarKeys: true })),
              docs,
            ).map((d) => toWire(d));
            const got = await w.ok<unknown[]>('POST', 'preview', `collection/script.${name}/aggregate`, p);
            if (JSON.stringify(p).includes('$limit')) expect(got.length).toBe(expected.length);
            else expect(sorted(got)).toEqual(sorted(expected));
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  }, 240_000);

  it('integers on plain paths → answered by SQL (the store gives rows finishGroup accepts); a long → the evaluator', async () => {
    await w.ok('POST', 'preview', 'collection/aggints/runtime', {});
    const docs = Array.from({ length: 50 }, (_, i) => ({
      _id: i,
      c: ['GB', 'FR', null][i % 3],
      lvl: i,
      cur: i * 1000,
    }));
    await w.ok('POST', 'preview', 'collection/script.aggints/insert', docs);
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggints' };
    const spec = parseGroup(
      fromWire({ _id: '$c', n: { $sum: 1 }, avg: { $avg: '$cur' } }, { allowDollarKeys: true }),
    );
    const agg = groupAsSql(spec);
    if (agg?.kind !== 'group') throw new Error('expected a SQL group');
    const rows = await groupRows(w.server.store.pool, scope, parseFilter({ lvl: { $gte: 10 } }), agg, 100);
    const viaSql = finishGroup(agg, rows!);
    expect(viaSql).toBeDefined();
    const expected = runPipelineSync(
      parsePipeline(
        fromWire(
          [
            { $match: { lvl: { $gte: 10 } } },
            { $group: { _id: '$c', n: { $sum: 1 }, avg: { $avg: '$cur' } } },
          ],
          { allowDollarKeys: true },
        ),
      ),
      docs as Doc[],
    );
    expect(sorted(viaSql!.map((d) => toWire(d)))).toEqual(sorted(expected.map((d) => toWire(d))));
    await w.ok('POST', 'preview', 'collection/script.aggints/insert', {
      _id: 'long',
      c: 'GB',
      lvl: 99,
      cur: { $numberLong: '5' },
    });
    const again = await groupRows(w.server.store.pool, scope, parseFilter({ lvl: { $gte: 10 } }), agg, 100);
    expect(finishGroup(agg, again!)).toBeUndefined();
  });

  it('keys grouped by their text: a string and a non-string of the same text stay apart (SQL or evaluator)', async () => {
    await w.ok('POST', 'preview', 'collection/aggtexts/runtime', {});
    const keys: unknown[] = ['5', 5, 'true', true, '[1, 2]', [1, 2], '{"a": 1}', { a: 1 }, 'null', null];
    keys.push('-3', -3.5, '', 'x', { $numberLong: '7' }, { $date: '2025-01-02T00:00:00Z' }, '7', '12');
    const docs = keys.flatMap((k, i) => [
      { _id: `${i}a`, k, v: i },
      { _id: `${i}b`, k, v: 2 * i },
    ]);
    docs.push({ _id: 'gone', v: 1 } as never);
    await w.ok('POST', 'preview', 'collection/script.aggtexts/insert', docs);
    const pipeline = [{ $match: {} }, { $group: { _id: '$k', n: { $sum: 1 }, t: { $sum: '$v' } } }];
    const expected = runPipelineSync(
      parsePipeline(fromWire(pipeline, { allowDollarKeys: true })),
      docs.map((d) => fromWire(d as Value) as Doc),
    ).map((d) => toWire(d));
    const got = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggtexts/aggregate', pipeline);
    expect(sorted(got)).toEqual(sorted(expected));
    // Without the mixed texts, SQL answers (finishGroup accepts its rows) with the same groups.
    await w.ok('POST', 'preview', 'collection/script.aggtexts/remove', {
      query: { k: { $in: [5, true, null, 7] } },
    });
    await w.ok('POST', 'preview', 'collection/script.aggtexts/remove', {
      query: { k: { $in: [[1, 2], { a: 1 }] } },
    });
    const scope = { game: w.apiKey, stage: 'preview' as const, collection: 'script.aggtexts' };
    const agg = groupAsSql(parseGroup(fromWire(pipeline[1]!.$group, { allowDollarKeys: true })));
    if (agg?.kind !== 'group') throw new Error('expected a SQL group');
    const rows = await groupRows(w.server.store.pool, scope, parseFilter({}), agg, 100);
    const viaSql = finishGroup(agg, rows!);
    expect(viaSql).toBeDefined();
    const left = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggtexts/find', { limit: 100 });
    const again = runPipelineSync(
      parsePipeline(fromWire(pipeline, { allowDollarKeys: true })),
      left.map((d) => fromWire(d as Value) as Doc),
    );
    expect(sorted(viaSql!.map((d) => toWire(d)))).toEqual(sorted(again.map((d) => toWire(d))));
  });

  it('a $match with no SQL form ($bitsAllSet) before a SQL-able $group → the evaluator answers, odd levels only', async () => {
    await w.ok('POST', 'preview', 'collection/aggbits/runtime', {});
    const docs = Array.from({ length: 10 }, (_, i) => ({ _id: i, lvl: i + 1 }));
    await w.ok('POST', 'preview', 'collection/script.aggbits/insert', docs);
    const got = await w.ok<unknown[]>('POST', 'preview', 'collection/script.aggbits/aggregate', [
      { $match: { lvl: { $bitsAllSet: 1 } } },
      { $group: { _id: null, n: { $sum: 1 }, total: { $sum: '$lvl' } } },
    ]);
    expect(got).toEqual([{ _id: null, n: 5, total: 25 }]);
  });
});
