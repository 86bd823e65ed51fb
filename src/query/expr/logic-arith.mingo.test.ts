// Differential tests against mingo: comparison, boolean, conditional and arithmetic expressions over generated
// documents (arrays, nulls, missing fields, ints, longs, doubles). Deviations: docs/query-engine-js.md (E*).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { type Doc, isDoc, toWire, type Value } from '../values.js';
import { checkDifferential, type Outcome, operandArb, runOurs } from './expr-oracle.test-util.js';

const val = (e: Value, doc: Doc) => {
  const o = runOurs(e, doc);
  return o.ok ? o.value : undefined;
};
const composite = (v: unknown) =>
  Array.isArray(v) ||
  (typeof v === 'object' && v !== null && !(v instanceof Date) && !(v instanceof Uint8Array));
const args = (expr: Value): Value[] => {
  const a = Object.values(expr as Doc)[0]!;
  return Array.isArray(a) ? a : isDoc(a) ? Object.values(a) : [a];
};

/** BSON type rank of a mingo-mapped value. */
function rank(v: unknown): number {
  if (v === null || v === undefined) return 1;
  if (typeof v === 'number') return 2;
  if (typeof v === 'string') return 3;
  if (typeof v === 'boolean') return 8;
  if (v instanceof Date) return 9;
  if (v instanceof Uint8Array) return 7;
  return Array.isArray(v) ? 5 : 4;
}

/**
 * E1: missing is below null in MongoDB's expression order; mingo treats it as null. E2: arrays, documents and
 * values of different types compare in BSON order in MongoDB, not in mingo.
 */
function comparisonDeviation(expr: Value, doc: Doc): string | undefined {
  const vals = args(expr).map((e) => val(e, doc));
  if (vals.some((v) => v === undefined)) return 'E1';
  if (vals.some(composite) || rank(vals[0]) !== rank(vals[1])) return 'E2';
  return undefined;
}

/** E1/E2 inside a $let body's $eq (missing vs null, BSON type order). */
function comparisonDeviationIn(expr: Value, doc: Doc): string | undefined {
  const text = JSON.stringify(toWire(expr));
  if (!text.includes('$eq')) return undefined;
  const v = ((expr as Doc).$let as Doc).vars as Doc;
  return comparisonDeviation({ $eq: [v.v!, 5] }, doc);
}

/** E6: MongoDB's truthiness: "" and NaN are true (mingo uses JavaScript's). */
function truthDeviation(expr: Value, doc: Doc): string | undefined {
  const text = JSON.stringify(toWire(expr));
  const vals = args(expr).flatMap((e) => [val(e, doc), ...(isDoc(e) ? args(e).map((x) => val(x, doc)) : [])]);
  if (vals.some((v) => v === '' || Number.isNaN(v)) || text.includes('""')) return 'E6';
  return undefined;
}

const cmpOp = fc.constantFrom('$cmp', '$eq', '$ne', '$gt', '$gte', '$lt', '$lte');
const comparisonArb = fc
  .record({ op: cmpOp, a: operandArb, b: operandArb })
  .map(({ op, a, b }) => ({ [op]: [a, b] }) as Value);

const boolArb = fc.oneof(
  fc
    .record({ op: fc.constantFrom('$and', '$or'), xs: fc.array(operandArb, { maxLength: 3 }) })
    .map(({ op, xs }) => ({ [op]: xs }) as Value),
  operandArb.map((x) => ({ $not: [x] }) as Value),
);

/** A document from pairs (a key named `then` written literally trips the thenable lint). */
const doc = (...pairs: Array<[string, Value]>): Doc => Object.fromEntries(pairs) as Doc;

const condArb = fc.oneof(
  fc.tuple(operandArb, operandArb, operandArb).map(([c, t, e]) => ({ $cond: [c, t, e] }) as Value),
  fc
    .tuple(operandArb, operandArb, operandArb)
    .map(([c, t, e]) => ({ $cond: doc(['if', c], ['then', t], ['else', e]) }) as Value),
  fc.array(operandArb, { minLength: 2, maxLength: 3 }).map((xs) => ({ $ifNull: xs }) as Value),
  fc.tuple(operandArb, operandArb, operandArb, operandArb).map(
    ([c, t, c2, d]) =>
      ({
        $switch: {
          branches: [doc(['case', c], ['then', t]), doc(['case', { $gt: [c2, 0] }], ['then', c2])],
          default: d,
        },
      }) as Value,
  ),
);

