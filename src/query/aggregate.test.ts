import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { parsePipeline, runPipeline, runPipelineSync, splitPushdown } from './aggregate.js';
import type { Doc, Value } from './values.js';

const run = (docs: Doc[], pipeline: Value[], maxBuffered?: number) =>
  runPipelineSync(parsePipeline(pipeline), docs, maxBuffered === undefined ? {} : { maxBuffered });

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  throw new Error('expected an error');
}

describe('parsePipeline', () => {
  it('not an array, or a stage with two keys → 400 QUERY_BAD_PIPELINE', () => {
    expect(codeOf(() => parsePipeline({ $match: {} }))).toBe('400 QUERY_BAD_PIPELINE');
    expect(codeOf(() => parsePipeline([{ $match: {}, $limit: 1 }]))).toBe('400 QUERY_BAD_PIPELINE');
  });

  it('an unknown stage → 400 QUERY_UNKNOWN_PIPELINE_STAGE naming it', () => {
    expect(codeOf(() => parsePipeline([{ $graphLookup: {} }]))).toBe('400 QUERY_UNKNOWN_PIPELINE_STAGE');
    expect(() => parsePipeline([{ $out: 'x' }])).toThrow('Unsupported pipeline stage $out');
  });

  it('an unknown accumulator → 400 QUERY_UNKNOWN_ACCUMULATOR naming it', () => {
    expect(() => parsePipeline([{ $group: { _id: null, s: { $median: '$a' } } }])).toThrow(
      'Unsupported accumulator $median',
    );
  });

  it('an unknown expression operator or variable → 400 QUERY_UNKNOWN_EXPRESSION_OPERATOR naming it', () => {
    expect(() => parsePipeline([{ $group: { _id: { $sin: '$a' } } }])).toThrow('$sin');
    expect(codeOf(() => parsePipeline([{ $group: { _id: '$$FOO' } }]))).toBe(
      '400 QUERY_UNKNOWN_EXPRESSION_OPERATOR',
    );
  });

  it('bad stage arguments → 400 QUERY_BAD_PIPELINE_STAGE', () => {
    for (const stage of [
      { $limit: 0 },
      { $skip: -1 },
      { $limit: 1.5 },
      { $count: '$x' },
      { $unwind: 'a' },
      { $unwind: { path: '$a', foo: 1 } },
      { $group: { s: { $sum: 1 } } },
      { $group: { _id: null, 'a.b': { $sum: 1 } } },
      { $group: { _id: null, s: { $sum: [1, 2] } } },
      { $match: 5 },
    ]) {
      expect(codeOf(() => parsePipeline([stage]))).toBe('400 QUERY_BAD_PIPELINE_STAGE');
    }
  });
});

