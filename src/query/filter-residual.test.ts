// $expr and the bitwise operators in matchesFilter: MongoDB's answers, the relaxation for SQL, and bounded work.
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { matchesFilter, parseFilter } from './filter.js';
import { needsResidual, relaxForSql } from './filter-residual.js';

const matches = (filter: unknown, doc: Record<string, unknown>) =>
  matchesFilter(parseFilter(filter), doc as never);

describe('$expr', () => {
  it('compares two fields of one document; truthiness as MongoDB (0, null, missing are false)', () => {
    expect(matches({ $expr: { $gt: ['$spent', '$budget'] } }, { spent: 5, budget: 3 })).toBe(true);
    expect(matches({ $expr: { $gt: ['$spent', '$budget'] } }, { spent: 2, budget: 3 })).toBe(false);
    expect(matches({ $expr: '$a' }, { a: 0 })).toBe(false);
    expect(matches({ $expr: '$a' }, { a: '' })).toBe(true);
    expect(matches({ $expr: '$a' }, {})).toBe(false);
    expect(matches({ $or: [{ $expr: { $eq: ['$a', 1] } }, { b: 2 }] }, { b: 2 })).toBe(true);
  });

  it('one work budget per filter for all the documents it tests: 400 QUERY_TOO_LARGE, not minutes', () => {
    const node = parseFilter({ $expr: { $gt: [{ $size: { $range: [0, 100_000] } }, 0] } });
    let error: unknown;
    try {
      for (let i = 0; i < 1000; i++) matchesFilter(node, { _id: i });
    } catch (e) {
      error = e;
    }
    expect(isPlaybaseError(error) && error.code).toBe('QUERY_TOO_LARGE');
  });
});

describe('bitwise operators', () => {
  it('positions, masks, BinData; numbers as 64-bit two s complement; other types never', () => {
    expect(matches({ a: { $bitsAllSet: [1, 5] } }, { a: 54 })).toBe(true);
    expect(matches({ a: { $bitsAllSet: 35 } }, { a: 54 })).toBe(false);
    expect(matches({ a: { $bitsAnySet: [1, 5] } }, { a: 2 })).toBe(true);
    expect(matches({ a: { $bitsAllClear: [0, 3] } }, { a: 54 })).toBe(true);
    expect(matches({ a: { $bitsAnyClear: [1, 2] } }, { a: 54 })).toBe(false);
    expect(matches({ a: { $bitsAllSet: [63, 200] } }, { a: -1 })).toBe(true);
    expect(matches({ a: { $bitsAllSet: [200] } }, { a: 5 })).toBe(false);
    expect(matches({ a: { $bitsAllClear: 1 } }, { a: 'x' })).toBe(false);
    expect(matches({ a: { $bitsAllClear: 1 } }, { a: 2.5 })).toBe(false);
    expect(matches({ a: { $bitsAnySet: 1 } }, { a: [2, 3] })).toBe(true);
    expect(matches({ a: { $bitsAnySet: { $binary: { base64: 'AQ==', subType: '00' } } } }, { a: 3 })).toBe(
      true,
    );
    expect(matches({ a: { $bitsAllSet: { $numberLong: '9223372036854775807' } } }, { a: -1 })).toBe(true);
  });

  it('a hostile list of positions stays linear', () => {
    const positions = Array.from({ length: 200_000 }, (_, i) => i % 64);
    expect(matches({ a: { $bitsAllSet: positions } }, { a: -1 })).toBe(true);
  });
});

describe('relaxForSql', () => {
  it('true where the predicate counts positively, false under negation; exact parts kept', () => {
    const node = parseFilter({ a: 1, $nor: [{ $expr: '$b' }], c: { $not: { $bitsAllSet: 1 } } });
    expect(needsResidual(node)).toBe(true);
    const relaxed = relaxForSql(node);
    expect(needsResidual(relaxed)).toBe(false);
    expect(JSON.stringify(relaxed)).toContain('"kind":"const","value":false');
    expect(relaxForSql(parseFilter({ a: 1 }))).toEqual(parseFilter({ a: 1 }));
  });
});
