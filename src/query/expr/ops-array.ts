// Arrays: $size $arrayElemAt $first $last $filter $map $reduce $in $slice $concatArrays $reverseArray $range
// $indexOfArray $isArray $zip. Every result built spends work units (core.ts), so nesting cannot blow up.
import type { Value } from '../values.js';
import { integral, isNullish, named, optExpr, positional, truthy, typeName } from './args.js';
import {
  bad,
  bind,
  type Ctx,
  checkDepth,
  checkVarName,
  type Expr,
  evalExpr,
  type OpParser,
  type Out,
  parseExpr,
  register,
  spend,
  withVars,
} from './core.js';
import { compareOut } from './ops-logic.js';

/** Most elements $range may produce. */
export const MAX_RANGE = 1_000_000;

/** An array operand, null for null/missing when `nullOk`, else 400 naming the operator. */
export function arrayArg(op: string, v: Out, what = 'argument', nullOk = true): Value[] | null {
  if (Array.isArray(v)) return v;
  if (nullOk && isNullish(v)) return null;
  throw bad(op, `the ${what} must be an array, not ${typeName(v)}`);
}

const one =
  (fn: (v: Out, op: string, ctx: Ctx) => Out): OpParser =>
  (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => fn(evalExpr(a, ctx), op, ctx);
  };

/** $filter and $map: {input, as, ...} with `as` (default "this") bound while the body runs. */
function iterating(body: string, extra: string[]): OpParser {
  return (arg, scope, op) => {
    const spec = named(arg, op, ['input', body], ['as', ...extra]);
    const as = spec.as ?? 'this';
    if (typeof as !== 'string') throw bad(op, "'as' must be a string");
    checkVarName(op, as);
    const input = parseExpr(spec.input!, scope);
    const inner = parseExpr(spec[body]!, withVars(scope, [as]));
    const limit = optExpr(spec.limit, scope);
    return (ctx) => {
      const items = arrayArg(op, evalExpr(input, ctx), "'input'");
      if (items === null) return null;
      spend(ctx, items.length);
      if (op === '$map') return items.map((item) => bind(ctx, as, item, () => evalExpr(inner, ctx) ?? null));
      let max = Number.POSITIVE_INFINITY;
      if (limit !== undefined) {
        const lv = evalExpr(limit, ctx);
        if (!isNullish(lv)) {
          max = integral(op, lv, "'limit'");
          if (max < 1) throw bad(op, "'limit' must be greater than 0");
        }
      }
      const out: Value[] = [];
      for (const item of items) {
        if (out.length >= max) break;
        if (bind(ctx, as, item, () => truthy(evalExpr(inner, ctx)))) out.push(item);
      }
      return out;
    };
  };
}

