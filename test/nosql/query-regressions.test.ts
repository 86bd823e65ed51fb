// Regressions found while building the nosql server: empty filters and dates outside the ISO range.
import { describe, expect, it } from 'vitest';
import { compileFilter, parseFilter } from '../../src/query/filter.js';
import { fromWire, parseWire, toWire } from '../../src/query/values.js';

describe('query engine', () => {
  it.each([
    ['{}', {}],
    ['{$and: [{}]}', { $and: [{}] }],
    ['{$or: [{}]}', { $or: [{}] }],
    ['{a: {$elemMatch: {}}}', { a: { $elemMatch: {} } }],
  ])('empty filter document %s → compiles to valid SQL (not "()")', (_name, filter) => {
    const sql = compileFilter(parseFilter(filter), 'doc', []);
    expect(sql).not.toMatch(/\(\s*\)/);
  });

  it.each([
    ['year 10000', '253402300800000'],
    ['year -1', '-62198755200000'],
  ])('a date in %s → its extended JSON output reads back as the same date', (_name, ms) => {
    const date = fromWire({ $date: { $numberLong: ms } });
    const text = JSON.stringify(toWire(date));
    expect(parseWire(text)).toEqual(date);
  });
});
