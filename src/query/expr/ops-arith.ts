// Arithmetic: $add $subtract $multiply $divide $mod $abs $ceil $floor $pow $sqrt $exp $ln $log $log10, with
// MongoDB's type promotion (int → long on int32 overflow → double on int64 overflow; any double → double) and
// dates in $add/$subtract. $round and $trunc are in ops-round.ts.
import { fromExact, isNumber, LONG_MAX, LONG_MIN, positional, typeName, widthOf } from './args.js';
import { bad, type Ctx, type Expr, evalExpr, type OpParser, type Out, register } from './core.js';

type Num = number | bigint;

/**
 * Evaluates operands in order; null or missing makes the result null. $add and $multiply check each operand as
 * they meet it (a type error before a null fails); the fixed-arity operators return null if any operand is
 * null before checking types, as MongoDB's do.
 */
function numbersOrNull(op: string, exprs: Expr[], ctx: Ctx, allowDate: boolean): Array<Num | Date> | null {
  const out: Array<Num | Date> = [];
  const values = exprs.map((e) => evalExpr(e, ctx));
  if (op !== '$add' && op !== '$multiply' && values.some((v) => v === undefined || v === null)) return null;
  for (const v of values) {
    if (v === undefined || v === null) return null;
    if (isNumber(v) || (allowDate && v instanceof Date)) out.push(v);
    else throw bad(op, `only supports numeric${allowDate ? ' or date' : ''} types, not ${typeName(v)}`);
  }
  return out;
}

/** Sum or product of numbers in MongoDB's widening: exact while int/long, double once a double is seen. */
function fold(
  nums: Num[],
  exactOp: (a: bigint, b: bigint) => bigint,
  dblOp: (a: number, b: number) => number,
  unit: number,
): Num {
  let width: 'int' | 'long' | 'double' = 'int';
  let exact = BigInt(unit);
  let dbl = unit;
  for (const n of nums) {
    const w = widthOf(n);
    if (w === 'double' || width === 'double') {
      if (width !== 'double') dbl = Number(exact);
      width = 'double';
      dbl = dblOp(dbl, Number(n));
      continue;
    }
    if (w === 'long') width = 'long';
    exact = exactOp(exact, BigInt(n));
    if (exact < LONG_MIN || exact > LONG_MAX) {
      // A long overflow continues in doubles, as MongoDB does.
      width = 'double';
      dbl = Number(exact);
    }
  }
  return width === 'double' ? dbl : fromExact(exact, width);
}

const addNums = (nums: Num[]) =>
  fold(
    nums,
    (a, b) => a + b,
    (a, b) => a + b,
    0,
  );

/** A number added to a date in whole milliseconds: doubles rounded half away from zero (llround). */
function toMillis(op: string, n: Num): bigint {
  if (typeof n === 'bigint') return n;
  if (!Number.isFinite(n)) throw bad(op, 'date overflow: the addend is not a finite number');
  const r = n < 0 ? -Math.round(-n) : Math.round(n);
  if (Math.abs(r) >= 2 ** 63) throw bad(op, 'date overflow');
  return BigInt(r);
}

function dateResult(op: string, ms: number | bigint): Date {
  const n = typeof ms === 'bigint' ? (ms > 10n ** 16n || ms < -(10n ** 16n) ? Number.NaN : Number(ms)) : ms;
  const d = new Date(n);
  if (Number.isNaN(d.getTime())) throw bad(op, 'the resulting date is out of range');
  return d;
}

/** Unary numeric operators: null/missing → null, non-numbers refused. */
const unary =
  (fn: (n: Num, op: string) => Out): OpParser =>
  (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const nums = numbersOrNull(op, [a], ctx, false);
      return nums === null ? null : fn(nums[0] as Num, op);
    };
  };

const dbl = (fn: (x: number, op: string) => number) => unary((n, op) => fn(Number(n), op));

