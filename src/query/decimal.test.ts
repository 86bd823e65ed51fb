// Decimal128 in the value model: MongoDB's conversions ($toDecimal, $convert), exact order and equality with
// ints, longs and doubles (compareValues, the byte keys, the grouping keys), the wire form, and what refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePipeline, runPipelineSync } from './aggregate.js';
import { Decimal128, decimalFromDouble } from './decimal.js';
import { codeOf, ev } from './expr/expr.test-util.js';
import { encodeKey } from './key-encoding.js';
import { equalityKey } from './value-identity.js';
import { compareValues, fromWire, toStored, toWire, type Value } from './values.js';

const dec = (s: string) => Decimal128.fromString(s);
const text = (v: unknown) => (v instanceof Decimal128 ? `dec:${v.toString()}` : v);

describe('$toDecimal and $convert to decimal', () => {
  it("answers MongoDB's documented conversions", () => {
    expect(text(ev({ $toDecimal: true }))).toBe('dec:1');
    expect(text(ev({ $toDecimal: '2.5' }))).toBe('dec:2.5');
    expect(text(ev({ $toDecimal: 5 }))).toBe('dec:5');
    expect(text(ev({ $toDecimal: { $numberLong: '10000' } }))).toBe('dec:10000');
    expect(text(ev({ $toDecimal: { $date: '2018-03-27T05:04:47.890Z' } }))).toBe('dec:1522127087890');
    expect(text(ev({ $toDecimal: 2.5 }))).toBe('dec:2.50000000000000');
    expect(ev({ $toDecimal: null })).toBeNull();
    expect(ev({ $toDecimal: '$nope' })).toBeNull();
    expect(ev({ $convert: { input: 'abc', to: 'decimal', onError: 'bad' } })).toBe('bad');
    expect(text(ev({ $convert: { input: '1e3', to: 19 } }))).toBe('dec:1E+3');
  });

  it("a double keeps 15 significant digits, rounded half to even (MongoDB's Decimal128(double))", () => {
    expect(decimalFromDouble(0.1).toString()).toBe('0.100000000000000');
    expect(decimalFromDouble(1 / 3).toString()).toBe('0.333333333333333');
    expect(decimalFromDouble(-2 / 3).toString()).toBe('-0.666666666666667');
    expect(decimalFromDouble(1e20).toString()).toBe('1.00000000000000E+20');
    expect(decimalFromDouble(123456789.12345679).toString()).toBe('123456789.123457');
    expect(decimalFromDouble(1 - 2 ** -53).toString()).toBe('1.00000000000000');
    expect(decimalFromDouble(5e-324).toString()).toBe('4.94065645841247E-324');
    expect(decimalFromDouble(Number.NaN).toString()).toBe('NaN');
  });

  it('decimals convert back, and $type / $isNumber / $toString know them', () => {
    expect(ev({ $type: { $toDecimal: '1.5' } })).toBe('decimal');
    expect(ev({ $isNumber: { $toDecimal: '1.5' } })).toBe(true);
    expect(ev({ $toString: { $toDecimal: '1.50' } })).toBe('1.50');
    expect(ev({ $toInt: { $toDecimal: '-2.7' } })).toBe(-2);
    expect(ev({ $toLong: { $toDecimal: '1E+18' } })).toBe(10n ** 18n);
    expect(ev({ $toDouble: { $toDecimal: '0.1' } })).toBe(0.1);
    expect(ev({ $toBool: { $toDecimal: '0E+3' } })).toBe(false);
    expect(ev({ $cond: [{ $toDecimal: '0.0' }, 'yes', 'no'] })).toBe('no');
    expect(ev({ $toDate: { $toDecimal: '1000.9' } })).toEqual(new Date(1000));
    expect(ev({ $eq: [{ $toDecimal: '1.5' }, 1.5] })).toBe(true);
    expect(ev({ $gt: [{ $toDecimal: '0.1' }, 0.1] })).toBe(false);
    expect(toWire({ d: dec('1.5') } as Value)).toEqual({ d: { $numberDecimal: '1.5' } });
  });

  it('what is not implemented answers 400 naming the operator: arithmetic, out-of-range, storing, parsing', () => {
    expect(codeOf(() => ev({ $add: [{ $toDecimal: '1' }, 1] }))).toMatch(/^400 .*\$add.*decimal/);
    expect(codeOf(() => ev({ $toDecimal: '1E+400' }))).toMatch(/^400 .*\$toDecimal/);
    expect(codeOf(() => ev({ $toDecimal: { $literal: [1] } }))).toMatch(/^400 .*\$toDecimal/);
    expect(codeOf(() => toStored({ d: dec('1') } as Value))).toMatch(/^400 .*cannot be stored/);
    expect(codeOf(() => fromWire({ d: { $numberDecimal: '1.5' } }))).toMatch(/^400 .*numberDecimal/);
    const sum = parsePipeline([{ $group: { _id: null, t: { $sum: { $toDecimal: '$v' } } } }]);
    expect(codeOf(() => runPipelineSync(sum, [{ _id: 1, v: 1 }]))).toMatch(/^400 .*\$sum.*decimal/);
    const max = parsePipeline([{ $group: { _id: null, t: { $max: { $toDecimal: '$v' } } } }]);
    expect(
      toWire(
        runPipelineSync(max, [
          { _id: 1, v: '0.5' },
          { _id: 2, v: 0.25 },
        ])[0]!,
      ),
    ).toEqual({
      _id: null,
      t: { $numberDecimal: '0.5' },
    });
  });
});

