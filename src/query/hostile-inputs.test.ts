// Large and hostile inputs of issue 20: linear or n log n work on big legal bodies, no stack overflow, and a
// QUERY_TOO_LARGE or QUERY_BAD_REGEX answer past the documented bounds. Time bounds are generous: 10 s where
// the new code needs well under 1 s and the old quadratic code needed minutes, so they cannot flake.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { MAX_PIPELINE_STAGES, parsePipeline, runPipelineSync } from './aggregate.js';
import { docArb, scalarArb } from './arbitraries.test-util.js';
import { MAX_PATH_PARTS } from './field-path.js';
import { compileFilter, matchesFilter, parseFilter } from './filter.js';
import { matchesElement } from './filter-match.js';
import { MISSING, walkPath } from './path-walk.js';
import { parseProjection } from './projection.js';
import { MAX_REGEX_NESTING, translateRegex } from './regex.js';
import { applyUpdate, parseUpdate, seedUpsert } from './update.js';
import { equalityKey } from './value-identity.js';
import { type Doc, toWire, type Value, valuesEqual } from './values.js';

const ctx = { now: new Date(0), isInsert: false };
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return e.code;
    throw e;
  }
  throw new Error('expected a PlaybaseError');
}

/** Runs fn and fails when it took longer than ms (a bound far above the expected time). */
function within<T>(ms: number, fn: () => T): T {
  const started = performance.now();
  const out = fn();
  expect(performance.now() - started).toBeLessThan(ms);
  return out;
}

describe('equalityKey is MongoDB equality', () => {
  it('generated value pairs → same key exactly when compareValues calls them equal', () => {
    const value = fc.oneof(scalarArb(true), docArb(true) as fc.Arbitrary<Value>);
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(equalityKey(a) === equalityKey(b)).toBe(valuesEqual(a, b));
      }),
      { numRuns: 3000 },
    );
  });

  it('numbers across int, long and double, -0 and NaN; documents field by field in order', () => {
    expect(equalityKey(1)).toBe(equalityKey(1n));
    expect(equalityKey(2 ** 60)).toBe(equalityKey(2n ** 60n));
    expect(equalityKey(-0)).toBe(equalityKey(0));
    expect(equalityKey(Number.NaN)).toBe(equalityKey(Number.NaN));
    expect(equalityKey(1.5)).not.toBe(equalityKey(1n));
    expect(equalityKey(2 ** 63)).not.toBe(equalityKey(2n ** 63n - 1n));
    expect(equalityKey({ a: 1, b: 2n })).toBe(equalityKey({ a: 1n, b: 2 }));
    expect(equalityKey({ a: 1, b: 2 })).not.toBe(equalityKey({ b: 2, a: 1 }));
    expect(equalityKey(['a,b'])).not.toBe(equalityKey(['a', 'b']));
    expect(equalityKey(null)).not.toBe(equalityKey('null'));
  });
});

