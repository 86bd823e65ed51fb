// find's projection operators (MongoDB 4.4+): $slice, $elemMatch, the positional `field.$` and aggregation
// expressions, with MongoDB's documented answers and its errors (400 naming the operator).
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { parseFilter } from './filter.js';
import { matchPosition } from './match-position.js';
import { applyProjection, parseProjection } from './projection.js';
import type { Doc } from './values.js';

const NOW = new Date('2024-01-01T00:00:00Z');
const project = (doc: Doc, fields: unknown, query?: unknown) => {
  const p = parseProjection(fields);
  const position = query === undefined ? undefined : matchPosition(parseFilter(query), doc);
  return applyProjection(doc, p, NOW, position);
};
function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code} ${e.message}`;
    throw e;
  }
  throw new Error('expected an error');
}

const post: Doc = { _id: 1, title: 't', comments: [1, 2, 3, 4, 5], meta: { tags: ['a', 'b', 'c'] } };

describe('$slice', () => {
  it('alone keeps every other field; with inclusions only the included ones', () => {
    expect(project(post, { comments: { $slice: 2 } })).toEqual({ ...post, comments: [1, 2] });
    expect(project(post, { comments: { $slice: -2 } })).toEqual({ ...post, comments: [4, 5] });
    expect(project(post, { comments: { $slice: [1, 2] } }).comments).toEqual([2, 3]);
    expect(project(post, { comments: { $slice: [-2, 5] } }).comments).toEqual([4, 5]);
    expect(project(post, { comments: { $slice: [9, 1] } }).comments).toEqual([]);
    expect(project(post, { title: 1, 'meta.tags': { $slice: 1 } })).toEqual({
      _id: 1,
      title: 't',
      meta: { tags: ['a'] },
    });
    expect(project(post, { title: 0, comments: { $slice: 1 } })).toEqual({
      _id: 1,
      comments: [1],
      meta: post.meta,
    });
    // Not an array: the value as it is.
    expect(project(post, { title: { $slice: 1 } }).title).toBe('t');
  });

  it('bad operands → 400 naming $slice', () => {
    for (const arg of ['x', [1], [1, 0], [1, -1], 1.5, null]) {
      expect(failure(() => parseProjection({ a: { $slice: arg } }))).toMatch(
        /^400 QUERY_BAD_PROJECTION .*\$slice/,
      );
    }
  });
});

describe('$elemMatch', () => {
  const school: Doc = {
    _id: 1,
    zipcode: '63109',
    students: [
      { name: 'john', school: 102, age: 10 },
      { name: 'jess', school: 102, age: 11 },
      { name: 'jeff', school: 108, age: 15 },
    ],
  };
  it('the first matching element, after the other inclusions; the field left out when none matches', () => {
    expect(project(school, { students: { $elemMatch: { school: 102 } } })).toEqual({
      _id: 1,
      students: [{ name: 'john', school: 102, age: 10 }],
    });
    const out = project(school, { students: { $elemMatch: { age: { $gt: 10 } } }, zipcode: 1 });
    expect(Object.keys(out)).toEqual(['_id', 'zipcode', 'students']);
    expect(out.students).toEqual([{ name: 'jess', school: 102, age: 11 }]);
    expect(project(school, { students: { $elemMatch: { school: 999 } } })).toEqual({ _id: 1 });
    expect(project({ _id: 2, a: [1, 7, 9] }, { a: { $elemMatch: { $gt: 5 } } })).toEqual({ _id: 2, a: [7] });
  });

  it('a nested field or a non-document → 400 naming $elemMatch', () => {
    expect(failure(() => parseProjection({ 'a.b': { $elemMatch: { c: 1 } } }))).toMatch(/\$elemMatch/);
    expect(failure(() => parseProjection({ a: { $elemMatch: 5 } }))).toMatch(/\$elemMatch/);
    expect(failure(() => parseProjection({ a: { $elemMatch: { $frob: 1 } } }))).toMatch(/\$frob/);
  });
});

describe('positional field.$', () => {
  const doc: Doc = { _id: 7, semester: 3, grades: [70, 87, 90], other: [1, 2, 3, 4] };
  it('the element the query matched (the first), as MongoDB records it', () => {
    expect(project(doc, { 'grades.$': 1 }, { semester: 3, grades: { $gte: 85 } })).toEqual({
      _id: 7,
      grades: [87],
    });
    expect(project(doc, { 'grades.$': 1, semester: 1 }, { grades: 90 })).toEqual({
      _id: 7,
      semester: 3,
      grades: [90],
    });
  });

  it('no position, two positionals, or an exclusion → 400', () => {
    expect(failure(() => project(doc, { 'grades.$': 1 }, { semester: 3 }))).toMatch(/^400 .*'\.\$'/);
    expect(failure(() => parseProjection({ 'grades.$': 1, 'other.$': 1 }))).toMatch(/'\.\$'/);
    expect(failure(() => parseProjection({ 'grades.$': 0 }))).toMatch(/'\.\$'/);
    expect(failure(() => parseProjection({ 'grades.$': 1, semester: 0 }))).toMatch(/QUERY_BAD_PROJECTION/);
    expect(failure(() => project(doc, { 'grades.$': 1 }, { other: 4 }))).toMatch(/^400 .*'\.\$'.*mismatch/);
  });
});

describe('aggregation expressions in find projections (4.4+)', () => {
  it('computed fields, field paths and literals; an inclusion projection', () => {
    const doc: Doc = { _id: 1, a: 2, b: { c: 3 }, d: 'x' };
    expect(project(doc, { sum: { $add: ['$a', '$b.c'] }, d: 1 })).toEqual({ _id: 1, d: 'x', sum: 5 });
    expect(project(doc, { copy: '$b.c', lit: 'text', _id: 0 })).toEqual({ copy: 3, lit: 'text' });
    expect(failure(() => parseProjection({ x: { $frob: 1 } }))).toMatch(/\$frob/);
    expect(failure(() => parseProjection({ x: { $add: 1 }, a: 0 }))).toMatch(/QUERY_BAD_PROJECTION/);
  });
});