register({
  $add: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, true);
      if (vals === null) return null;
      const at = vals.findIndex((v) => v instanceof Date);
      if (at < 0) return addNums(vals as Num[]);
      if (vals.findIndex((v, i) => i > at && v instanceof Date) > 0) throw bad(op, 'only one date allowed');
      // MongoDB's order: the numbers before the date are summed as numbers, then rounded once; each number
      // after it is rounded on its own; the total is exact (long arithmetic) and must stay a date.
      let total = BigInt((vals[at] as Date).getTime());
      if (at > 0) total += toMillis(op, addNums(vals.slice(0, at) as Num[]));
      for (const v of vals.slice(at + 1)) total += toMillis(op, v as Num);
      return dateResult(op, total);
    };
  },
  $subtract: (arg, scope, op) => {
    const items = positional(arg, scope, op, 2, 2);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, true);
      if (vals === null) return null;
      const [a, b] = vals as [Num | Date, Num | Date];
      if (a instanceof Date) {
        if (b instanceof Date) return BigInt(a.getTime() - b.getTime());
        return dateResult(op, BigInt(a.getTime()) - toMillis(op, b));
      }
      if (b instanceof Date) throw bad(op, `cannot subtract a date from a ${typeName(a)}`);
      return subtract(a, b);
    };
  },
  $multiply: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, false);
      return vals === null
        ? null
        : fold(
            vals as Num[],
            (a, b) => a * b,
            (a, b) => a * b,
            1,
          );
    };
  },
  $divide: (arg, scope, op) => {
    const items = positional(arg, scope, op, 2, 2);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, false);
      if (vals === null) return null;
      const [a, b] = vals as [Num, Num];
      if (Number(b) === 0) throw bad(op, "can't $divide by zero");
      return Number(a) / Number(b);
    };
  },
  $mod: (arg, scope, op) => {
    const items = positional(arg, scope, op, 2, 2);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, false);
      if (vals === null) return null;
      const [a, b] = vals as [Num, Num];
      const wa = widthOf(a);
      const wb = widthOf(b);
      if (wa === 'double' || wb === 'double') {
        if (Number(b) === 0) throw bad(op, "can't $mod by zero");
        return Number(a) % Number(b);
      }
      if (BigInt(b) === 0n) throw bad(op, "can't $mod by zero");
      return fromExact(BigInt(a) % BigInt(b), wa === 'long' || wb === 'long' ? 'long' : 'int');
    };
  },
  $abs: unary((n, op) => {
    if (typeof n === 'bigint') {
      if (n === LONG_MIN) throw bad(op, "can't take $abs of the smallest long");
      return n < 0n ? -n : n;
    }
    return widthOf(n) === 'int' ? fromExact(BigInt(Math.abs(n)), 'int') : Math.abs(n);
  }),
  $ceil: unary((n) => (typeof n === 'bigint' ? n : Math.ceil(n) || 0)),
  $floor: unary((n) => (typeof n === 'bigint' ? n : Math.floor(n))),
  $sqrt: dbl((x, op) => {
    if (x < 0) throw bad(op, "$sqrt's argument must be greater than or equal to 0");
    return Math.sqrt(x);
  }),
  $exp: dbl((x) => Math.exp(x)),
  $ln: dbl((x, op) => {
    if (!(x > 0) && !Number.isNaN(x)) throw bad(op, "$ln's argument must be a positive number");
    return Math.log(x);
  }),
  $log10: dbl((x, op) => {
    if (!(x > 0) && !Number.isNaN(x)) throw bad(op, "$log10's argument must be a positive number");
    return Math.log10(x);
  }),
  $log: (arg, scope, op) => {
    const items = positional(arg, scope, op, 2, 2);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, false);
      if (vals === null) return null;
      const [x, b] = (vals as Num[]).map(Number) as [number, number];
      if (Number.isNaN(x) || Number.isNaN(b)) return Number.NaN;
      if (!(x > 0)) throw bad(op, "$log's argument must be a positive number");
      if (!(b > 0) || b === 1) throw bad(op, "$log's base must be a positive number not equal to 1");
      return Math.log(x) / Math.log(b);
    };
  },
  $pow: (arg, scope, op) => {
    const items = positional(arg, scope, op, 2, 2);
    return (ctx) => {
      const vals = numbersOrNull(op, items, ctx, false);
      return vals === null ? null : pow(op, vals[0] as Num, vals[1] as Num);
    };
  },
});

/** a - b with the same widening as $add. */
function subtract(a: Num, b: Num): Num {
  const wa = widthOf(a);
  const wb = widthOf(b);
  if (wa === 'double' || wb === 'double') return Number(a) - Number(b);
  const exact = BigInt(a) - BigInt(b);
  if (exact < LONG_MIN || exact > LONG_MAX) return Number(a) - Number(b);
  return fromExact(exact, wa === 'long' || wb === 'long' ? 'long' : 'int');
}

/** Integer powers exactly (int → long → double on overflow); anything with a double in doubles. */
export function pow(op: string, base: Num, exp: Num): Num {
  if (Number(base) === 0 && Number(exp) < 0)
    throw bad(op, '$pow cannot take a base of 0 and a negative exponent');
  const wb = widthOf(base);
  const we = widthOf(exp);
  if (wb === 'double' || we === 'double') return Number(base) ** Number(exp);
  const b = BigInt(base);
  const e = BigInt(exp);
  const width = wb === 'long' || we === 'long' ? 'long' : 'int';
  if (e < 0n) {
    if (b === 1n) return fromExact(1n, width);
    if (b === -1n) return fromExact(e % 2n === 0n ? 1n : -1n, width);
    return Number(base) ** Number(exp);
  }
  // |b| ≥ 2 overflows int64 by e = 64, so the exact power is computed only below that.
  if ((b > 1n || b < -1n) && e >= 64n) return Number(base) ** Number(exp);
  const exact = b ** e;
  if (exact < LONG_MIN || exact > LONG_MAX) return Number(base) ** Number(exp);
  return fromExact(exact, width);
}