register({
  $size: one((v, op) => {
    const items = arrayArg(op, v, 'argument', false)!;
    return items.length;
  }),
  $isArray: one((v) => Array.isArray(v)),
  $first: one((v, op) => {
    const items = arrayArg(op, v);
    return items === null ? null : items[0];
  }),
  $last: one((v, op) => {
    const items = arrayArg(op, v);
    return items === null ? null : items[items.length - 1];
  }),
  $reverseArray: one((v, op, ctx) => {
    const items = arrayArg(op, v);
    if (items !== null) spend(ctx, items.length);
    return items === null ? null : [...items].reverse();
  }),
  $arrayElemAt: (arg, scope, op) => {
    const [a, i] = positional(arg, scope, op, 2, 2) as [Expr, Expr];
    return (ctx) => {
      const items = arrayArg(op, evalExpr(a, ctx), 'first argument');
      const iv = evalExpr(i, ctx);
      if (items === null || isNullish(iv)) return null;
      const idx = integral(op, iv, 'the index');
      return idx < 0 ? items[items.length + idx] : items[idx];
    };
  },
  $filter: iterating('cond', ['limit']),
  $map: iterating('in', []),
  $reduce: (arg, scope, op) => {
    const spec = named(arg, op, ['input', 'initialValue', 'in'], []);
    const input = parseExpr(spec.input!, scope);
    const init = parseExpr(spec.initialValue!, scope);
    const body = parseExpr(spec.in!, withVars(scope, ['this', 'value']));
    return (ctx) => {
      const items = arrayArg(op, evalExpr(input, ctx), "'input'");
      if (items === null) return null;
      spend(ctx, items.length);
      let acc = evalExpr(init, ctx);
      for (const item of items) {
        acc = bind(ctx, 'this', item, () => bind(ctx, 'value', acc, () => evalExpr(body, ctx)));
        checkDepth(acc);
      }
      return acc;
    };
  },
  $in: (arg, scope, op) => {
    const [a, b] = positional(arg, scope, op, 2, 2) as [Expr, Expr];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      const items = arrayArg(op, evalExpr(b, ctx), 'second argument', false)!;
      spend(ctx, items.length);
      return items.some((item) => compareOut(v, item) === 0);
    };
  },
  $slice: (arg, scope, op) => {
    const args = positional(arg, scope, op, 2, 3);
    return (ctx) => {
      const vals = args.map((e) => evalExpr(e, ctx));
      if (vals.some(isNullish)) return null;
      const items = arrayArg(op, vals[0], 'first argument')!;
      const first = integral(op, vals[1], 'the second argument');
      const out =
        vals.length === 2 ? sliceN(items, first) : slicePos(op, items, first, integral(op, vals[2], 'n'));
      spend(ctx, out.length);
      return out;
    };
  },
  $concatArrays: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => {
      const out: Value[] = [];
      for (const e of items) {
        const arr = arrayArg(op, evalExpr(e, ctx));
        if (arr === null) return null;
        spend(ctx, arr.length);
        for (const x of arr) out.push(x);
      }
      return out;
    };
  },
  $range: (arg, scope, op) => {
    const args = positional(arg, scope, op, 2, 3);
    return (ctx) => {
      const [s, e, st] = args.map((x) => int32Arg(op, evalExpr(x, ctx))) as [
        number,
        number,
        number | undefined,
      ];
      if (s === undefined || e === undefined) throw bad(op, 'the start and end must be numbers');
      const step = st ?? 1;
      if (step === 0) throw bad(op, 'the step must not be 0');
      const n = Math.max(0, Math.ceil((e - s) / step));
      if (n > MAX_RANGE) throw bad(op, `it would produce more than ${MAX_RANGE} elements`);
      spend(ctx, n);
      return Array.from({ length: n }, (_, k) => s + k * step);
    };
  },
  $indexOfArray: (arg, scope, op) => {
    const args = positional(arg, scope, op, 2, 4);
    return (ctx) => {
      const vals = args.map((x) => evalExpr(x, ctx));
      if (isNullish(vals[0])) return null;
      const items = arrayArg(op, vals[0], 'first argument')!;
      const bound = (v: Out, dflt: number) => {
        if (v === undefined) return dflt;
        const n = integral(op, v, 'a starting or ending index');
        if (n < 0) throw bad(op, 'indexes must be non-negative');
        return n;
      };
      const start = bound(vals[2], 0);
      const end = Math.min(bound(vals[3], items.length), items.length);
      spend(ctx, Math.max(0, end - start));
      for (let i = start; i < end; i++) if (compareOut(items[i], vals[1]) === 0) return i;
      return -1;
    };
  },
  $zip: (arg, scope, op) => {
    const spec = named(arg, op, ['inputs'], ['useLongestLength', 'defaults']);
    if (!Array.isArray(spec.inputs)) throw bad(op, "'inputs' must be an array of expressions");
    const inputs = spec.inputs.map((v) => parseExpr(v, scope));
    const longest = spec.useLongestLength ?? false;
    if (typeof longest !== 'boolean') throw bad(op, "'useLongestLength' must be a boolean");
    if (spec.defaults !== undefined && !longest) throw bad(op, "'defaults' needs 'useLongestLength': true");
    const defaults = optExpr(spec.defaults, scope);
    return (ctx) => zip(op, ctx, inputs, longest, defaults);
  },
});

function zip(op: string, ctx: Ctx, inputs: Expr[], longest: boolean, defaults: Expr | undefined): Out {
  const arrays: Value[][] = [];
  for (const e of inputs) {
    const arr = arrayArg(op, evalExpr(e, ctx), 'each input');
    if (arr === null) return null;
    arrays.push(arr);
  }
  const dv = defaults === undefined ? undefined : arrayArg(op, evalExpr(defaults, ctx), "'defaults'", false);
  if (dv && dv.length !== arrays.length) throw bad(op, "'defaults' must have one value per input");
  const lengths = arrays.map((a) => a.length);
  const n = arrays.length === 0 ? 0 : longest ? Math.max(...lengths) : Math.min(...lengths);
  spend(ctx, n * arrays.length);
  return Array.from({ length: n }, (_, i) =>
    arrays.map((a, k) => (i < a.length ? a[i]! : (dv?.[k] ?? null))),
  );
}

function int32Arg(op: string, v: Out): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31)
    throw bad(op, `arguments must be numbers representable as 32-bit integers, not ${typeName(v)}`);
  return n;
}

/** [array, n]: the first n (n ≥ 0) or last -n elements. */
function sliceN(items: Value[], n: number): Value[] {
  return n >= 0 ? items.slice(0, n) : items.slice(Math.max(0, items.length + n));
}

/** [array, position, n]: n > 0 elements from position (negative counts from the end). */
function slicePos(op: string, items: Value[], pos: number, n: number): Value[] {
  if (n <= 0) throw bad(op, 'the third argument must be positive');
  const start = pos >= 0 ? Math.min(pos, items.length) : Math.max(0, items.length + pos);
  return items.slice(start, start + n);
}
