// Unit tests of the expression language: bad operands → 400 naming the operator, hostile sizes bounded, and
// the wiring into the pipeline stages.
import { describe, expect, it } from 'vitest';
import { parsePipeline, runPipelineSync } from '../aggregate.js';
import { evaluateCondition, parseExpression } from '../aggregate-expr.js';
import { fromWire } from '../values.js';
import { codeOf, ev, NOW } from './expr.test-util.js';

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
    [{ $regexFind: { input: 5, regex: 'a' } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: 5 } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: 'a', options: 1 } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: null, options: 1 } }, '$regexFind'],
    [{ $regexFind: { input: 5, regex: null } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: '(?<n>a)' } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: 'a', options: 'g' } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: 'a', flags: 'i' } }, '$regexFind'],
    [{ $regexFind: { regex: 'a' } }, '$regexFind'],
    [{ $regexFind: { input: 'a', regex: '()'.repeat(101) } }, '$regexFind'],
    [{ $regexFindAll: { input: ['a'], regex: 'a' } }, '$regexFindAll'],
    [{ $regexFindAll: { input: 'a', regex: '[' } }, '$regexFindAll'],
    [{ $regexFindAll: 'a' }, '$regexFindAll'],
    [{ $toInt: 'x' }, '$toInt'],
    [{ $toDate: true }, '$toDate'],
    [{ $toDecimal: 'abc' }, '$toDecimal'],
    [{ $toDecimal: '1E+309' }, '$toDecimal'],
    [{ $add: [{ $toDecimal: 1 }, 1] }, '$add'],
    [{ $convert: { input: 'x1', to: 'decimal' } }, '$convert'],
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
