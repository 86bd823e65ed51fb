// Differential tests against mingo: array, set and string expressions over generated documents (arrays, nulls,
// missing fields, mixed numbers). Deviations: docs/query-engine-js.md (E*).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { Doc, Value } from '../values.js';
import { checkDifferential, type Outcome, operandArb, runOurs, touches } from './expr-oracle.test-util.js';

const val = (e: Value, doc: Doc) => {
  const o = runOurs(e, doc);
  return o.ok ? o.value : undefined;
};

const arr = fc.oneof(
  { weight: 2, arbitrary: operandArb },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constantFrom<Value>('x', null, true, 0.5)), {
        maxLength: 4,
      })
      .map((a) => ({ $literal: a }) as Value),
  },
);
const idx = fc.oneof(fc.integer({ min: -3, max: 3 }), operandArb);

const arrayArb: fc.Arbitrary<Value> = fc.oneof(
  fc
    .record({ op: fc.constantFrom('$size', '$first', '$last', '$reverseArray', '$isArray'), a: arr })
    .map(({ op, a }) => ({ [op]: a }) as Value),
  fc.tuple(arr, idx).map(([a, i]) => ({ $arrayElemAt: [a, i] }) as Value),
  fc.tuple(operandArb, arr).map(([x, a]) => ({ $in: [x, a] }) as Value),
  fc.tuple(arr, idx).map(([a, n]) => ({ $slice: [a, n] }) as Value),
  fc
    .tuple(arr, fc.integer({ min: -3, max: 3 }), fc.integer({ min: 1, max: 3 }))
    .map(([a, p, n]) => ({ $slice: [a, p, n] }) as Value),
  fc.array(arr, { maxLength: 3 }).map((xs) => ({ $concatArrays: xs }) as Value),
  fc
    .tuple(fc.integer({ min: -5, max: 5 }), fc.integer({ min: -5, max: 5 }), fc.constantFrom(1, 2, -1, -2))
    .map(([s, e, st]) => ({ $range: [s, e, st] }) as Value),
  fc.tuple(arr, operandArb).map(([a, x]) => ({ $indexOfArray: [a, x] }) as Value),
  fc.tuple(arr, arr).map(([a, b]) => ({ $zip: { inputs: [a, b] } }) as Value),
  fc
    .tuple(arr, arr)
    .map(([a, b]) => ({ $zip: { inputs: [a, b], useLongestLength: true, defaults: [0, 'd'] } }) as Value),
  arr.map((a) => ({ $filter: { input: a, as: 'x', cond: { $gt: ['$$x', 0] } } }) as Value),
  arr.map((a) => ({ $map: { input: a, in: { $ifNull: ['$$this', 'n'] } } }) as Value),
  arr.map(
    (a) =>
      ({ $reduce: { input: a, initialValue: [], in: { $concatArrays: ['$$value', ['$$this']] } } }) as Value,
  ),
);

const setArb: fc.Arbitrary<Value> = fc.oneof(
  fc
    .record({ op: fc.constantFrom('$setUnion', '$setIntersection', '$setDifference'), a: arr, b: arr })
    .map(({ op, a, b }) => ({ [op]: [a, b] }) as Value),
  fc
    .record({ op: fc.constantFrom('$allElementsTrue', '$anyElementTrue'), a: arr })
    .map(({ op, a }) => ({ [op]: [a] }) as Value),
);

const str = fc.oneof(operandArb, fc.constantFrom<Value>('abc', 'a,b,,c', '  pad  ', 'héllo', 'AbC', 'b'));
const stringArb: fc.Arbitrary<Value> = fc.oneof(
  fc.array(str, { maxLength: 3 }).map((xs) => ({ $concat: xs }) as Value),
  fc
    .record({ op: fc.constantFrom('$toLower', '$toUpper', '$strLenCP'), a: str })
    .map(({ op, a }) => ({ [op]: a }) as Value),
  fc
    .tuple(str, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }))
    .map(([s, a, b]) => ({ $substrCP: [s, a, b] }) as Value),
  fc
    .record({ op: fc.constantFrom('$trim', '$ltrim', '$rtrim'), a: str })
    .map(({ op, a }) => ({ [op]: { input: a } }) as Value),
  fc
    .record({ op: fc.constantFrom('$trim', '$ltrim', '$rtrim'), a: str })
    .map(({ op, a }) => ({ [op]: { input: a, chars: 'ac ' } }) as Value),
  fc.tuple(str, fc.constantFrom(',', 'b', 'l')).map(([s, d]) => ({ $split: [s, d] }) as Value),
  fc.tuple(str, fc.constantFrom('b', 'c', 'l', 'z')).map(([s, d]) => ({ $indexOfCP: [s, d] }) as Value),
  fc
    .record({
      op: fc.constantFrom('$replaceOne', '$replaceAll'),
      s: str,
      f: fc.constantFrom('b', 'l', ','),
      r: fc.constantFrom('', 'XY'),
    })
    .map(({ op, s, f, r }) => ({ [op]: { input: s, find: f, replacement: r } }) as Value),
  fc
    .tuple(str, fc.constantFrom('^a', 'b.', 'L+', 'c$'), fc.constantFrom('', 'i'))
    .map(([s, r, o]) => ({ $regexMatch: { input: s, regex: r, options: o } }) as Value),
);

/** E3: mingo answers null or a value where MongoDB refuses the operand's type, or refuses where MongoDB answers. */
function typeDeviation(expr: Value, doc: Doc, ours: Outcome, theirs: Outcome): string | undefined {
  if (ours.ok !== theirs.ok) return 'E3';
  const text = JSON.stringify(expr);
  // E15: $first/$last of an array holding arrays (mingo flattens them).
  if (/\$first|\$last/.test(text) && touches(doc, (v) => Array.isArray(v) && v.some(Array.isArray)))
    return 'E15';
  // E7: $toUpper/$toLower map ASCII only in MongoDB; E8: $in/$indexOfArray/sets compare in BSON order (E1, E2).
  if (/toUpper|toLower/.test(text)) return 'E7';
  if (/\$in"|indexOfArray|\$set|\$filter|\$zip/.test(text)) return 'E8';
  void doc;
  void val;
  return undefined;
}

describe('expressions against mingo', () => {
  it('arrays', () => {
    checkDifferential(arrayArb, { runs: 2000, deviation: typeDeviation });
  });
  it('sets (compared as sets: MongoDB leaves their order unspecified)', () => {
    checkDifferential(setArb, { runs: 800, unordered: true, deviation: typeDeviation });
  });
  it('strings', () => {
    checkDifferential(stringArb, { runs: 2000, deviation: typeDeviation });
  });
});
