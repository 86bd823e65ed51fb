// Types: $type $isNumber $convert $toString $toInt $toLong $toDouble $toBool $toDate $toObjectId $toDecimal,
// with MongoDB's conversion table. Decimals convert to and from every type MongoDB converts (decimal.ts); no
// other operator computes with them (docs/query-engine-js.md).
import { ObjectId } from 'bson';
import {
  Decimal128,
  decimalFromDouble,
  decimalFromString,
  decimalInRange,
  decimalIsZero,
  decimalTrunc,
  isDecimal,
} from '../decimal.js';
import type { Value } from '../values.js';
import { isInt32, isNullish, LONG_MAX, LONG_MIN, named, optExpr, positional, typeName } from './args.js';
import { bad, type Expr, evalExpr, type OpParser, type Out, parseExpr, register } from './core.js';
import { NOT_ISO, parseDateText } from './date-parse.js';
import { convertToString } from './to-string.js';

/** Type names and their BSON numbers, as $convert's `to` accepts them. */
const TARGETS: Record<string, string> = {
  double: 'double',
  '1': 'double',
  string: 'string',
  '2': 'string',
  objectId: 'objectId',
  '7': 'objectId',
  bool: 'bool',
  '8': 'bool',
  date: 'date',
  '9': 'date',
  int: 'int',
  '16': 'int',
  long: 'long',
  '18': 'long',
  decimal: 'decimal',
  '19': 'decimal',
};

class ConversionFailure extends Error {}

const fail = (v: Out, to: string): never => {
  throw new ConversionFailure(`Unsupported conversion from ${typeName(v)} to ${to}`);
};

const INTEGER_TEXT = /^[+-]?\d+$/;
const DOUBLE_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function truncated(v: number, to: 'int' | 'long'): number | bigint {
  if (!Number.isFinite(v)) throw new ConversionFailure(`Attempt to convert ${v} to ${to}`);
  const t = Math.trunc(v);
  if (to === 'int') {
    if (!isInt32(t) && t !== 0) throw new ConversionFailure(`Conversion would overflow target type int`);
    return t || 0;
  }
  const b = BigInt(t);
  if (b < LONG_MIN || b > LONG_MAX) throw new ConversionFailure('Conversion would overflow target type long');
  return b;
}

/** Converts a non-null value; ConversionFailure when MongoDB's table has no such conversion or it fails. */
function convert(op: string, v: Value, to: string): Value {
  switch (to) {
    case 'bool':
      if (typeof v === 'boolean') return v;
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'bigint') return v !== 0n;
      if (isDecimal(v)) return !decimalIsZero(v);
      // Every other type converts to true (strings, ObjectIds, dates, arrays and documents alike).
      return true;
    case 'int':
    case 'long':
      return toInteger(v, to);
    case 'double':
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'number' || typeof v === 'bigint') return Number(v);
      if (isDecimal(v)) return Number(v.toString());
      if (v instanceof Date) return v.getTime();
      if (typeof v === 'string') {
        if (DOUBLE_TEXT.test(v)) return Number(v) || 0;
        if (/^[+-]?(Infinity|inf)$/i.test(v)) return v.startsWith('-') ? -Infinity : Infinity;
        if (/^[+-]?nan$/i.test(v)) return Number.NaN;
        throw new ConversionFailure(`Failed to parse number '${v}' in $convert`);
      }
      return fail(v, to);
    case 'string': {
      const s = convertToString(op, v);
      return s === undefined ? fail(v, to) : s;
    }
    case 'date':
      if (v instanceof Date) return v;
      if (typeof v === 'bigint' || (typeof v === 'number' && !isInt32(v))) {
        const d = new Date(Number(truncated(Number(v), 'long')));
        if (Number.isNaN(d.getTime())) throw new ConversionFailure('date out of range');
        return d;
      }
      if (v instanceof ObjectId) return new Date(v.getTimestamp().getTime());
      if (isDecimal(v)) {
        const ms = decimalTrunc(v);
        const d = new Date(ms === undefined ? Number.NaN : Number(ms));
        if (Number.isNaN(d.getTime())) throw new ConversionFailure('date out of range');
        return d;
      }
      if (typeof v === 'string') {
        const d = parseDateText(v);
        // Not a ConversionFailure: MongoDB's parser may read what this one does not (date-parse.ts).
        if (d === undefined) throw bad(op, NOT_ISO);
        return d;
      }
      return fail(v, to);
    case 'objectId':
      if (v instanceof ObjectId) return v;
      if (typeof v === 'string' && /^[0-9a-fA-F]{24}$/.test(v))
        return ObjectId.createFromHexString(v.toLowerCase());
      if (typeof v === 'string') throw new ConversionFailure(`Failed to parse objectId '${v}' in $convert`);
      return fail(v, to);
    case 'decimal':
      return toDecimal(op, v);
    default:
      throw new ConversionFailure(`Unsupported conversion from ${typeName(v)}`);
  }
}

/**
 * To Decimal128 as MongoDB converts: ints, longs, booleans and dates (ms) exactly, a double to 15 significant
 * digits (2.5 → 2.50000000000000; an integral number in int32 range is an int here, value-model rule), a string
 * parsed as a decimal (rounded to 34 digits). A decimal beyond the doubles' range answers 400 (decimal.ts).
 */