describe('runPipeline stages', () => {
  const docs: Doc[] = [
    { _id: 1, k: 'a', n: 1, t: [1, 2] },
    { _id: 2, k: 'b', n: 2.5 },
    { _id: 3, k: 'a', n: 3n, t: [] },
    { _id: 4, n: 'x', t: null },
  ];

  it('$match, $sort, $skip, $limit → filtered, ordered, windowed', () => {
    expect(run(docs, [{ $match: { k: 'a' } }]).map((d) => d._id)).toEqual([1, 3]);
    expect(run(docs, [{ $sort: { _id: -1 } }, { $skip: 1 }, { $limit: 2 }]).map((d) => d._id)).toEqual([
      3, 2,
    ]);
  });

  it('$group by a field → missing and null share the null group; keys equal by value', () => {
    const out = run(
      [{ k: 1 }, { k: 1n }, { k: null }, {}, { k: 1.5 }],
      [{ $group: { _id: '$k', c: { $sum: 1 } } }],
    );
    expect(out).toEqual([
      { _id: 1, c: 2 },
      { _id: null, c: 2 },
      { _id: 1.5, c: 1 },
    ]);
  });

  it('$group by an object of paths → missing fields left out of the key', () => {
    const out = run([{ a: 1 }, { a: 1, b: null }, {}], [{ $group: { _id: { x: '$a', y: '$b' } } }]);
    expect(out).toEqual([{ _id: { x: 1 } }, { _id: { x: 1, y: null } }, { _id: {} }]);
  });

  it('$sum ignores non-numbers and keeps the widest type; $avg of nothing is null', () => {
    const out = run(docs, [{ $group: { _id: '$k', s: { $sum: '$n' }, a: { $avg: '$n' } } }]);
    expect(out).toEqual([
      { _id: 'a', s: 4n, a: 2 },
      { _id: 'b', s: 2.5, a: 2.5 },
      { _id: null, s: 0, a: null },
    ]);
  });

  it('$sum of ints past int32 → a long; of longs past int64 → a double', () => {
    expect(run([{ n: 2147483647 }, { n: 1 }], [{ $group: { _id: null, s: { $sum: '$n' } } }])[0]!.s).toBe(
      2147483648n,
    );
    const big = 9223372036854775807n;
    expect(run([{ n: big }, { n: big }], [{ $group: { _id: null, s: { $sum: '$n' } } }])[0]!.s).toBe(
      Number(big) * 2,
    );
  });

  it('$sum of doubles → compensated like MongoDB (0.1 + 0.2 + 0.3 = 0.6, not 0.6000000000000001)', () => {
    const out = run(
      [{ n: 0.1 }, { n: 0.2 }, { n: 0.3 }],
      [{ $group: { _id: null, s: { $sum: '$n' }, a: { $avg: '$n' } } }],
    );
    expect(out[0]).toEqual({ _id: null, s: 0.6, a: 0.6 / 3 });
  });

  it('$sum of a constant → added plainly in its type: ints to a long on overflow, longs stay longs', () => {
    const two = [{}, {}];
    const sum = (c: Value) => run(two, [{ $group: { _id: null, s: { $sum: c } } }])[0]!.s;
    expect(sum(2147483647)).toBe(4294967294n);
    expect(sum({ $numberLong: '1' })).toBe(2n);
    expect(run([{}, {}, {}], [{ $group: { _id: null, s: { $sum: 0.1 } } }])[0]!.s).toBe(0.1 + 0.1 + 0.1);
  });

  it('$min/$max skip null and missing, compare across types in BSON order', () => {
    const out = run(
      [{ v: null }, { v: 3 }, {}, { v: 'a' }, { v: [0] }],
      [{ $group: { _id: null, lo: { $min: '$v' }, hi: { $max: '$v' } } }],
    );
    expect(out[0]).toEqual({ _id: null, lo: 3, hi: [0] });
    expect(run([{}], [{ $group: { _id: null, lo: { $min: '$v' } } }])[0]).toEqual({ _id: null, lo: null });
  });

  it('$first/$last of a missing field → null; $push skips missing, keeps null; $addToSet dedupes by value', () => {
    const out = run(
      [{}, { v: null }, { v: 1 }, { v: 1n }],
      [
        {
          $group: {
            _id: null,
            f: { $first: '$v' },
            l: { $last: '$w' },
            p: { $push: '$v' },
            s: { $addToSet: '$v' },
          },
        },
      ],
    );
    expect(out[0]).toEqual({ _id: null, f: null, l: null, p: [null, 1, 1n], s: [null, 1] });
  });

  it('$project → inclusion with renames', () => {
    expect(run([{ _id: 1, a: { b: 2 }, c: 3 }], [{ $project: { c: 1, x: '$a.b' } }])).toEqual([
      { _id: 1, c: 3, x: 2 },
    ]);
  });

  it('$unwind → one document per element, non-arrays pass, null/missing/[] dropped', () => {
    expect(run(docs, [{ $unwind: '$t' }, { $project: { t: 1 } }])).toEqual([
      { _id: 1, t: 1 },
      { _id: 1, t: 2 },
    ]);
    expect(run([{ _id: 9, t: 5 }], [{ $unwind: '$t' }])).toEqual([{ _id: 9, t: 5 }]);
  });

  it('$unwind with preserveNullAndEmptyArrays and includeArrayIndex → every document, index as a long or null', () => {
    const out = run(docs, [
      { $unwind: { path: '$t', includeArrayIndex: 'i', preserveNullAndEmptyArrays: true } },
      { $project: { t: 1, i: 1 } },
    ]);
    expect(out).toEqual([
      { _id: 1, t: 1, i: 0n },
      { _id: 1, t: 2, i: 1n },
      { _id: 2, i: null },
      { _id: 3, i: null },
      { _id: 4, t: null, i: null },
    ]);
  });

  it('$unwind of a nested path → the element replaces the array in place', () => {
    const out = run([{ _id: 1, a: { t: [1, 2], z: 0 } }], [{ $unwind: '$a.t' }]);
    expect(out).toEqual([
      { _id: 1, a: { t: 1, z: 0 } },
      { _id: 1, a: { t: 2, z: 0 } },
    ]);
  });

  it('$count → one document with the count; no input → no document', () => {
    expect(run(docs, [{ $count: 'n' }])).toEqual([{ n: 4 }]);
    expect(run([], [{ $count: 'n' }])).toEqual([]);
  });

  it('$sort holding more than maxBuffered documents → 400 QUERY_PIPELINE_BUFFER_LIMIT', () => {
    expect(codeOf(() => run(docs, [{ $sort: { n: 1 } }], 3))).toBe('400 QUERY_PIPELINE_BUFFER_LIMIT');
  });

  it('$sort then $limit under the buffer cap → only the kept window is held', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ _id: i, n: (i * 7) % 50 }));
    const out = run(many, [{ $sort: { n: -1 } }, { $limit: 3 }], 10);
    expect(out.map((d) => d.n)).toEqual([49, 48, 47]);
  });

  it('$group with more groups than maxBuffered → 400 QUERY_PIPELINE_BUFFER_LIMIT', () => {
    expect(codeOf(() => run(docs, [{ $group: { _id: '$_id' } }], 3))).toBe('400 QUERY_PIPELINE_BUFFER_LIMIT');
  });

  it('runPipeline over an async source → the same documents, and it stops reading after a full $limit', async () => {
    let read = 0;
    async function* source() {
      for (let i = 0; i < 100; i++) {
        read++;
        yield { _id: i } as Doc;
      }
    }
    const out: Doc[] = [];
    for await (const doc of runPipeline(parsePipeline([{ $limit: 2 }]), source())) out.push(doc);
    expect(out).toEqual([{ _id: 0 }, { _id: 1 }]);
    expect(read).toBe(2);
  });
});

