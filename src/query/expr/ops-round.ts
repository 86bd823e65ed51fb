// $round (half to even) and $trunc (toward zero) to a number of decimal places in [-20, 100]. Doubles are
// rounded in decimal, as MongoDB does through Decimal128 (34 significant digits of the exact binary value),
// so $round: [1.005, 2] is 1 (the double is 1.00499999999999989...), not 1.01.
import { fromExact, integral, isNumber, LONG_MAX, LONG_MIN, positional, typeName, widthOf } from './args.js';
import { bad, type Expr, evalExpr, type OpParser, register } from './core.js';

type Mode = 'round' | 'trunc';

/** The exact decimal digits and exponent of a finite double: value = digits × 10^exp. */
function exactDecimal(x: number): { neg: boolean; digits: bigint; exp: number } {
  const neg = x < 0 || Object.is(x, -0);
  let m = Math.abs(x);
  let e2 = 0;
  while (!Number.isInteger(m)) {
    m *= 2;
    e2--;
  }
  let digits = BigInt(m);
  // m × 2^e2 with e2 ≤ 0 is m × 5^-e2 × 10^e2.
  if (e2 < 0) digits *= 5n ** BigInt(-e2);
  return { neg, digits, exp: e2 };
}

/** Divides by 10^k rounding as `mode` says (half to even for round). */
function shiftRight(digits: bigint, k: number, mode: Mode | 'even'): bigint {
  if (k <= 0) return digits * 10n ** BigInt(-k);
  const div = 10n ** BigInt(k);
  const q = digits / div;
  const r = digits % div;
  if (mode === 'trunc') return q;
  const twice = 2n * r;
  if (twice > div || (twice === div && q % 2n === 1n)) return q + 1n;
  return q;
}

function roundDouble(x: number, place: number, mode: Mode): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { neg, digits, exp } = exactDecimal(x);
  // First to 34 significant digits (Decimal128's precision), half to even.
  const len = digits.toString().length;
  let d = digits;
  let e = exp;
  if (len > 34) {
    d = shiftRight(digits, len - 34, 'even');
    e += len - 34;
  }
  // Then to `place` decimals: keep digits down to 10^-place.
  if (e < -place) {
    d = shiftRight(d, -place - e, mode);
    e = -place;
  }
  const text = `${neg ? '-' : ''}${d}e${e}`;
  return Number(text) || 0;
}

function roundInteger(n: bigint, place: number, mode: Mode): bigint {
  if (place >= 0) return n;
  const neg = n < 0n;
  const r = shiftRight(neg ? -n : n, -place, mode) * 10n ** BigInt(-place);
  return neg ? -r : r;
}

const roundOp =
  (mode: Mode): OpParser =>
  (arg, scope, op) => {
    const [a, p] = positional(arg, scope, op, 1, 2) as [Expr, Expr | undefined];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      const pv = p === undefined ? 0 : evalExpr(p, ctx);
      if (v === undefined || v === null || pv === undefined || pv === null) return null;
      if (!isNumber(v)) throw bad(op, `only supports numeric types, not ${typeName(v)}`);
      const place = integral(op, pv, 'the place');
      if (place < -20 || place > 100) throw bad(op, 'the place must be in [-20, 100]');
      const w = widthOf(v);
      if (w === 'double') return roundDouble(v as number, place, mode);
      const r = roundInteger(BigInt(v), place, mode);
      if (r < LONG_MIN || r > LONG_MAX) throw bad(op, 'the rounded value overflows a long');
      // Rounding an int to tens may leave int32; MongoDB then answers a long.
      return w === 'long' ? r : fromExact(r, 'int');
    };
  };

register({ $round: roundOp('round'), $trunc: roundOp('trunc') });
