// The stages and accumulators of issue 16 where mingo cannot tell (docs/query-engine-js.md, S1-S9): MongoDB's
// answers pinned, bad operands (400 naming the stage or operator) and the bounds of what they hold.
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { type PipelineRead, parsePipeline, runPipelineSync } from './aggregate.js';
import type { Doc } from './values.js';

const run = (pipeline: unknown[], docs: Doc[], other: Doc[] = [], maxBuffered?: number) =>
  runPipelineSync(parsePipeline(pipeline), docs, {
    foreign: (read: PipelineRead) => runPipelineSync(read.head, other),
    maxLookupWork: 20_000,
    ...(maxBuffered === undefined ? {} : { maxBuffered }),
  });

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code} ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('$addFields / $set', () => {
  it('a dotted path sets the field in every element of an array (nested too); scalars become documents (S1)', () => {
    expect(run([{ $set: { 'a.b': 1 } }], [{ _id: 1, a: [5, { x: 1 }, [2]] }])).toEqual([
      { _id: 1, a: [{ b: 1 }, { x: 1, b: 1 }, [{ b: 1 }]] },
    ]);
    expect(run([{ $addFields: { 'a.b': '$nope' } }], [{ _id: 1 }])).toEqual([{ _id: 1, a: {} }]);
  });

  it('expressions see the input document; $$REMOVE removes; existing fields keep their place', () => {
    expect(
      run([{ $addFields: { a: '$b', b: '$a', c: '$$REMOVE', d: 1 } }], [{ _id: 1, a: 1, b: 2, c: 3 }]),
    ).toEqual([{ _id: 1, a: 2, b: 1, d: 1 }]);
    expect(Object.keys(run([{ $set: { a: { b: 2 } } }], [{ a: { c: 1 }, z: 0 }])[0]!)).toEqual(['a', 'z']);
    expect(run([{ $set: { a: { b: 2 } } }], [{ a: { c: 1 } }])).toEqual([{ a: { c: 1, b: 2 } }]);
  });

  it('colliding paths or $ names → 400 naming the stage', () => {
    expect(failure(() => parsePipeline([{ $set: { a: 1, 'a.b': 2 } }]))).toContain('Bad $set stage');
    expect(failure(() => parsePipeline([{ $addFields: { $a: 1 } }]))).toContain('$addFields');
    expect(failure(() => parsePipeline([{ $set: { a: {} } }]))).toContain('empty object');
    expect(run([{ $set: { a: { $literal: {} } } }], [{ _id: 1 }])).toEqual([{ _id: 1, a: {} }]);
  });
});

describe('$replaceRoot, $unset, $sortByCount, $bucket, $bucketAuto', () => {
  it('$replaceRoot of a non-document → 400 naming it (S3)', () => {
    expect(failure(() => run([{ $replaceRoot: { newRoot: '$a' } }], [{ a: 1 }]))).toContain('$replaceRoot');
    expect(run([{ $replaceWith: { $mergeObjects: [{ k: 0 }, '$a'] } }], [{ a: { x: 1 } }])).toEqual([
      { k: 0, x: 1 },
    ]);
  });

  it('$unset of dotted paths through arrays (S2)', () => {
    expect(run([{ $unset: ['a.b', 'c'] }], [{ _id: 1, a: [{ b: 1, x: 2 }, 3], c: 1 }])).toEqual([
      { _id: 1, a: [{ x: 2 }, 3] },
    ]);
  });

  it('$sortByCount: counts descending, ties in first-seen order', () => {
    const docs = ['x', 'y', 'y', 'z', 'x', 'y'].map((t, i) => ({ _id: i, t }));
    expect(run([{ $sortByCount: '$t' }], docs)).toEqual([
      { _id: 'y', count: 3 },
      { _id: 'x', count: 2 },
      { _id: 'z', count: 1 },
    ]);
  });

  it('$bucket: lower bound inclusive (S4b), other types to default, only non-empty buckets (S4), sorted by _id', () => {
    const docs = [0, 2, 2, 5, 'a', null].map((v, i) => ({ _id: i, v }));
    expect(run([{ $bucket: { groupBy: '$v', boundaries: [0, 2, 3, 10], default: 'other' } }], docs)).toEqual([
      { _id: 0, count: 1 },
      { _id: 2, count: 2 },
      { _id: 3, count: 1 },
      { _id: 'other', count: 2 },
    ]);
    expect(failure(() => run([{ $bucket: { groupBy: '$v', boundaries: [0, 2] } }], docs))).toContain(
      '$bucket',
    );
    expect(failure(() => parsePipeline([{ $bucket: { groupBy: '$v', boundaries: [0, 'a'] } }]))).toContain(
      'same type',
    );
    expect(
      failure(() => parsePipeline([{ $bucket: { groupBy: '$v', boundaries: [0, 5], default: 3 } }])),
    ).toContain('default');
  });

  it('$bucketAuto: equal keys stay in one bucket, max is the next min (S5); an unknown granularity refused', () => {
    const docs = [1, 1, 1, 2, 3, 4, 4, 9].map((v, i) => ({ _id: i, v }));
    expect(run([{ $bucketAuto: { groupBy: '$v', buckets: 3 } }], docs)).toEqual([
      { _id: { min: 1, max: 2 }, count: 3 },
      { _id: { min: 2, max: 9 }, count: 4 },
      { _id: { min: 9, max: 9 }, count: 1 },
    ]);
    expect(
      run([{ $bucketAuto: { groupBy: '$v', buckets: 2, output: { s: { $sum: '$v' } } } }], docs),
    ).toEqual([
      { _id: { min: 1, max: 3 }, s: 5 },
      { _id: { min: 3, max: 9 }, s: 20 },
    ]);
    expect(run([{ $bucketAuto: { groupBy: '$v', buckets: 3 } }], [])).toEqual([]);
    expect(
      failure(() => parsePipeline([{ $bucketAuto: { groupBy: '$v', buckets: 2, granularity: 'R6' } }])),
    ).toContain('granularity');
  });
});

