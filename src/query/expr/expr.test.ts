// Unit tests of the expression language: MongoDB's exact answers where mingo differs or cannot tell (longs,
// overflow, decimal rounding, missing vs null), bad operands → 400 naming the operator, hostile sizes bounded.
import { ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../../errors.js';
import { parsePipeline, runPipelineSync } from '../aggregate.js';
import { evaluate, evaluateCondition, parseExpression } from '../aggregate-expr.js';
import { type Doc, fromWire, type Value } from '../values.js';

const NOW = new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 10));
const DOC: Doc = {
  _id: 1,
  a: 5,
  s: 'héllo',
  arr: [1, 2, 3],
  n: null,
  d: new Date(Date.UTC(2021, 0, 31, 12)),
};

/** Evaluates an expression given as extended JSON over DOC (or another document). */
function ev(expr: unknown, doc: Doc = DOC): Value | undefined {
  return evaluate(parseExpression(fromWire(expr, { allowDollarKeys: true }), '$project'), doc, NOW);
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code} ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('expression semantics (MongoDB)', () => {
  it('variables: $$ROOT, $$CURRENT, $$REMOVE, $$NOW from the context, $let', () => {
    expect(ev('$$ROOT.a')).toBe(5);
    expect(ev('$$CURRENT.arr')).toEqual([1, 2, 3]);
    expect(ev('$$REMOVE')).toBeUndefined();
    expect(ev('$$NOW')).toEqual(NOW);
    expect(ev({ $let: { vars: { x: '$a', y: 2 }, in: { $multiply: ['$$x', '$$y'] } } })).toBe(10);
    expect(
      ev({ $let: { vars: { x: 1 }, in: { $let: { vars: { x: 2, y: '$$x' }, in: ['$$x', '$$y'] } } } }),
    ).toEqual([2, 1]);
  });

  it('$$NOW is the pipeline instant: the same in every document and stage', () => {
    const now = new Date(Date.UTC(2030, 0, 1));
    const out = runPipelineSync(
      parsePipeline([{ $project: { t: '$$NOW' } }, { $group: { _id: '$t', n: { $sum: 1 } } }]),
      [{ _id: 1 }, { _id: 2 }],
      { now },
    );
    expect(out).toEqual([{ _id: now, n: 2 }]);
  });

  it('comparison: missing sorts below null, BSON order across types, exact across int/long/double', () => {
    expect(ev({ $eq: ['$nope', null] })).toBe(false);
    expect(ev({ $lt: ['$nope', null] })).toBe(true);
    expect(ev({ $eq: ['$n', null] })).toBe(true);
    expect(ev({ $gt: [true, 100] })).toBe(true);
    expect(ev({ $eq: [{ $numberLong: '9007199254740993' }, 9007199254740992] })).toBe(false);
    expect(ev({ $cmp: [[1, 2], [1]] })).toBe(1);
  });

  it('truthiness: "" and NaN are true; 0, null, missing false', () => {
    expect(ev({ $and: ['', { $numberDouble: 'NaN' }, [], {}] })).toBe(true);
    expect(ev({ $or: [0, null, '$nope', false, { $numberLong: '0' }] })).toBe(false);
  });

  it('int overflow → long, long overflow → double, doubles stay doubles', () => {
    expect(ev({ $add: [2147483647, 1] })).toBe(2147483648n);
    expect(ev({ $multiply: [65536, 65536] })).toBe(4294967296n);
    expect(ev({ $add: [{ $numberLong: '9223372036854775807' }, 1] })).toBe(2 ** 63);
    expect(ev({ $subtract: [{ $numberLong: '5' }, 2] })).toBe(3n);
    expect(ev({ $add: [0.5, 0.25] })).toBe(0.75);
    expect(ev({ $abs: -2147483648 })).toBe(2147483648n);
    expect(ev({ $pow: [2, 62] })).toBe(4611686018427387904n);
    expect(ev({ $pow: [2, 64] })).toBe(2 ** 64);
    expect(ev({ $mod: [-7, 2] })).toBe(-1);
    expect(ev({ $divide: [1, 4] })).toBe(0.25);
    // MongoDB's jstests/aggregation/expressions/arith_overflow.js.
    const l9e18 = { $numberLong: '9000000000000000000' };
    const m9e18 = { $numberLong: '-9000000000000000000' };
    expect(ev({ $add: [2e9, 2e9] })).toBe(4000000000n);
    expect(ev({ $add: [l9e18, l9e18] })).toBe(1.8e19);
    expect(ev({ $subtract: [2e9, -2e9] })).toBe(4000000000n);
    expect(ev({ $subtract: [l9e18, m9e18] })).toBe(1.8e19);
    expect(ev({ $multiply: [2e9, -2e9] })).toBe(-4000000000000000000n);
    expect(ev({ $multiply: [l9e18, m9e18] })).toBe(-8.1e37);
  });

  it('dates in $add and $subtract', () => {
    expect(ev({ $add: ['$d', 1000] })).toEqual(new Date(Date.UTC(2021, 0, 31, 12, 0, 1)));
    expect(ev({ $subtract: ['$d', { $add: ['$d', 60000] }] })).toBe(-60000n);
    expect(ev({ $add: [{ $date: '1970-01-01T00:00:00Z' }, 2.5] })).toEqual(new Date(3));
    // MongoDB's jstests/aggregation/expressions/add_with_date.js.
    const date = { $date: '2019-01-30T07:30:10.137Z' };
    expect(ev({ $add: [date, 819.536] })).toEqual(new Date('2019-01-30T07:30:10.957Z'));
    expect(ev({ $add: [date, 819.536, 819.536, { $numberLong: '820' }] })).toEqual(
      new Date('2019-01-30T07:30:12.597Z'),
    );
    expect(ev({ $add: [819.536, 819.536, { $numberLong: '820' }, date] })).toEqual(
      new Date('2019-01-30T07:30:12.596Z'),
    );
    const big = [{ $numberLong: '2397083434877565865' }, 819.536, { $numberLong: '-2397083434877565864' }];
    expect(ev({ $add: [date, ...big] })).toEqual(new Date('2019-01-30T07:30:10.958Z'));
    expect(codeOf(() => ev({ $add: [date, { $numberDouble: 'NaN' }] }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(codeOf(() => ev({ $add: [date, { $numberLong: '9223372036854775807' }] }))).toMatch(
      /^400 QUERY_BAD_EXPRESSION/,
    );
    expect(ev({ $subtract: ['$d', 1.5] })).toEqual(new Date(DOC.d instanceof Date ? DOC.d.getTime() - 2 : 0));
  });

  it('$round half to even in decimal, $trunc toward zero, negative places', () => {
    expect(ev({ $round: [2.5] })).toBe(2);
    expect(ev({ $round: [3.5] })).toBe(4);
    expect(ev({ $round: [1.005, 2] })).toBe(1);
    expect(ev({ $round: [2.675, 2] })).toBe(2.67);
    expect(ev({ $round: [1234, -2] })).toBe(1200);
    expect(ev({ $round: [1250, -2] })).toBe(1200);
    expect(ev({ $trunc: [-2.7] })).toBe(-2);
    expect(ev({ $trunc: [1.23456, 3] })).toBe(1.234);
    // MongoDB's jstests/aggregation/expressions/round_trunc.js.
    expect(ev({ $trunc: [1.298, 1] })).toBe(1.2);
    expect(ev({ $round: [1.298, 1] })).toBe(1.3);
    expect(ev({ $round: [23.298, -1] })).toBe(20);
    expect(ev({ $round: [1.298, 100] })).toBe(1.298);
    expect(ev({ $round: [0.9] })).toBe(1);
    expect(ev({ $trunc: [0.9] })).toBe(0);
    expect(ev({ $round: [2147483647, -1] })).toBe(2147483650n);
    expect(codeOf(() => ev({ $round: [{ $numberLong: '9223372036854775806' }, -1] }))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $round: [1, 101] }))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $trunc: [1, -21] }))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $trunc: [1, 10.5] }))).toMatch(/^400 /);
  });

  it('strings: code points, UTF-8 bytes, ASCII-only case mapping, null → ""', () => {
    expect(ev({ $strLenCP: '$s' })).toBe(5);
    expect(ev({ $strLenBytes: '$s' })).toBe(6);
    expect(ev({ $substrCP: ['$s', 1, 2] })).toBe('él');
    expect(ev({ $substrBytes: ['$s', 1, 2] })).toBe('é');
    expect(ev({ $toUpper: '$s' })).toBe('HéLLO');
    expect(ev({ $toLower: '$nope' })).toBe('');
    expect(ev({ $indexOfCP: ['$s', 'l'] })).toBe(2);
    expect(ev({ $split: ['a,b,,c', ','] })).toEqual(['a', 'b', '', 'c']);
    expect(ev({ $trim: { input: '\u2000 x\t\n' } })).toBe('x');
    expect(ev({ $replaceAll: { input: 'a.b.c', find: '.', replacement: '-' } })).toBe('a-b-c');
    expect(ev({ $regexMatch: { input: '$s', regex: '^H', options: 'i' } })).toBe(true);
    expect(ev({ $concat: ['a', '$nope'] })).toBeNull();
    expect(ev({ $replaceAll: { input: 'a\u{1f600}', find: '', replacement: '-' } })).toBe('-a-\u{1f600}-');
  });

  it("$indexOfCP and $trim as MongoDB's indexof_codepoints.js and trim.js pin them", () => {
    const cases: Array<[unknown[], number | null]> = [
      [['', '', 3], -1],
      [['', '', 3, 1], -1],
      [['∫aƒ', 'ƒ'], 2],
      [['∫b∫ba', 'b', 2], 3],
      [['ab∫de', 'd', 0, 3], -1],
      [['ab∫de', 'd', 0, 4], 3],
      [['øƒc', 'ƒ', 0, 10], 1],
      [['abcbabc', 'b', 2, 4], 3],
      [[null, '√'], null],
      [['abc', 'b', 3], -1],
      [['a√cb', 'b', 3, 1], -1],
      [[' ', ''], 0],
      [['', ''], 0],
      [['abc', '', 1], 1],
      [['∫aeøø', 'øøø'], -1],
    ];
    for (const [args, want] of cases) expect(ev({ $indexOfCP: args })).toBe(want);
    for (const args of [
      [3, 's'],
      ['s', 3],
      ['abc', 'b', 'bad'],
      ['abc', 'b', -1],
      ['abc', 'b', 1, -1],
    ]) {
      expect(codeOf(() => ev({ $indexOfCP: args }))).toMatch(/^400 QUERY_BAD_EXPRESSION Bad \$indexOfCP/);
    }
    expect(ev({ $ltrim: { input: '\u2001\u2002 Odd\u200A' } })).toBe('Odd\u200A');
    expect(ev({ $rtrim: { input: '∎∃ proof∎', chars: '∎' } })).toBe('∎∃ proof');
    expect(ev({ $trim: { input: 'xXx', chars: 'x' } })).toBe('X');
    expect(codeOf(() => ev({ $trim: ' x ' }))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $trim: { input: ' x ', chars: 5 } }))).toMatch(/^400 /);
  });

  it("$arrayToObject as MongoDB's arrayToObject.js pins it", () => {
    expect(
      ev({
        $arrayToObject: {
          $literal: [
            { k: 'price', v: 24 },
            { k: 'price', v: 100 },
          ],
        },
      }),
    ).toEqual({ price: 100 });
    expect(ev({ $arrayToObject: { $literal: [] } })).toEqual({});
    expect(ev({ $arrayToObject: '$nope' })).toBeNull();
    const bad = [
      [{ k: 'price', v: 24 }, ['item', 'apple']],
      [['item', 'apple'], { k: 'price', v: 24 }],
      [0],
      [['missing_value']],
      [[321, 12]],
      [['key', 'value', 'offset']],
      [{ y: 'x', x: 'y' }],
      [{ k: 'missing' }],
      [{ k: 24, v: 'string' }],
      [{ k: null, v: 'nullKey' }],
      [{ y: 'ignored', k: 'item', v: 'pear' }],
    ];
    for (const arg of bad) expect(codeOf(() => ev({ $arrayToObject: { $literal: arg } }))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $arrayToObject: 'string' }))).toMatch(/^400 /);
  });

  it('arrays and sets', () => {
    expect(ev({ $filter: { input: '$arr', cond: { $gte: ['$$this', 2] }, limit: 1 } })).toEqual([2]);
    expect(ev({ $map: { input: '$arr', as: 'x', in: { $multiply: ['$$x', 10] } } })).toEqual([10, 20, 30]);
    expect(ev({ $reduce: { input: '$arr', initialValue: 0, in: { $add: ['$$value', '$$this'] } } })).toBe(6);
    expect(ev({ $arrayElemAt: ['$arr', -1] })).toBe(3);
    expect(ev({ $arrayElemAt: ['$arr', 9] })).toBeUndefined();
    expect(ev({ $slice: ['$arr', -2, 1] })).toEqual([2]);
    expect(ev({ $range: [10, 0, -4] })).toEqual([10, 6, 2]);
    expect(ev({ $zip: { inputs: ['$arr', ['a']], useLongestLength: true, defaults: [0, 'z'] } })).toEqual([
      [1, 'a'],
      [2, 'z'],
      [3, 'z'],
    ]);
    expect(
      ev({
        $setIntersection: [
          [1, { $numberLong: '2' }, 3],
          [2.0, 3, 3],
        ],
      }),
    ).toEqual([2n, 3]);
    expect(ev({ $in: [{ $numberLong: '2' }, '$arr'] })).toBe(true);
  });

  it('types and conversions', () => {
    expect(ev({ $type: { $numberLong: '1' } })).toBe('long');
    expect(ev({ $type: '$nope' })).toBe('missing');
    expect(ev({ $toInt: '-12' })).toBe(-12);
    expect(ev({ $toLong: 2.9 })).toBe(2n);
    expect(ev({ $toBool: 'false' })).toBe(true);
    // MongoDB's jstests/aggregation/expressions/convert.js.
    expect(ev({ $toBool: [[1, 2]] })).toBe(true);
    expect(ev({ $toBool: { $literal: { foo: 1 } } })).toBe(true);
    expect(ev({ $toDate: 1.9 })).toEqual(new Date(1));
    expect(ev({ $toString: 1.9 })).toBe('1.9');
    expect(ev({ $toLong: '$d' })).toBe(BigInt(Date.UTC(2021, 0, 31, 12)));
    expect(ev({ $toDate: { $toObjectId: '0123456789abcdef01234567' } })).toEqual(
      new Date('1970-08-09T22:25:43Z'),
    );
    expect(ev({ $convert: { input: 1.9, to: 'object', onError: 'ERROR' } })).toBe('ERROR');
    expect(ev({ $convert: { input: '$nope', to: null, onNull: 'NULL' } })).toBe('NULL');
    expect(codeOf(() => ev({ $toInt: '$d' }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(codeOf(() => ev({ $convert: { input: false, to: 'date' } }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
    expect(ev({ $toString: '$d' })).toBe('2021-01-31T12:00:00.000Z');
    expect(ev({ $toObjectId: '65a000000000000000000002' })).toEqual(
      ObjectId.createFromHexString('65a000000000000000000002'),
    );
    expect(ev({ $convert: { input: 'x', to: 'int', onError: 'bad' } })).toBe('bad');
    expect(ev({ $convert: { input: '$nope', to: 'int', onNull: 'none' } })).toBe('none');
    expect(ev({ $toDate: '2020-01-02T03:04:05.678+01:00' })).toEqual(
      new Date(Date.UTC(2020, 0, 2, 2, 4, 5, 678)),
    );
  });

  it('objects', () => {
    expect(ev({ $mergeObjects: [{ a: 1, b: 1 }, null, { b: 2 }] })).toEqual({ a: 1, b: 2 });
    expect(
      ev({
        $arrayToObject: [
          [
            ['k', 1],
            ['k', 2],
            ['j', 3],
          ],
        ],
      }),
    ).toEqual({ k: 2, j: 3 });
    expect(ev({ $setField: { field: 'a', input: '$$ROOT', value: '$$REMOVE' } })).not.toHaveProperty('a');
    expect(ev({ $getField: { field: 'a.b', input: { $literal: { 'a.b': 7 } } } })).toBe(7);
  });

  it('dates: parts, weeks, formats, calendar arithmetic', () => {
    expect(ev({ $dayOfWeek: '$d' })).toBe(1);
    expect(ev({ $week: '$d' })).toBe(5);
    expect(ev({ $isoWeek: '$d' })).toBe(4);
    expect(ev({ $hour: { date: '$d', timezone: '+05:30' } })).toBe(17);
    expect(ev({ $dateToString: { date: '$d', format: '%Y/%m/%d %H:%M %j %z', timezone: '-02:00' } })).toBe(
      '2021/01/31 10:00 031 -0200',
    );
    expect(ev({ $dateAdd: { startDate: '$d', unit: 'month', amount: 1 } })).toEqual(
      new Date(Date.UTC(2021, 1, 28, 12)),
    );
    expect(
      ev({
        $dateDiff: {
          startDate: '$d',
          endDate: { $dateAdd: { startDate: '$d', unit: 'day', amount: 1 } },
          unit: 'month',
        },
      }),
    ).toBe(1n);
    expect(ev({ $dateTrunc: { date: '$d', unit: 'week', startOfWeek: 'monday' } })).toEqual(
      new Date(Date.UTC(2021, 0, 25)),
    );
    // MongoDB's jstests/aggregation/expressions/date_to_string.js.
    const fmt = (date: string, format?: string, timezone?: string) =>
      ev({
        $dateToString: {
          date: { $date: date },
          ...(format === undefined ? {} : { format }),
          ...(timezone ? { timezone } : {}),
        },
      });
    expect(fmt('2017-07-04T14:56:42.911Z', '%Y-%m-%d %H:%M:%S %z (%Z minutes)', '+08:45')).toBe(
      '2017-07-04 23:41:42 +0845 (525 minutes)',
    );
    expect(fmt('2017-07-04T14:56:42.911Z', '%Y-%m-%d %H:%M:%S %z (%Z minutes)', '-04:00')).toBe(
      '2017-07-04 10:56:42 -0400 (-240 minutes)',
    );
    expect(fmt('2017-01-01T15:08:51.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W1-01, ISO: 2016-W7-52',
    );
    expect(fmt('2017-07-04T15:09:12.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W3-27, ISO: 2017-W2-27',
    );
    expect(fmt('2017-12-04T15:09:14.911Z', 'Natural: %Y-W%w-%U, ISO: %G-W%u-%V')).toBe(
      'Natural: 2017-W2-49, ISO: 2017-W1-49',
    );
    expect(fmt('2017-07-04T15:09:12.911Z', '%b (%B) %d, %Y')).toBe('Jul (July) 04, 2017');
    expect(fmt('2017-01-04T15:08:51.911Z', undefined, '-05:00')).toBe('2017-01-04T10:08:51.911Z');
    expect(
      ev({ $dateToString: { date: { $date: '2017-01-04T15:08:51.911Z' }, format: '$nope' } }),
    ).toBeNull();
    for (const format of ['%', '%n', 5])
      expect(codeOf(() => fmt('2017-01-04T15:08:51.911Z', format as string))).toMatch(/^400 /);
    // MongoDB's jstests/aggregation/expressions/date_diff.js.
    const diff = (a: string, b: string, unit: string, more: Record<string, unknown> = {}) =>
      ev({ $dateDiff: { startDate: { $date: a }, endDate: { $date: b }, unit, ...more } });
    expect(diff('2020-11-01T18:23:36Z', '2020-11-02T00:00:00Z', 'hour')).toBe(6n);
    expect(diff('2021-01-24T18:23:36Z', '2021-01-25T02:23:36Z', 'week', { startOfWeek: 'MONDAY' })).toBe(1n);
    expect(diff('2021-01-24T18:23:36Z', '2021-01-25T02:23:36Z', 'week')).toBe(0n);
    expect(
      diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'week', {
        timezone: '-05:00',
        startOfWeek: 'sunday',
      }),
    ).toBe(-1n);
    expect(diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'hour', { startOfWeek: 1 })).toBe(-1n);
    expect(
      codeOf(() => diff('2021-01-17T05:00:00Z', '2021-01-17T04:59:00Z', 'week', { startOfWeek: 'FRIDIE' })),
    ).toMatch(/^400 /);
    expect(
      ev({ $dateDiff: { startDate: '$nope', endDate: 1, unit: 'century', timezone: 'INVALID' } }),
    ).toBeNull();
    // MongoDB's jstests/aggregation/expressions/date_trunc.js (New York is -05:00 in January).
    const trunc = {
      date: { $date: '2000-01-30T18:00:00Z' },
      unit: 'week',
      binSize: 2,
      timezone: '-05:00',
      startOfWeek: 'mon',
    };
    expect(ev({ $dateTrunc: trunc })).toEqual(new Date('2000-01-17T05:00:00Z'));
    expect(ev({ $dateTrunc: { date: { $date: '2020-11-01T18:23:36Z' }, unit: 'hour', binSize: 2 } })).toEqual(
      new Date('2020-11-01T18:00:00Z'),
    );
    expect(ev({ $dateTrunc: { date: '$nope', unit: 'H', binSize: 'x', timezone: 1 } })).toBeNull();
    expect(ev({ $dateFromParts: { year: 2020, month: 14, day: 1 } })).toEqual(new Date(Date.UTC(2021, 1, 1)));
    expect(ev({ $dateFromParts: { isoWeekYear: 2021, isoWeek: 1, isoDayOfWeek: 1 } })).toEqual(
      new Date(Date.UTC(2021, 0, 4)),
    );
    expect(ev({ $dateToParts: { date: '$d', iso8601: true } })).toEqual({
      isoWeekYear: 2021,
      isoWeek: 4,
      isoDayOfWeek: 7,
      hour: 12,
      minute: 0,
      second: 0,
      millisecond: 0,
    });
    expect(ev({ $dateFromString: { dateString: '05/06/2021', format: '%d/%m/%Y' } })).toEqual(
      new Date(Date.UTC(2021, 5, 5)),
    );
  });
});

describe('bad operands → 400 naming the operator, never a 500', () => {
  const cases: Array<[unknown, string]> = [
    [{ $add: ['$s', 1] }, '$add'],
    [{ $add: ['$d', '$d'] }, '$add'],
    [{ $subtract: [1] }, '$subtract'],
    [{ $divide: [1, 0] }, '$divide'],
    [{ $mod: [1, 0] }, '$mod'],
    [{ $sqrt: -1 }, '$sqrt'],
    [{ $ln: 0 }, '$ln'],
    [{ $log: [8, 1] }, '$log'],
    [{ $pow: [0, -1] }, '$pow'],
    [{ $round: [1.5, 200] }, '$round'],
    [{ $abs: { $numberLong: '-9223372036854775808' } }, '$abs'],
    [{ $cond: [true, 1] }, '$cond'],
    [{ $ifNull: 1 }, '$ifNull'],
    [
      {
        $switch: {
          branches: [
            Object.fromEntries([
              ['case', false],
              ['then', 1],
            ]),
          ],
        },
      },
      '$switch',
    ],
    [{ $let: { vars: { X: 1 }, in: 1 } }, '$let'],
    [{ $size: '$nope' }, '$size'],
    [{ $arrayElemAt: ['$arr', 1.5] }, '$arrayElemAt'],
    [{ $first: 'x' }, '$first'],
    [{ $filter: { input: '$arr' } }, '$filter'],
    [{ $map: { input: 5, in: 1 } }, '$map'],
    [{ $in: [1, 'x'] }, '$in'],
    [{ $slice: ['$arr', 0, 0] }, '$slice'],
    [{ $range: [0, 10, 0] }, '$range'],
    [{ $zip: { inputs: ['$arr'], defaults: [1] } }, '$zip'],
    [{ $allElementsTrue: '$nope' }, '$allElementsTrue'],
    [{ $setDifference: [[1]] }, '$setDifference'],
    [{ $concat: ['a', 1] }, '$concat'],
    [{ $strLenCP: null }, '$strLenCP'],
    [{ $substrBytes: ['$s', 2, 1] }, '$substrBytes'],
    [{ $split: ['a', ''] }, '$split'],
    [{ $trim: { input: 5 } }, '$trim'],
    [{ $regexMatch: { input: 'a', regex: '(?<=a)b' } }, '$regexMatch'],
    [{ $regexFind: { input: 'a', regex: 'a' } }, '$regexFind'],
    [{ $toInt: 'x' }, '$toInt'],
    [{ $toDate: true }, '$toDate'],
    [{ $toDecimal: 1 }, '$toDecimal'],
    [{ $convert: { input: 1, to: 'decimal' } }, '$convert'],
    [{ $convert: { input: 1, to: 'nope' } }, '$convert'],
    [{ $mergeObjects: [1] }, '$mergeObjects'],
    [{ $arrayToObject: [[['a']]] }, '$arrayToObject'],
    [{ $getField: { field: '$a' + 'x', input: 5 } }, '$getField'],
    [{ $setField: { field: { $concat: ['a'] }, input: {}, value: 1 } }, '$setField'],
    [{ $year: 'x' }, '$year'],
    [{ $hour: { date: '$d', timezone: 'Europe/Paris' } }, '$hour'],
    [{ $dateToString: { date: '$d', format: '%Q' } }, '$dateToString'],
    [{ $dateFromString: { dateString: 'nope' } }, '$dateFromString'],
    [{ $dateAdd: { startDate: '$d', unit: 'fortnight', amount: 1 } }, '$dateAdd'],
    [{ $dateFromParts: { year: 0 } }, '$dateFromParts'],
    [{ $dateTrunc: { date: '$d', unit: 'day', binSize: 0 } }, '$dateTrunc'],
  ];
  it.each(cases)('%j → 400 naming %s', (expr, op) => {
    const out = codeOf(() => ev(expr));
    expect(out).toMatch(/^400 /);
    expect(out).toContain(op);
  });

  it('an unknown operator or variable → 400 QUERY_UNKNOWN_EXPRESSION_OPERATOR naming it', () => {
    expect(codeOf(() => ev({ $sin: 1 }))).toContain(
      'QUERY_UNKNOWN_EXPRESSION_OPERATOR Unsupported expression operator $sin',
    );
    expect(codeOf(() => ev('$$x'))).toContain('$$x');
    expect(codeOf(() => ev({ $map: { input: [], as: 'x', in: '$$y' } }))).toContain('$$y');
  });
});

describe('hostile sizes stay bounded', () => {
  it('$range past 1,000,000 elements → 400', () => {
    expect(codeOf(() => ev({ $range: [0, 2_000_000_000] }))).toMatch(/^400 QUERY_BAD_EXPRESSION/);
  });
  it('a $reduce that doubles a string or an array → 400, quickly', () => {
    const t = Date.now();
    const strings = {
      $reduce: { input: { $range: [0, 64] }, initialValue: 'ab', in: { $concat: ['$$value', '$$value'] } },
    };
    expect(codeOf(() => ev(strings))).toMatch(/^400 /);
    const arrays = {
      $reduce: {
        input: { $range: [0, 64] },
        initialValue: [1],
        in: { $concatArrays: ['$$value', '$$value'] },
      },
    };
    expect(codeOf(() => ev(arrays))).toMatch(/^400 QUERY_TOO_LARGE/);
    expect(Date.now() - t).toBeLessThan(5000);
  });
  it('a quadratic $reduce over 100,000 elements → 400 QUERY_TOO_LARGE, not minutes', () => {
    const quadratic = {
      $reduce: {
        input: { $range: [0, 100_000] },
        initialValue: [],
        in: { $concatArrays: ['$$value', ['$$this']] },
      },
    };
    expect(codeOf(() => ev(quadratic))).toMatch(/^400 QUERY_TOO_LARGE/);
  });
  it('a $reduce that nests its value a million deep → 400, not a stack overflow', () => {
    const deep = { $reduce: { input: { $range: [0, 1_000_000] }, initialValue: [], in: ['$$value'] } };
    expect(codeOf(() => ev(deep))).toMatch(/^400 QUERY_TOO_LARGE/);
  });
  it('substring search is linear: 2,000,000 characters against a 10,001-character near-match, quickly', () => {
    const doc = { s: 'a'.repeat(2_000_000), p: `${'a'.repeat(5000)}b${'a'.repeat(5000)}` };
    const t = Date.now();
    expect(ev({ $indexOfCP: ['$s', '$p'] }, doc)).toBe(-1);
    expect(ev({ $size: { $split: ['$s', '$p'] } }, doc)).toBe(1);
    expect(ev({ $strLenCP: { $replaceAll: { input: '$s', find: '$p', replacement: 'x' } } }, doc)).toBe(
      2_000_000,
    );
    expect(Date.now() - t).toBeLessThan(3000);
  });

  it('expressions nested past 100 levels → 400 QUERY_TOO_LARGE', () => {
    let e: unknown = 1;
    for (let i = 0; i < 150; i++) e = { $abs: e };
    expect(codeOf(() => ev(e))).toMatch(/^400 QUERY_TOO_LARGE/);
  });
});

describe('wiring into the pipeline', () => {
  it('evaluateCondition, the $expr entry point: two fields of one document compared, MongoDB truthiness', () => {
    const cond = parseExpression(fromWire({ $gt: ['$a', '$b'] }, { allowDollarKeys: true }), '$match');
    expect(evaluateCondition(cond, { a: 2, b: 1 }, NOW)).toBe(true);
    expect(evaluateCondition(cond, { a: 1, b: 2 }, NOW)).toBe(false);
    expect(evaluateCondition(parseExpression('', '$match'), {}, NOW)).toBe(true);
    expect(evaluateCondition(parseExpression('$nope', '$match'), {}, NOW)).toBe(false);
  });

  it('$project computed fields and $group keys and accumulator arguments take any expression', () => {
    const docs = [
      { _id: 1, a: 2, b: 3 },
      { _id: 2, a: 5, b: 1 },
      { _id: 3, a: 4, b: 4 },
    ];
    const stages = parsePipeline([
      { $project: { sum: { $add: ['$a', '$b'] }, big: { $gt: ['$a', 3] } } },
      { $group: { _id: { $cond: ['$big', 'big', 'small'] }, total: { $sum: { $multiply: ['$sum', 10] } } } },
    ]);
    expect(runPipelineSync(stages, docs)).toEqual([
      { _id: 'small', total: 50 },
      { _id: 'big', total: 140 },
    ]);
  });
});