function toDecimal(op: string, v: Value): Decimal128 {
  if (isDecimal(v)) return v;
  if (typeof v === 'boolean') return Decimal128.fromString(v ? '1' : '0');
  if (typeof v === 'bigint') return Decimal128.fromString(v.toString());
  if (typeof v === 'number') return isInt32(v) ? Decimal128.fromString(String(v)) : decimalFromDouble(v);
  if (v instanceof Date) return Decimal128.fromString(String(v.getTime()));
  if (typeof v === 'string') {
    const d = decimalFromString(v);
    if (d === undefined) throw new ConversionFailure(`Failed to parse number '${v}' in $convert`);
    if (!decimalInRange(d))
      throw bad(op, `the decimal ${d.toString()} is beyond the range of doubles (not supported)`);
    return d;
  }
  return fail(v, 'decimal');
}

function toInteger(v: Value, to: 'int' | 'long'): Value {
  if (typeof v === 'boolean') return to === 'int' ? (v ? 1 : 0) : v ? 1n : 0n;
  if (typeof v === 'number') return truncated(v, to);
  if (typeof v === 'bigint') {
    if (to === 'long') return v;
    if (v < -(2n ** 31n) || v >= 2n ** 31n)
      throw new ConversionFailure('Conversion would overflow target type int');
    return Number(v);
  }
  if (typeof v === 'string') {
    if (!INTEGER_TEXT.test(v)) throw new ConversionFailure(`Failed to parse number '${v}' in $convert`);
    const n = BigInt(v);
    const [min, max] = to === 'int' ? [-(2n ** 31n), 2n ** 31n - 1n] : [LONG_MIN, LONG_MAX];
    if (n < min || n > max) throw new ConversionFailure(`Overflow parsing '${v}' as ${to}`);
    return to === 'int' ? Number(n) : n;
  }
  if (v instanceof Date && to === 'long') return BigInt(v.getTime());
  if (isDecimal(v)) {
    const t = decimalTrunc(v);
    if (t === undefined) throw new ConversionFailure(`Attempt to convert ${v.toString()} to ${to}`);
    const [min, max] = to === 'int' ? [-(2n ** 31n), 2n ** 31n - 1n] : [LONG_MIN, LONG_MAX];
    if (t < min || t > max) throw new ConversionFailure(`Conversion would overflow target type ${to}`);
    return to === 'int' ? Number(t) : t;
  }
  return fail(v, to);
}

/** BSON types with no conversion to them: a conversion failure (onError applies), not a bad operand. */
const UNCONVERTIBLE = new Set(
  'minKey missing object array binData undefined null regex dbPointer javascript symbol javascriptWithScope timestamp maxKey -1 3 4 5 6 10 11 12 13 14 15 17 127'.split(
    ' ',
  ),
);

function target(op: string, v: Out): string {
  const key = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : '';
  if (UNCONVERTIBLE.has(key)) return 'none';
  const to = Object.hasOwn(TARGETS, key) ? TARGETS[key] : undefined;
  if (to === undefined) throw bad(op, `unknown target type ${typeof v === 'string' ? v : typeName(v)}`);
  return to;
}

/** $convert's core: onNull for null/missing, onError for a failed conversion (else 400 naming the operator). */
function runConvert(
  op: string,
  v: Out,
  to: string,
  onError: () => Out,
  onNull: () => Out,
  hasOnError: boolean,
): Out {
  if (isNullish(v)) return onNull();
  try {
    return convert(op, v, to);
  } catch (e) {
    if (!(e instanceof ConversionFailure)) throw e;
    if (hasOnError) return onError();
    throw bad(op, e.message);
  }
}

const shorthand =
  (to: string): OpParser =>
  (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) =>
      runConvert(
        op,
        evalExpr(a, ctx),
        to,
        () => null,
        () => null,
        false,
      );
  };

register({
  $type: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => typeName(evalExpr(a, ctx));
  },
  $isNumber: (arg, scope, op) => {
    const [a] = positional(arg, scope, op, 1, 1) as [Expr];
    return (ctx) => {
      const v = evalExpr(a, ctx);
      return typeof v === 'number' || typeof v === 'bigint' || isDecimal(v);
    };
  },
  $convert: (arg, scope, op) => {
    const spec = named(arg, op, ['input', 'to'], ['onError', 'onNull']);
    const input = parseExpr(spec.input!, scope);
    const fixed =
      typeof spec.to === 'string' || typeof spec.to === 'number' ? target(op, spec.to) : undefined;
    const to = parseExpr(spec.to!, scope);
    const onError = optExpr(spec.onError, scope);
    const onNull = optExpr(spec.onNull, scope);
    return (ctx) => {
      const v = evalExpr(input, ctx);
      const tv = fixed ?? evalExpr(to, ctx);
      // A null input gives onNull even when `to` is null too (MongoDB's convert.js).
      if (isNullish(v)) return onNull === undefined ? null : evalExpr(onNull, ctx);
      if (fixed === undefined && isNullish(tv)) return null;
      const t = fixed ?? target(op, tv);
      const lazy = (e: Expr | undefined) => () => (e === undefined ? null : evalExpr(e, ctx));
      return runConvert(op, v, t, lazy(onError), lazy(onNull), onError !== undefined);
    };
  },
  $toString: shorthand('string'),
  $toInt: shorthand('int'),
  $toLong: shorthand('long'),
  $toDouble: shorthand('double'),
  $toBool: shorthand('bool'),
  $toDate: shorthand('date'),
  $toObjectId: shorthand('objectId'),
  $toDecimal: shorthand('decimal'),
});
