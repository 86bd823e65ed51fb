// Unit tests of the expression language: MongoDB's exact answers where mingo differs or cannot tell (longs,
// overflow, decimal rounding, missing vs null), many pinned by MongoDB's own jstests.
import { describe, expect, it } from 'vitest';
import { parsePipeline, runPipelineSync } from '../aggregate.js';
import { codeOf, DOC, ev, NOW } from './expr.test-util.js';

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

  it("$let as MongoDB's let.js pins it: CURRENT rebound, swaps, Unicode names, bad names refused", () => {
    const doc = { zero: 0, one: 1, two: 2, three: 3, nested: { four: 4 } };
    expect(
      ev({ $let: { vars: { CURRENT: '$$ROOT.nested' }, in: { $multiply: ['$four', '$$ROOT.two'] } } }, doc),
    ).toBe(8);
    expect(
      ev({ $let: { vars: { CURRENT: '$nested' }, in: { $multiply: ['$four', '$$ROOT.two'] } } }, doc),
    ).toBe(8);
    expect(
      ev(
        { $let: { vars: { CURRENT: { $literal: { ten: 10 } } }, in: { $multiply: ['$ten', '$$ROOT.two'] } } },
        doc,
      ),
    ).toBe(20);
    expect(
      ev({ $let: { vars: { CURRENT: '$three' }, in: { $multiply: ['$$CURRENT', '$$ROOT.two'] } } }, doc),
    ).toBe(6);
    const swap = {
      $let: {
        vars: { x: 6, y: 10 },
        in: { $let: { vars: { x: '$$y', y: '$$x' }, in: { $subtract: ['$$x', '$$y'] } } },
      },
    };
    expect(ev(swap, doc)).toBe(4);
    expect(ev({ $let: { vars: { 日本語: 10 }, in: '$$日本語' } }, doc)).toBe(10);
    for (const bad of [{ ROOT: 1 }, { FOO: 1 }, { _underbar: 1 }, { 'a.b': 1 }, { 'a b': 1 }]) {
      expect(codeOf(() => ev({ $let: { vars: bad, in: 1 } }, doc))).toMatch(/^400 /);
    }
    expect(codeOf(() => ev('$$_underbar', doc))).toMatch(/^400 /);
    expect(codeOf(() => ev({ $let: { vars: { var1: '$one', var2: '$$var1' }, in: '$$var1' } }, doc))).toMatch(
      /^400 /,
    );
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
});