describe('$facet, $lookup, $unionWith', () => {
  it('$facet of no input → one document of empty arrays; an empty sub-pipeline → 400', () => {
    expect(run([{ $facet: { a: [{ $count: 'n' }], b: [{ $skip: 0 }] } }], [])).toEqual([{ a: [], b: [] }]);
    expect(failure(() => parsePipeline([{ $facet: { a: [] } }]))).toContain('empty');
  });

  it('equality $lookup: an array localField matches its elements; missing matches null and missing (S6)', () => {
    const other: Doc[] = [
      { _id: 'a' },
      { _id: 'b', k: null },
      { _id: 'c', k: ['x', 'y'] },
      { _id: 'd', k: 'y' },
    ];
    const out = run(
      [
        { $lookup: { from: 'o', localField: 'l', foreignField: 'k', as: 'j' } },
        { $project: { ids: '$j._id' } },
      ],
      [{ _id: 1, l: ['y', 'q'] }, { _id: 2 }, { _id: 3, l: [] }, { _id: 4, l: 'x' }],
      other,
    );
    expect(out).toEqual([
      { _id: 1, ids: ['c', 'd'] },
      { _id: 2, ids: ['a', 'b'] },
      { _id: 3, ids: ['a', 'b'] },
      { _id: 4, ids: ['c'] },
    ]);
  });

  it('pipeline $lookup: let variables reach nested stages; a missing variable is missing, not null (S7)', () => {
    const other: Doc[] = [{ _id: 'a', k: null }, { _id: 'b' }, { _id: 'c', k: 1 }];
    const out = run(
      [
        {
          $lookup: {
            from: 'o',
            let: { v: '$l' },
            pipeline: [
              { $match: { $expr: { $eq: ['$k', '$$v'] } } },
              { $facet: { ids: [{ $project: { _id: 1, w: '$$v' } }] } },
            ],
            as: 'j',
          },
        },
      ],
      [{ _id: 1 }, { _id: 2, l: 1 }],
      other,
    );
    expect(out).toEqual([
      { _id: 1, j: [{ ids: [{ _id: 'b' }] }] },
      { _id: 2, l: 1, j: [{ ids: [{ _id: 'c', w: 1 }] }] },
    ]);
  });

  it('$unionWith: the input, then the other collection through its pipeline', () => {
    expect(
      run([{ $unionWith: { coll: 'o', pipeline: [{ $limit: 1 }] } }], [{ _id: 1 }], [{ _id: 2 }, { _id: 3 }]),
    ).toEqual([{ _id: 1 }, { _id: 2 }]);
  });

  it('bad forms → 400 naming the stage; sub-pipelines nest at most 20 deep', () => {
    expect(failure(() => parsePipeline([{ $lookup: { from: 'o', as: 'x' } }]))).toContain('$lookup');
    expect(failure(() => parsePipeline([{ $lookup: { from: 'o', pipeline: {}, as: 'x' } }]))).toContain(
      '$lookup',
    );
    expect(
      failure(() => parsePipeline([{ $lookup: { from: { db: 'x', coll: 'y' }, pipeline: [], as: 'x' } }])),
    ).toContain('$lookup');
    expect(failure(() => parsePipeline([{ $unionWith: { coll: 'o', let: {} } }]))).toContain('$unionWith');
    let deep: unknown = [];
    for (let i = 0; i < 25; i++) deep = [{ $lookup: { from: 'o', pipeline: deep, as: 'x' } }];
    expect(failure(() => parsePipeline(deep))).toContain('400 QUERY_TOO_LARGE');
    const facets = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`f${i}`, [{ $count: 'n' }]]));
    expect(failure(() => parsePipeline([{ $facet: facets }, { $facet: facets }]))).toContain(
      'sub-pipelines included',
    );
  });
});

