// $let, comparison ($cmp $eq $ne $gt $gte $lt $lte), boolean ($and $or $not), conditional ($cond $ifNull $switch).
import { compareValues } from '../compare-values.js';
import { isDoc } from '../values.js';
import { named, positional, truthy } from './args.js';
import {
  bad,
  bind,
  checkVarName,
  type Expr,
  evalExpr,
  type OpParser,
  type Out,
  parseExpr,
  register,
  withVars,
} from './core.js';

/** Aggregation order: missing sorts below null (Value::compare), then BSON order. */
export function compareOut(a: Out, b: Out): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareValues(a, b);
}

const comparison =
  (test: (c: number) => boolean): OpParser =>
  (arg, scope, op) => {
    const [a, b] = positional(arg, scope, op, 2, 2) as [Expr, Expr];
    return (ctx) => test(compareOut(evalExpr(a, ctx), evalExpr(b, ctx)));
  };

register({
  $let: (arg, scope, op) => {
    const { vars, in: body } = named(arg, op, ['vars', 'in'], []);
    if (!isDoc(vars!)) throw bad(op, "'vars' must be a document");
    const names = Object.keys(vars);
    // CURRENT is the one system variable a $let may rebind (field paths then read the new value).
    for (const name of names) if (name !== 'CURRENT') checkVarName(op, name);
    const values = names.map((name) => parseExpr(vars[name]!, scope));
    const inner = parseExpr(body!, withVars(scope, names));
    return (ctx) => {
      // All of vars are evaluated in the outer scope, then bound together.
      const bound = values.map((v) => evalExpr(v, ctx));
      const run = (i: number): Out =>
        i === names.length ? evalExpr(inner, ctx) : bind(ctx, names[i]!, bound[i], () => run(i + 1));
      return run(0);
    };
  },
  $cmp: (arg, scope, op) => {
    const [a, b] = positional(arg, scope, op, 2, 2) as [Expr, Expr];
    return (ctx) => Math.sign(compareOut(evalExpr(a, ctx), evalExpr(b, ctx))) || 0;
  },
  $eq: comparison((c) => c === 0),
  $ne: comparison((c) => c !== 0),
  $gt: comparison((c) => c > 0),
  $gte: comparison((c) => c >= 0),
  $lt: comparison((c) => c < 0),
  $lte: comparison((c) => c <= 0),
  $and: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => items.every((e) => truthy(evalExpr(e, ctx)));
  },
  $or: (arg, scope, op) => {
    const items = positional(arg, scope, op, 0, Infinity);
    return (ctx) => items.some((e) => truthy(evalExpr(e, ctx)));
  },
  $not: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => !truthy(evalExpr(a, ctx));
  },
  $cond: (arg, scope, op) => {
    const parts = isDoc(arg) ? named(arg, op, ['if', 'then', 'else'], []) : undefined;
    const [c, t, e] = parts
      ? [parts.if!, parts.then!, parts.else!].map((v) => parseExpr(v, scope))
      : positional(arg, scope, op, 3, 3);
    return (ctx) => (truthy(evalExpr(c!, ctx)) ? evalExpr(t!, ctx) : evalExpr(e!, ctx));
  },
  $ifNull: (arg, scope, op) => {
    if (!Array.isArray(arg)) throw bad(op, 'expected an array of at least 2 arguments');
    const items = positional(arg, scope, op, 2, Infinity);
    return (ctx) => {
      for (let i = 0; i < items.length - 1; i++) {
        const v = evalExpr(items[i]!, ctx);
        if (v !== undefined && v !== null) return v;
      }
      return evalExpr(items[items.length - 1]!, ctx);
    };
  },
  $switch: (arg, scope, op) => {
    const { branches, default: dflt } = named(arg, op, ['branches'], ['default']);
    if (!Array.isArray(branches) || branches.length === 0)
      throw bad(op, "'branches' must be an array of at least one {case, then}");
    const parsed = branches.map((b) => {
      const { case: c, then } = named(b, op, ['case', 'then'], []);
      return [parseExpr(c!, scope), parseExpr(then!, scope)] as const;
    });
    const fallback = dflt === undefined ? undefined : parseExpr(dflt, scope);
    return (ctx) => {
      for (const [c, then] of parsed) if (truthy(evalExpr(c, ctx))) return evalExpr(then, ctx);
      if (fallback === undefined)
        throw bad(op, 'could not find a matching branch for an input, and no default was specified');
      return evalExpr(fallback, ctx);
    };
  },
});