describe('splitPushdown', () => {
  it('$match, $match, $sort, $skip, $limit, $group → the first five folded, the $group left', () => {
    const stages = parsePipeline([
      { $match: { a: 1 } },
      { $match: { b: 2 } },
      { $sort: { c: 1 } },
      { $skip: 5 },
      { $limit: 10 },
      { $group: { _id: '$a' } },
    ]);
    const { pushdown, rest } = splitPushdown(stages);
    expect(pushdown).toEqual({ filter: { $and: [{ a: 1 }, { b: 2 }] }, sort: { c: 1 }, skip: 5, limit: 10 });
    expect(rest.map((s) => s.op)).toEqual(['$group']);
  });

  it('$limit before $skip → the window shrinks; a second $sort stays in JavaScript', () => {
    const { pushdown, rest } = splitPushdown(
      parsePipeline([{ $limit: 10 }, { $skip: 4 }, { $sort: { a: 1 } }]),
    );
    expect(pushdown).toEqual({ filter: undefined, sort: undefined, skip: 4, limit: 6 });
    expect(rest.map((s) => s.op)).toEqual(['$sort']);
  });

  it('a pipeline starting with $group → nothing pushed down', () => {
    const { pushdown, rest } = splitPushdown(parsePipeline([{ $group: { _id: null } }, { $limit: 1 }]));
    expect(pushdown).toEqual({ filter: undefined, sort: undefined, skip: 0, limit: undefined });
    expect(rest).toHaveLength(2);
  });
});