describe('accumulators', () => {
  it('$count, $mergeObjects, $stdDevPop, $stdDevSamp (Welford; null for too few numbers, S9)', () => {
    const docs = [1, 2, 3, 4, 'x', null].map((v, i) => ({
      _id: i,
      v,
      o: i < 2 ? { [`k${i}`]: i, s: i } : null,
    }));
    expect(
      run(
        [
          {
            $group: {
              _id: null,
              n: { $count: {} },
              m: { $mergeObjects: '$o' },
              p: { $stdDevPop: '$v' },
              s: { $stdDevSamp: '$v' },
              one: { $stdDevSamp: { $literal: 3 } },
            },
          },
        ],
        docs,
      ),
    ).toEqual([
      { _id: null, n: 6, m: { k0: 0, s: 1, k1: 1 }, p: Math.sqrt(1.25), s: Math.sqrt(5 / 3), one: 0 },
    ]);
    expect(
      run([{ $group: { _id: null, s: { $stdDevSamp: '$v' }, p: { $stdDevPop: '$nope' } } }], [{ v: 1 }]),
    ).toEqual([{ _id: null, s: null, p: null }]);
    expect(failure(() => run([{ $group: { _id: null, m: { $mergeObjects: '$v' } } }], [{ v: 1 }]))).toContain(
      '$mergeObjects',
    );
  });
});

describe('bounds', () => {
  const many = Array.from({ length: 300 }, (_, i) => ({ _id: i, s: 'x'.repeat(100_000) }));

  it('$push, $facet and $lookup results past 16 MiB, or past the buffer cap → 400 naming them', () => {
    expect(failure(() => run([{ $group: { _id: null, all: { $push: '$s' } } }], many))).toContain(
      '400 QUERY_TOO_LARGE',
    );
    expect(failure(() => run([{ $facet: { all: [{ $skip: 0 }] } }], many))).toContain('$facet');
    expect(
      failure(() => run([{ $lookup: { from: 'o', pipeline: [], as: 'x' } }], [{ _id: 1 }], many)),
    ).toContain('$lookup');
    const small = Array.from({ length: 50 }, (_, i) => ({ _id: i }));
    expect(failure(() => run([{ $facet: { a: [{ $skip: 0 }] } }], small, [], 20))).toContain(
      '400 QUERY_PIPELINE_BUFFER_LIMIT',
    );
    expect(failure(() => run([{ $bucketAuto: { groupBy: '$_id', buckets: 2 } }], small, [], 20))).toContain(
      '$bucketAuto',
    );
    expect(failure(() => run([{ $sample: { size: 30 } }], small, [], 20))).toContain('$sample');
    expect(run([{ $sample: { size: 5 } }], small, [], 20)).toHaveLength(5);
  });

  it('$lookup sub-pipelines: the first stages without variables run once; the work bound counts the rest', () => {
    const docs = Array.from({ length: 300 }, (_, i) => ({ _id: i }));
    const cached = run(
      [
        { $lookup: { from: 'o', pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }], as: 'x' } },
        { $count: 'n' },
      ],
      docs,
      docs,
    );
    expect(cached).toEqual([{ n: 300 }]);
    const correlated = [
      {
        $lookup: {
          from: 'o',
          let: { i: '$_id' },
          pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$i'] } } }],
          as: 'x',
        },
      },
    ];
    expect(failure(() => run(correlated, docs, docs))).toContain('400 QUERY_TOO_LARGE');
  });
});