describe('updates on large arrays', () => {
  it('$addToSet $each of 100,000 distinct values into 100,000 → 150,000 values in order, in under 10 s', () => {
    const doc = { a: range(100_000) };
    const update = parseUpdate({ $addToSet: { a: { $each: range(100_000, 50_000) } } });
    const out = within(10_000, () => applyUpdate(doc, update, ctx));
    expect(out.doc.a).toEqual(range(150_000));
  });

  it('$addToSet $each → equal values kept once across number types, -0, NaN and documents', () => {
    const doc: Doc = { a: [1, 2.5, 3n, { x: 1 }] };
    const each: Value[] = [
      1n,
      1.0,
      -0,
      0,
      2.5,
      { x: 1n },
      { x: 1, y: 2 },
      Number.NaN,
      Number.NaN,
      3,
      'a',
      'a',
    ];
    const out = applyUpdate(doc, parseUpdate({ $addToSet: { a: { $each: each.map(toWire) } } }), ctx);
    expect(out.doc.a).toEqual([1, 2.5, 3n, { x: 1 }, 0, { x: 1, y: 2 }, Number.NaN, 'a']);
  });

  it('$push $each of 200,000 values at a $position → all inserted (was a RangeError)', () => {
    const out = applyUpdate(
      { a: [-2, -1] },
      parseUpdate({ $push: { a: { $each: range(200_000), $position: 1 } } }),
      ctx,
    );
    const a = out.doc.a as number[];
    expect(a.length).toBe(200_002);
    expect([a[0], a[1], a[200_000], a[200_001]]).toEqual([-2, 0, 199_999, -1]);
  });

  it('$set of 200,000 fields → all written (was a RangeError)', () => {
    const set = Object.fromEntries(range(200_000).map((i) => [`f${i}`, i]));
    const out = within(10_000, () => applyUpdate({ _id: 1 }, parseUpdate({ $set: set }), ctx));
    expect(Object.keys(out.doc).length).toBe(200_001);
    expect(out.doc.f199999).toBe(199_999);
  });

  it('$pull {$in: 50,000 values} from 50,000 elements → the others remain, in under 10 s', () => {
    const doc = { a: range(50_000) };
    const update = parseUpdate({ $pull: { a: { $in: range(50_000, 10_000) } } });
    const out = within(10_000, () => applyUpdate(doc, update, ctx));
    expect(out.doc.a).toEqual(range(10_000));
  });

  it('$set padding three arrays by 1,400,000 each → 400 (more nulls than a 16 MB document holds); two → applied', () => {
    const doc = { a: [], b: [], c: [] };
    const two = applyUpdate(doc, parseUpdate({ $set: { 'a.1400000': 1, 'b.1400000': 2 } }), ctx);
    expect((two.doc.b as Value[]).length).toBe(1_400_001);
    const three = parseUpdate({ $set: { 'a.1400000': 1, 'b.1400000': 2, 'c.1400000': 3 } });
    expect(codeOf(() => applyUpdate(doc, three, ctx))).toBe('UPDATE_BAD_ARGUMENT');
    expect(applyUpdate(doc, parseUpdate({ $set: { 'a.1400000': 1 } }), ctx).changed).toBe(true);
  });

  it('upsert seed from 100,000 equality fields → built in under 10 s; a repeated path is still refused', () => {
    const filter = Object.fromEntries(range(100_000).map((i) => [`f${i}`, i]));
    const seed = within(10_000, () => seedUpsert(filter, parseUpdate({ $set: { z: 1 } })));
    expect(Object.keys(seed).length).toBe(100_000);
    expect(codeOf(() => seedUpsert({ a: 1, $and: [{ a: 2 }] }, parseUpdate({ $set: { z: 1 } })))).toBe(
      'UPDATE_UPSERT_AMBIGUOUS',
    );
  });
});

