// Positional updates ($, $[], $[<identifier>] with arrayFilters): MongoDB's documented examples, the position
// its matcher records, and its errors (400 naming the operator).
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { parseFilter } from './filter.js';
import { matchPosition } from './match-position.js';
import { applyUpdate, parseUpdate, positionFor } from './update.js';
import type { Doc } from './values.js';

const NOW = new Date('2024-05-06T07:08:09.010Z');

function run(doc: Doc, query: unknown, update: unknown, arrayFilters?: unknown): Doc {
  const spec = parseUpdate(update, arrayFilters);
  const position = positionFor(spec, parseFilter(query), doc);
  return applyUpdate(doc, spec, { now: NOW, isInsert: false, position }).doc;
}

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code} ${e.message}`;
    throw e;
  }
  throw new Error('expected an error');
}

describe('positional $', () => {
  it("MongoDB's examples: the first element the query matched", () => {
    expect(run({ _id: 1, grades: [85, 80, 80] }, { grades: 80 }, { $set: { 'grades.$': 82 } })).toEqual({
      _id: 1,
      grades: [85, 82, 80],
    });
    const doc = {
      _id: 4,
      grades: [
        { grade: 80, mean: 75, std: 8 },
        { grade: 85, mean: 90, std: 5 },
        { grade: 85, mean: 85, std: 8 },
      ],
    };
    expect(run(doc, { 'grades.grade': 85 }, { $set: { 'grades.$.std': 6 } }).grades).toEqual([
      { grade: 80, mean: 75, std: 8 },
      { grade: 85, mean: 90, std: 6 },
      { grade: 85, mean: 85, std: 8 },
    ]);
    const em = { grades: { $elemMatch: { grade: { $lte: 90 }, mean: { $gt: 80 } } } };
    expect(run(doc, em, { $set: { 'grades.$.std': 6 } }).grades).toEqual([
      { grade: 80, mean: 75, std: 8 },
      { grade: 85, mean: 90, std: 6 },
      { grade: 85, mean: 85, std: 8 },
    ]);
  });

  it('the position is the outermost array the path crosses; an $and keeps the last one recorded', () => {
    const doc = { a: [{ b: [1, 2] }, { b: [3, 4] }], c: [7, 8, 9] };
    expect(matchPosition(parseFilter({ 'a.b': 4 }), doc)).toBe(1);
    // MongoDB's canonical order puts $gt (GT) after equality (EQ): the c predicate decides.
    expect(matchPosition(parseFilter({ c: { $gt: 8 }, 'a.b': 1 }), doc)).toBe(2);
    expect(matchPosition(parseFilter({ 'a.b': 1, c: 9 }), doc)).toBe(2);
    // $or records nothing (unless it is one path's $in); $size records nothing.
    expect(matchPosition(parseFilter({ $or: [{ c: 9 }, { x: 1 }] }), doc)).toBeUndefined();
    expect(matchPosition(parseFilter({ c: { $in: [8, 9] } }), doc)).toBe(1);
    expect(matchPosition(parseFilter({ c: { $size: 3 } }), doc)).toBeUndefined();
    // An explicit index records none of its own.
    expect(matchPosition(parseFilter({ 'c.1': 8 }), doc)).toBeUndefined();
  });

  it('no position from the query → 400 naming $; $ first or twice → 400', () => {
    expect(failure(() => run({ a: [1] }, { b: 1 }, { $set: { 'a.$': 2 } }))).toMatch(
      /^400 UPDATE_BAD_POSITIONAL .*\$: the positional operator did not find the match/,
    );
    expect(failure(() => parseUpdate({ $set: { '$.a': 1 } }))).toMatch(/UPDATE_BAD_POSITIONAL .*first/);
    expect(failure(() => parseUpdate({ $set: { 'a.$.b.$': 1 } }))).toMatch(/too many positional/);
    expect(failure(() => parseUpdate({ $rename: { 'a.$': 'b' } }))).toMatch(/UPDATE_BAD_ARGUMENT .*\$rename/);
    expect(failure(() => parseUpdate({ $rename: { a: 'b.$[]' } }))).toMatch(/may not be dynamic/);
  });

  it('an upsert that inserts has no position: 400', () => {
    const spec = parseUpdate({ $set: { 'a.$': 1 } });
    expect(failure(() => applyUpdate({ a: [1] }, spec, { now: NOW, isInsert: true }))).toMatch(/\$:/);
  });
});

describe('$[] and $[<identifier>]', () => {
  it("MongoDB's examples", () => {
    expect(run({ grades: [95, 92, 90] }, {}, { $inc: { 'grades.$[]': 10 } })).toEqual({
      grades: [105, 102, 100],
    });
    expect(
      run({ grades: [95, 102, 90, 150] }, {}, { $set: { 'grades.$[element]': 100 } }, [
        { element: { $gte: 100 } },
      ]),
    ).toEqual({ grades: [95, 100, 90, 100] });
    const doc = {
      grades: [
        { grade: 80, mean: 75, std: 6 },
        { grade: 85, mean: 90, std: 4 },
      ],
    };
    expect(
      run(doc, {}, { $set: { 'grades.$[elem].mean': 100 } }, [{ 'elem.grade': { $gte: 85 } }]).grades,
    ).toEqual([
      { grade: 80, mean: 75, std: 6 },
      { grade: 85, mean: 100, std: 4 },
    ]);
    // Nested: every element's b, and inside it the elements the filter matches.
    const nested = { a: [{ b: [1, 2, 3] }, { b: [4, 5] }] };
    expect(run(nested, {}, { $inc: { 'a.$[].b.$[x]': 100 } }, [{ x: { $gt: 2 } }])).toEqual({
      a: [{ b: [1, 2, 103] }, { b: [104, 105] }],
    });
    // Filters see the document as it was; $or over one identifier is one filter.
    expect(run({ a: [1, 2, 3] }, {}, { $set: { 'a.$[x]': 0 } }, [{ $or: [{ x: 1 }, { x: 3 }] }])).toEqual({
      a: [0, 2, 0],
    });
  });

  it('errors name the operator: missing path, non-array, unknown or unused identifier, conflicts', () => {
    expect(failure(() => run({}, {}, { $set: { 'a.$[]': 1 } }))).toMatch(/\$\[\]: the path 'a' must exist/);
    expect(failure(() => run({ a: 5 }, {}, { $set: { 'a.$[]': 1 } }))).toMatch(
      /\$\[\]: cannot apply array updates/,
    );
    expect(failure(() => parseUpdate({ $set: { 'a.$[x]': 1 } }))).toMatch(/\$\[x\]: no array filter found/);
    expect(failure(() => parseUpdate({ $set: { a: 1 } }, [{ x: 1 }]))).toMatch(
      /UPDATE_BAD_ARRAY_FILTERS .*identifier 'x' was not used/,
    );
    expect(failure(() => parseUpdate({ $set: { 'a.$[x]': 1 } }, [{ x: 1 }, { x: 2 }]))).toMatch(/multiple/);
    expect(failure(() => parseUpdate({ $set: { 'a.$[x]': 1 } }, [{ x: 1, y: 2 }]))).toMatch(
      /single top-level/,
    );
    expect(failure(() => parseUpdate({ $set: { 'a.$[X]': 1 } }, [{ X: 1 }]))).toMatch(/lowercase/);
    expect(failure(() => parseUpdate({ $set: { 'a.$[]': 1 } }, [{}]))).toMatch(/without a top-level field/);
    expect(failure(() => parseUpdate({ $set: { 'a.$[]': 1 } }, { x: 1 }))).toMatch(
      /UPDATE_BAD_ARRAY_FILTERS/,
    );
    expect(failure(() => parseUpdate({ $set: { 'a.$[]': 1, 'a.0': 2 } }))).toMatch(/UPDATE_PATH_CONFLICT/);
    expect(
      failure(() =>
        run({ a: [1, 2] }, {}, { $set: { 'a.$[x]': 1, 'a.$[y]': 2 } }, [{ x: 1 }, { y: { $gte: 1 } }]),
      ),
    ).toMatch(/UPDATE_APPLY_CONFLICT .*'a.0'/);
    expect(failure(() => run({ a: [1, 2] }, { a: 1 }, { $set: { 'a.$': 1, 'a.0': 2 } }))).toMatch(
      /UPDATE_APPLY_CONFLICT/,
    );
  });

  it('a hostile expansion is bounded: 400 QUERY_TOO_LARGE, not minutes of work', () => {
    const inner = Array.from({ length: 2_100 }, () => 0);
    const doc = { a: Array.from({ length: 2_100 }, () => ({ b: inner })) };
    expect(failure(() => run(doc, {}, { $inc: { 'a.$[].b.$[]': 1 } }))).toMatch(/^400 QUERY_TOO_LARGE/);
  });
});
