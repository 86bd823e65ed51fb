// Set operators over arrays (duplicates and order ignored; MongoDB equality through equalityKey hashes, so each
// is linear): $setUnion $setIntersection $setDifference $setEquals $setIsSubset $allElementsTrue $anyElementTrue.
// Results keep first-seen order (MongoDB leaves it unspecified).
import { equalityKey } from '../value-identity.js';
import type { Value } from '../values.js';
import { positional, truthy } from './args.js';
import { type Ctx, type Expr, evalExpr, type OpParser, type Out, register, spend } from './core.js';
import { arrayArg } from './ops-array.js';

function distinct(items: Value[], keep: (key: string) => boolean = () => true): Value[] {
  const seen = new Set<string>();
  const out: Value[] = [];
  for (const item of items) {
    const key = equalityKey(item);
    if (seen.has(key) || !keep(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/** Evaluates every operand as an array; null when any is null or missing (if `nullOk`). */
function arrays(op: string, exprs: Expr[], ctx: Ctx, nullOk: boolean): Value[][] | null {
  const out: Value[][] = [];
  let sawNull = false;
  for (const e of exprs) {
    const arr = arrayArg(op, evalExpr(e, ctx), 'argument', nullOk);
    if (arr === null) sawNull = true;
    else {
      spend(ctx, arr.length);
      out.push(arr);
    }
  }
  return sawNull ? null : out;
}

const keys = (items: Value[]) => new Set(items.map(equalityKey));

const setOp =
  (min: number, max: number, nullOk: boolean, fn: (lists: Value[][]) => Out): OpParser =>
  (arg, scope, op) => {
    const items = positional(arg, scope, op, min, max);
    return (ctx) => {
      const lists = arrays(op, items, ctx, nullOk);
      return lists === null ? null : fn(lists);
    };
  };

const allOrAny =
  (all: boolean): OpParser =>
  (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const items = arrayArg(op, evalExpr(a, ctx), 'argument', false)!;
      spend(ctx, items.length);
      return all ? items.every(truthy) : items.some(truthy);
    };
  };

register({
  $setUnion: setOp(0, Infinity, true, (lists) => distinct(lists.flat())),
  $setIntersection: setOp(0, Infinity, true, (lists) => {
    if (lists.length === 0) return [];
    const others = lists.slice(1).map(keys);
    return distinct(lists[0]!, (key) => others.every((s) => s.has(key)));
  }),
  $setDifference: setOp(2, 2, true, ([a, b]) => {
    const drop = keys(b!);
    return distinct(a!, (key) => !drop.has(key));
  }),
  $setEquals: setOp(2, Infinity, false, (lists) => {
    const first = keys(lists[0]!);
    return lists.slice(1).every((l) => {
      const s = keys(l);
      return s.size === first.size && [...s].every((k) => first.has(k));
    });
  }),
  $setIsSubset: setOp(2, 2, false, ([a, b]) => {
    const big = keys(b!);
    return a!.every((x) => big.has(equalityKey(x)));
  }),
  $allElementsTrue: allOrAny(true),
  $anyElementTrue: allOrAny(false),
});