describe('matching in JavaScript', () => {
  it('generated documents and $in lists of 16+ values → same answer as one value at a time', () => {
    const list = fc.array(scalarArb(true), { minLength: 16, maxLength: 24 });
    const arr = fc.array(scalarArb(true), { minLength: 0, maxLength: 40 });
    const doc = fc.oneof(
      docArb(true),
      arr.map((a): Doc => ({ a })),
    );
    fc.assert(
      fc.property(doc, list, (d, values) => {
        const hashed = matchesFilter(parseFilter({ a: { $in: values.map(toWire) } }), d);
        const reached = walkPath(d, ['a'], 'traverse');
        const linear = reached.some((r) => values.some((v) => matchesElement({ op: 'in', values: [v] }, r)));
        expect(hashed).toBe(linear);
        const allEq = matchesFilter(parseFilter({ a: { $all: values.map(toWire) } }), d);
        const every = values.every((v) => reached.some((r) => matchesElement({ op: 'in', values: [v] }, r)));
        expect(allEq).toBe(every);
      }),
      { numRuns: 2000 },
    );
  });

  it('$in of 16+ values with null → matches a missing field; with NaN → matches NaN only', () => {
    const nulls = parseFilter({ a: { $in: [null, ...range(20)] } });
    expect(matchesFilter(nulls, { b: 1 })).toBe(true);
    expect(matchesFilter(nulls, { a: range(30, 100) })).toBe(false);
    const nan = parseFilter({ a: { $in: [{ $numberDouble: 'NaN' }, ...range(20, 1)] } });
    expect(matchesFilter(nan, { a: Number.NaN })).toBe(true);
    expect(matchesFilter(nan, { a: 0 })).toBe(false);
    expect(matchesElement({ op: 'in', values: [null, ...range(20)] }, MISSING)).toBe(true);
  });

  it('$match {$all: 10,000 values} after $project on a 100,000-element array → matches in under 10 s', () => {
    const doc = { _id: 1, big: range(100_000) };
    const pipeline = parsePipeline([{ $project: { big: 1 } }, { $match: { big: { $all: range(10_000) } } }]);
    expect(within(10_000, () => runPipelineSync(pipeline, [doc])).length).toBe(1);
    const or = parsePipeline([
      { $project: { big: 1 } },
      { $match: { $or: range(10_000, -10_000).map((i) => ({ big: i })) } },
    ]);
    expect(within(10_000, () => runPipelineSync(or, [doc])).length).toBe(0);
  });
});

describe('aggregation over large arrays', () => {
  it('$unwind of a 1,000,000-element array → 1,000,000 documents (was a RangeError)', () => {
    const doc = { _id: 1, big: new Array<number>(1_000_000).fill(7) };
    const out = runPipelineSync(parsePipeline([{ $unwind: '$big' }]), [doc]);
    expect(out.length).toBe(1_000_000);
    expect(out[999_999]).toEqual({ _id: 1, big: 7 });
    expect(runPipelineSync(parsePipeline([{ $project: { big: 1 } }, { $match: { big: 8 } }]), [doc])).toEqual(
      [],
    );
  });

  it('$sort of 2,000 documents by 2,000-element arrays → sorted in under 10 s (keys computed once each)', () => {
    const docs = range(2000).map((i) => ({ _id: i, a: range(2000, i % 7) }));
    const out = within(10_000, () =>
      runPipelineSync(parsePipeline([{ $project: { a: 1 } }, { $sort: { a: -1, _id: 1 } }]), docs),
    );
    expect(out.slice(0, 3).map((d) => d._id)).toEqual([6, 13, 20]);
  });

  it(`a pipeline of ${MAX_PIPELINE_STAGES + 1} stages → 400 QUERY_TOO_LARGE; ${MAX_PIPELINE_STAGES} → accepted`, () => {
    const stages = range(MAX_PIPELINE_STAGES).map(() => ({ $skip: 0 }));
    expect(parsePipeline(stages).length).toBe(MAX_PIPELINE_STAGES);
    expect(codeOf(() => parsePipeline([...stages, { $skip: 0 }]))).toBe('QUERY_TOO_LARGE');
  });
});