/** Decimals, doubles and longs around shared values, where exactness matters. */
const numberArb: fc.Arbitrary<Value> = fc.oneof(
  fc.constantFrom<Value>(
    0.1,
    0.5,
    1.5,
    -1.5,
    2 ** 53,
    2 ** 63,
    -(2 ** 64),
    1e300,
    Number.NaN,
    Infinity,
    -Infinity,
  ),
  fc.double({ noNaN: false }),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(9007199254740993n, 9223372036854775807n, -9223372036854775808n, 5n),
  fc
    .tuple(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: -30, max: 30 }))
    .map(([c, e]) => dec(`${c}E${e}`)),
  fc
    .constantFrom(
      '0.1',
      '0.10',
      '1.5',
      '-1.5',
      '9007199254740993',
      '9007199254740992.5',
      '9223372036854775807',
      '9223372036854775808',
      '18446744073709551617',
      '1E+300',
      '-0',
      'NaN',
      'Infinity',
      '-Infinity',
      '5E-324',
    )
    .map(dec),
);

describe('order and equality with other numbers', () => {
  it('compareValues is exact; byte keys and grouping keys agree with it', () => {
    fc.assert(
      fc.property(numberArb, numberArb, (a, b) => {
        const c = Math.sign(compareValues(a, b));
        expect(Math.sign(Buffer.compare(encodeKey(a), encodeKey(b)))).toBe(c);
        expect(equalityKey(a) === equalityKey(b)).toBe(c === 0);
        // Inside arrays and documents too (the key bytes that follow a number).
        const ka = encodeKey([a, 'x'] as Value);
        const kb = encodeKey([b, 1] as Value);
        if (c !== 0) expect(Math.sign(Buffer.compare(ka, kb))).toBe(c);
      }),
      { numRuns: 3000 },
    );
  });

  it('pins exact comparisons', () => {
    expect(compareValues(dec('0.1'), 0.1)).toBe(-1);
    expect(compareValues(dec('1.5'), 1.5)).toBe(0);
    expect(compareValues(dec('9007199254740993'), 9007199254740993n)).toBe(0);
    expect(compareValues(dec('9007199254740993'), 2 ** 53)).toBe(1);
    expect(compareValues(dec('NaN'), Number.NaN)).toBe(0);
    expect(compareValues(dec('-Infinity'), -1e308)).toBe(-1);
    expect(compareValues(dec('1'), '1')).toBe(-1);
  });

  it('sorts and groups with other numbers in a pipeline', () => {
    const docs = [{ v: 2 }, { v: '1.5' }, { v: 1.5 }, { v: '0.1' }, { v: 0.1 }].map((d, i) => ({
      _id: i,
      ...d,
    }));
    const stages = parsePipeline([
      { $project: { v: { $cond: [{ $isNumber: '$v' }, '$v', { $toDecimal: '$v' }] } } },
      { $group: { _id: '$v', n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    const typed = parsePipeline([
      { $project: { v: { $toDecimal: '$v' } } },
      { $match: { v: { $type: 'number' }, $and: [{ v: { $type: 'decimal' } }, { v: { $gt: 1 } }] } },
    ]);
    expect(runPipelineSync(typed, docs).map((d) => d._id)).toEqual([0, 1, 2]);
    const out = runPipelineSync(stages, docs).map((d) => toWire(d));
    expect(out).toEqual([
      { _id: { $numberDecimal: '0.1' }, n: 1 },
      { _id: 0.1, n: 1 },
      { _id: { $numberDecimal: '1.5' }, n: 2 },
      { _id: 2, n: 1 },
    ]);
  });
});