const num = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.constantFrom(2147483647, -2147483648, 0.5, 2.5, -1.25, 3.75, 1e10),
);
const numOperand = fc.oneof(operandArb, num);
const arithArb = fc.oneof(
  fc
    .record({ op: fc.constantFrom('$add', '$multiply'), xs: fc.array(numOperand, { maxLength: 3 }) })
    .map(({ op, xs }) => ({ [op]: xs }) as Value),
  fc
    .record({
      op: fc.constantFrom('$subtract', '$divide', '$mod', '$pow', '$log'),
      a: numOperand,
      b: numOperand,
    })
    .map(({ op, a, b }) => ({ [op]: [a, b] }) as Value),
  fc
    .record({
      op: fc.constantFrom('$abs', '$ceil', '$floor', '$sqrt', '$exp', '$ln', '$log10'),
      a: numOperand,
    })
    .map(({ op, a }) => ({ [op]: a }) as Value),
  fc
    .record({ op: fc.constantFrom('$round', '$trunc'), a: numOperand, p: fc.integer({ min: -2, max: 2 }) })
    .map(({ op, a, p }) => ({ [op]: [a, p] }) as Value),
);

/** Arithmetic deviations: E3 mingo's type checks and error cases; E4 floating results computed differently. */
function arithDeviation(expr: Value, doc: Doc, ours: Outcome, theirs: Outcome): string | undefined {
  const op = Object.keys(expr as Doc)[0]!;
  const vals = args(expr).map((e) => val(e, doc));
  if (vals.some((v) => v !== undefined && v !== null && typeof v !== 'number')) return 'E3';
  if (!ours.ok && theirs.ok) return 'E3';
  if (ours.ok && !theirs.ok && vals.some((v) => v === undefined || v === null)) return 'E3';
  if (ours.ok && theirs.ok && typeof ours.value === 'number' && typeof theirs.value === 'number') {
    if (Math.abs(ours.value - theirs.value) <= 1e-12 * Math.abs(ours.value)) return 'E4';
    if (op === '$round' || op === '$trunc') return 'E5';
  }
  return undefined;
}

const letArb: fc.Arbitrary<Value> = fc.oneof(
  fc
    .tuple(operandArb, operandArb)
    .map(([x, y]) => ({ $let: { vars: { x, y }, in: ['$$x', '$$y', '$$ROOT.c'] } }) as Value),
  fc
    .tuple(operandArb, operandArb)
    .map(
      ([x, y]) =>
        ({ $let: { vars: { x }, in: { $let: { vars: { x: y, z: '$$x' }, in: ['$$x', '$$z'] } } } }) as Value,
    ),
  operandArb.map(
    (x) =>
      ({
        $let: { vars: { v: x }, in: { $cond: [{ $eq: ['$$v', 5] }, '$$REMOVE', '$$CURRENT.a'] } },
      }) as Value,
  ),
);

describe('expressions against mingo', () => {
  it('variables ($let, $$ROOT, $$CURRENT, $$REMOVE)', () => {
    checkDifferential(letArb, { runs: 500, deviation: (expr, doc) => comparisonDeviationIn(expr, doc) });
  });
  it('comparison ($cmp $eq $ne $gt $gte $lt $lte)', () => {
    checkDifferential(comparisonArb, { runs: 1500, deviation: comparisonDeviation });
  });
  it('boolean ($and $or $not)', () => {
    checkDifferential(boolArb, { runs: 800, deviation: truthDeviation });
  });
  it('conditional ($cond $ifNull $switch)', () => {
    checkDifferential(condArb, {
      runs: 1000,
      deviation: (expr, doc) => {
        const sw = (expr as Doc).$switch as Doc | undefined;
        const gt = sw ? ((sw.branches as Doc[])[1]!.case as Value) : undefined;
        return truthDeviation(expr, doc) ?? (gt ? comparisonDeviation(gt, doc) : undefined);
      },
    });
  });
  it('arithmetic', () => {
    checkDifferential(arithArb, { runs: 2000, deviation: arithDeviation });
  });
});