describe('sizes of filters, paths and projections', () => {
  it('a projection of 100,000 fields → parsed in under 10 s; a collision is still refused', () => {
    const fields = Object.fromEntries(range(100_000).map((i) => [`f${i}`, 1]));
    within(10_000, () => parseProjection(fields));
    expect(() => parseProjection({ ...fields, 'f5.x': 1 })).toThrow('Path collision at f5.x');
  });

  it(`a field path of ${MAX_PATH_PARTS + 1} parts → 400 QUERY_TOO_LARGE in filters, updates and pipelines`, () => {
    const long = range(MAX_PATH_PARTS + 1)
      .map(() => 'a')
      .join('.');
    expect(
      parseFilter({
        [range(MAX_PATH_PARTS)
          .map(() => 'a')
          .join('.')]: 1,
      }).kind,
    ).toBe('path');
    expect(codeOf(() => parseFilter({ [long]: 1 }))).toBe('QUERY_TOO_LARGE');
    expect(codeOf(() => parseUpdate({ $set: { [long]: 1 } }))).toBe('QUERY_TOO_LARGE');
    expect(codeOf(() => parsePipeline([{ $unwind: `$${long}` }]))).toBe('QUERY_TOO_LARGE');
    expect(codeOf(() => parseProjection({ [long]: 1 }))).toBe('QUERY_TOO_LARGE');
  });

  it('a filter needing more than 1,000 bind values → 400 QUERY_TOO_LARGE; 1,000 → compiled; a long $in is one value', () => {
    expect(compileFilter(parseFilter({ $or: range(1000).map((i) => ({ a: i })) }), 'doc', [])).toContain(
      'OR',
    );
    const or = parseFilter({ $or: range(1001).map((i) => ({ a: i })) });
    expect(codeOf(() => compileFilter(or, 'doc', []))).toBe('QUERY_TOO_LARGE');
    const params: unknown[] = [];
    compileFilter(parseFilter({ a: { $in: range(100_000) } }), 'doc', params);
    expect(params.length).toBe(1);
  });
});

describe('regular expression bounds', () => {
  it.each([['(((a{100}){100}){100})'], ['(a{255}){255}'], ['(?:[a-z]{100}){60}'], ['x'.repeat(5001)]])(
    '%s → 400 QUERY_BAD_REGEX "too complex"',
    (pattern) => {
      expect(codeOf(() => translateRegex(pattern, ''))).toBe('QUERY_BAD_REGEX');
      expect(() => translateRegex(pattern, '')).toThrow('too complex');
    },
  );

  it(`groups nested ${MAX_REGEX_NESTING + 1} deep, or 100,000 deep → 400 QUERY_BAD_REGEX (was a RangeError)`, () => {
    const nest = (n: number) => `${'('.repeat(n)}a${')'.repeat(n)}`;
    expect(translateRegex(nest(MAX_REGEX_NESTING), '').js).toContain('a');
    expect(() => translateRegex(nest(MAX_REGEX_NESTING + 1), '')).toThrow('nest deeper');
    expect(codeOf(() => translateRegex(nest(100_000), ''))).toBe('QUERY_BAD_REGEX');
  });

  const project = (expr: unknown, s: string) =>
    runPipelineSync(parsePipeline([{ $project: { _id: 0, r: expr } }]), [{ _id: 1, s }]);

  it('$regexFindAll of an empty pattern over 2,000,000 characters → 400 QUERY_TOO_LARGE, quickly', () => {
    const s = 'a'.repeat(2_000_000);
    within(10_000, () =>
      expect(codeOf(() => project({ $regexFindAll: { input: '$s', regex: '' } }, s))).toBe('QUERY_TOO_LARGE'),
    );
  });

  it('$regexFind with 100 capture groups over 1,000,000 characters → bounded; 101 groups → 400 naming it', () => {
    const groups = '(a?)'.repeat(100);
    const s = `${'a'.repeat(1_000_000)}`;
    within(10_000, () => {
      try {
        const [out] = project({ $regexFind: { input: '$s', regex: `${groups}b` } }, s);
        expect(out).toEqual({ r: null });
      } catch (e) {
        expect(isPlaybaseError(e) && e.code).toBe('QUERY_TOO_LARGE');
      }
    });
    expect(() => project({ $regexFind: { input: '$s', regex: `${groups}()` } }, 'a')).toThrow('$regexFind');
  });

  it.each([
    ['^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}$', 'i'],
    ['^.{0,255}$', 's'],
    ['^(\\d{1,3}\\.){3}\\d{1,3}$', ''],
    ['^(?:[a-z0-9]{1,63}\\.){1,10}[a-z]{2,63}$', 'i'],
    ['[a-z]{255}', ''],
    ['(a{100}){10}', ''],
  ])('a reasonable game pattern %s → accepted', (pattern, options) => {
    expect(translateRegex(pattern, options).pattern).toBe(pattern);
  });
});
