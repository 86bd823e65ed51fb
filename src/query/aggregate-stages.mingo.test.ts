// Differential test of the stages of issue 16 against mingo's Aggregator: generated collections (arrays, nulls,
// missing fields, ints, longs, doubles, dates, ObjectIds) and generated stages, each run by runPipelineSync and
// by mingo. Every mismatch must be one of the known deviations of docs/query-engine-js.md (S1-S9 with A1-A7).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePipeline, runPipelineSync } from './aggregate.js';
import {
  checkStage,
  collectionArb,
  knownAddFields,
  knownBucket,
  knownBucketAuto,
  knownFacet,
  knownGroup,
  knownGroupKeys,
  knownLookup,
  knownReplaceRoot,
  knownUnset,
} from './aggregate-stages-oracle.test-util.js';
import type { Doc, Value } from './values.js';

describe('stages of issue 16: differential against mingo', () => {
  it('$addFields / $set', () => {
    const expr = fc.constantFrom<Value>('$a', '$b', { $literal: 5 }, '$$REMOVE', { $ifNull: ['$c', 0] }, 'x');
    const name = fc.constantFrom('a', 'x', 'b.k', 'd.e');
    const stages = fc
      .record({
        op: fc.constantFrom('$addFields', '$set'),
        entries: fc.array(fc.tuple(name, expr), { minLength: 1, maxLength: 3 }),
      })
      .map(({ op, entries }) => {
        const spec: Doc = {};
        for (const [k, v] of entries)
          if (
            !Object.keys(spec).some((x) => x.startsWith(k.split('.')[0]!) || k.startsWith(x.split('.')[0]!))
          )
            spec[k] = v;
        return [{ [op]: spec } as Doc];
      });
    const counts = checkStage({
      name: '$addFields',
      stages,
      ignoreKeyOrder: true,
      minSame: 300,
      known: knownAddFields,
    });
    expect(counts.same).toBeGreaterThan(300);
  });

  it('$unset', () => {
    const stages = fc
      .constantFrom<Value>('a', ['a', 'b'], 'a.b', ['c.a', 'b'])
      .map((u) => [{ $unset: u } as Doc]);
    const counts = checkStage({ name: '$unset', stages, minSame: 500, known: knownUnset });
    expect(counts.same).toBeGreaterThan(500);
  });

  it('$replaceRoot / $replaceWith', () => {
    const root = fc.constantFrom<Value>('$a', '$b', { x: '$a' }, { $mergeObjects: ['$$ROOT', { k: '$b' }] });
    const stages = fc.oneof(
      root.map((r) => [{ $replaceRoot: { newRoot: r } } as Doc]),
      root.map((r) => [{ $replaceWith: r } as Doc]),
    );
    const counts = checkStage({ name: '$replaceRoot', stages, minSame: 300, known: knownReplaceRoot });
    expect(counts.same).toBeGreaterThan(300);
  });

  it('$sortByCount', () => {
    const stages = fc
      .constantFrom('$a', '$b', '$a.b')
      .map((p) => [{ $sortByCount: p }, { $sort: { count: -1, _id: 1 } }] as Doc[]);
    const counts = checkStage({ name: '$sortByCount', stages, minSame: 300, known: knownGroupKeys });
    expect(counts.same).toBeGreaterThan(300);
  });

  it('$bucket', () => {
    const stages = fc
      .record({
        by: fc.constantFrom<Value>('$a', '$b', { $cond: [{ $isNumber: '$a' }, '$a', 0] }),
        bounds: fc.constantFrom<Value[]>([-3, 0, 2, 1000], [-5000, 0, 5000], [0, 1]),
        dflt: fc.constantFrom<Value | undefined>(undefined, 'other', -10000),
        output: fc.constantFrom<Value | undefined>(undefined, {
          n: { $sum: 1 },
          s: { $sum: '$c' },
          p: { $push: '$_id' },
        }),
      })
      .map(({ by, bounds, dflt, output }) => {
        const spec: Doc = { groupBy: by, boundaries: bounds };
        if (dflt !== undefined) spec.default = dflt;
        if (output !== undefined) spec.output = output;
        return [{ $bucket: spec } as Doc];
      });
    const counts = checkStage({
      name: '$bucket',
      stages,
      ignoreKeyOrder: true,
      minSame: 300,
      known: knownBucket,
    });
    expect((counts.same ?? 0) + (counts.S4e ?? 0)).toBeGreaterThan(250);
  });

  it('$bucketAuto', () => {
    const stages = fc
      .record({ by: fc.constantFrom('$a', '$b'), n: fc.integer({ min: 1, max: 4 }), out: fc.boolean() })
      .map(({ by, n, out }) => [
        {
          $bucketAuto: { groupBy: by, buckets: n, ...(out ? { output: { ids: { $push: '$_id' } } } : {}) },
        } as Doc,
      ]);
    const counts = checkStage({
      name: '$bucketAuto',
      stages,
      ignoreKeyOrder: true,
      minSame: 200,
      known: knownBucketAuto,
    });
    expect(counts.same).toBeGreaterThan(200);
  });

  it('$facet', () => {
    const sub = fc.constantFrom<Doc[]>(
      [{ $count: 'n' }],
      [{ $match: { a: { $exists: true } } }, { $project: { a: 1 } }],
      [{ $group: { _id: null, s: { $sum: '$b' } } }],
      [{ $sort: { _id: -1 } }, { $limit: 2 }],
      [{ $skip: 0 }],
    );
    const stages = fc.record({ x: sub, y: sub }).map(({ x, y }) => [{ $facet: { x, y } } as Doc]);
    const counts = checkStage({
      name: '$facet',
      ignoreKeyOrder: true,
      stages,
      minSame: 400,
      known: (docs, _o, p, ours, theirs) => knownFacet(docs, p, ours, theirs),
    });
    expect(counts.same).toBeGreaterThan(400);
  });

  it('$lookup (equality, pipeline with let, both) and $unionWith', () => {
    const path = fc.constantFrom('a', 'b', 'a.b');
    const stages = fc.oneof(
      fc
        .record({ l: path, f: path })
        .map(({ l, f }) => [{ $lookup: { from: 'other', localField: l, foreignField: f, as: 'j' } } as Doc]),
      fc.record({ l: fc.constantFrom('$a', '$b'), f: fc.constantFrom('$a', '$b') }).map(({ l, f }) => [
        {
          $lookup: {
            from: 'other',
            let: { v: l },
            pipeline: [{ $match: { $expr: { $eq: [f, '$$v'] } } }, { $project: { _id: 1 } }],
            as: 'j',
          },
        } as Doc,
      ]),
      fc.constantFrom<Doc[]>(
        [{ $unionWith: 'other' }],
        [
          {
            $unionWith: {
              coll: 'other',
              pipeline: [{ $match: { a: { $exists: true } } }, { $project: { a: 1 } }],
            },
          },
        ],
        [
          {
            $lookup: {
              from: 'other',
              localField: 'a',
              foreignField: 'a',
              pipeline: [{ $project: { _id: 1 } }],
              as: 'j',
            },
          },
        ],
        [
          {
            $lookup: {
              from: 'other',
              pipeline: [{ $sort: { _id: -1 } }, { $limit: 2 }, { $project: { b: 1 } }],
              as: 'j',
            },
          },
        ],
      ),
    );
    const counts = checkStage({
      name: '$lookup',
      stages,
      ignoreKeyOrder: true,
      minSame: 300,
      known: knownLookup,
    });
    expect(counts.same).toBeGreaterThan(300);
  });

  it('$group with $count $mergeObjects $stdDevPop $stdDevSamp (and the others) keyed by expressions', () => {
    const acc = fc.constantFrom<Value>(
      { $count: {} },
      { $mergeObjects: '$a' },
      { $stdDevPop: '$a' },
      { $stdDevSamp: '$b' },
      { $sum: '$a' },
      { $push: '$c' },
      { $first: '$b' },
    );
    const id = fc.constantFrom<Value>(
      null,
      '$a',
      { $isNumber: '$a' },
      { k: { $isArray: '$b' } },
      { $gt: ['$a', 0] },
    );
    const stages = fc
      .record({ id, accs: fc.array(acc, { minLength: 1, maxLength: 3 }) })
      .map(({ id, accs }) => {
        const spec: Doc = { _id: id };
        accs.forEach((a, i) => {
          spec[`f${i}`] = a;
        });
        return [{ $group: spec } as Doc];
      });
    const counts = checkStage({ name: '$group', stages, unordered: true, minSame: 250, known: knownGroup });
    expect(counts.same).toBeGreaterThan(250);
  });

  it('$sample: size documents of the input (or all), each once, any order', () => {
    fc.assert(
      fc.property(collectionArb, fc.integer({ min: 0, max: 9 }), (docs, size) => {
        const out = runPipelineSync(parsePipeline([{ $sample: { size } }]), docs);
        expect(out).toHaveLength(Math.min(size, docs.length));
        expect(new Set(out.map((d) => d._id)).size).toBe(out.length);
        for (const d of out) expect(docs).toContain(d);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});
