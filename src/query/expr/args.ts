// Operand helpers shared by the operator families: positional and named operands, numeric classification.

import { decimalIsZero, isDecimal } from '../decimal.js';
import type { Value } from '../values.js';
import { isDoc } from '../values.js';
import { bad, type Ctx, type Expr, evalExpr, type Out, parseExpr, type Scope } from './core.js';

/** Positional operands: an array, or one non-array operand as a one-element list; count-checked. */
export function positional(arg: Value, scope: Scope, op: string, min: number, max: number): Expr[] {
  const items = Array.isArray(arg) ? arg : [arg];
  if (items.length < min || items.length > max) {
    const want = min === max ? `exactly ${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw bad(op, `expected ${want} argument${max === 1 ? '' : 's'}, got ${items.length}`);
  }
  return items.map((item) => parseExpr(item, scope));
}

/** Named operands: a document whose keys are among `required` and `optional`, each required one present. */
export function named(
  arg: Value,
  op: string,
  required: string[],
  optional: string[],
): Record<string, Value | undefined> {
  if (!isDoc(arg)) throw bad(op, 'expected a document of named arguments');
  for (const key of Object.keys(arg)) {
    if (!required.includes(key) && !optional.includes(key)) throw bad(op, `unrecognized argument '${key}'`);
  }
  for (const key of required)
    if (!Object.hasOwn(arg, key)) throw bad(op, `missing required argument '${key}'`);
  const out: Record<string, Value | undefined> = {};
  for (const key of [...required, ...optional]) out[key] = Object.hasOwn(arg, key) ? arg[key] : undefined;
  return out;
}

/** Parses an optional named operand. */
export function optExpr(v: Value | undefined, scope: Scope): Expr | undefined {
  return v === undefined ? undefined : parseExpr(v, scope);
}

export function evalAll(exprs: Expr[], ctx: Ctx): Out[] {
  return exprs.map((e) => evalExpr(e, ctx));
}

export const isNullish = (v: Out): v is null | undefined => v === undefined || v === null;

export const isNumber = (v: Out): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';

export function isInt32(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 31) && n <= 2 ** 31 - 1 && !Object.is(n, -0);
}

export const LONG_MIN = -(2n ** 63n);
export const LONG_MAX = 2n ** 63n - 1n;

/** MongoDB's numeric width of a value (the value model tells int32 from double by value). */
export function widthOf(n: number | bigint): 'int' | 'long' | 'double' {
  return typeof n === 'bigint' ? 'long' : isInt32(n) ? 'int' : 'double';
}

/** An exact integer result in the narrowest type allowed by `width`: int, else long, else double. */
export function fromExact(total: bigint, width: 'int' | 'long'): number | bigint {
  if (width === 'int' && total >= -(2n ** 31n) && total < 2n ** 31n) return Number(total);
  if (total >= LONG_MIN && total <= LONG_MAX) return total;
  return Number(total);
}

/** A numeric operand that must be integral (int, long or an integral double); its value as a JS number. */
export function integral(op: string, v: Out, what: string): number {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw bad(op, `${what} must be an integral number`);
  return v;
}

/** MongoDB's type name of a value ($type, error messages). */
export function typeName(v: Out): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'long';
  if (typeof v === 'number') return isInt32(v) ? 'int' : 'double';
  if (v instanceof Date) return 'date';
  if (Array.isArray(v)) return 'array';
  if (isDoc(v)) return 'object';
  if (isDecimal(v)) return 'decimal';
  return 'objectId';
}

/** MongoDB's truthiness: false, null, missing and numeric zero are false; everything else is true. */
export function truthy(v: Out): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'bigint') return v !== 0n;
  if (isDecimal(v)) return !decimalIsZero(v);
  return true;
}
