// $toDecimal and $convert to decimal against mingo over generated operands (fields of generated documents and
// constants). mingo's $toDecimal is its $toDouble, so results are compared as numbers (toMingo gives a decimal's
// nearest double); deviations (docs/query-engine-js.md): D1 (a double becomes a decimal of 15 significant
// digits in MongoDB, so 1/3 compares as 0.333333333333333), E3 and E9 as for the other conversions.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { Doc, Value } from '../values.js';
import { checkDifferential, type Outcome, operandArb } from './expr-oracle.test-util.js';

const input = fc.oneof(
  operandArb,
  fc.constantFrom<Value>('2.5', '-1e3', '0.1', 'x', '', true, false, 7, 2.25, 1 / 3),
);
const decimalArb: fc.Arbitrary<Value> = fc.oneof(
  input.map((x) => ({ $toDecimal: x }) as Value),
  input.map((x) => ({ $convert: { input: x, to: 'decimal', onError: 'err', onNull: 'null' } }) as Value),
  input.map((x) => ({ $toDouble: { $toDecimal: x } }) as Value),
);

function deviation(expr: Value, _doc: Doc, ours: Outcome, theirs: Outcome): string | undefined {
  if (ours.ok !== theirs.ok) return 'E3';
  if (!ours.ok || !theirs.ok) return undefined;
  const a = ours.value;
  const b = theirs.value;
  if (typeof a === 'number' && typeof b === 'number' && Number(b.toPrecision(15)) === a) return 'D1';
  // E9: mingo converts strings, booleans, dates and other types by its own rules ("" is 0, a date is invalid).
  if (typeof b !== 'number' || typeof a !== 'number') return 'E9';
  void expr;
  return undefined;
}

describe('$toDecimal against mingo', () => {
  it('conversions to decimal', () => {
    checkDifferential(decimalArb, { runs: 1500, deviation, minAgree: 0.5 });
  });
});
