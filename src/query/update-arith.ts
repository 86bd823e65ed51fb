// $inc and $mul arithmetic with MongoDB's type rules: int op int → int (long on overflow), long → long, double wins.
import type { Value } from './values.js';

export type Num = number | bigint;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;

export function isNum(v: Value | undefined): v is Num {
  return typeof v === 'number' || typeof v === 'bigint';
}

/**
 * In memory a number is an int32 when it is integral and in int32 range, otherwise a double; a double that
 * holds such a value cannot be told apart (the value model keeps no flag), so it is treated as an int32.
 */
function isInt32(n: Num): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX && !Object.is(n, -0);
}

function isDouble(n: Num): n is number {
  return typeof n === 'number' && !isInt32(n);
}

function fitLong(n: bigint): bigint | null {
  return n < LONG_MIN || n > LONG_MAX ? null : n;
}

/** An int32 result stays an int32; past int32 it becomes a long, as MongoDB promotes it. */
function fromIntOp(n: bigint): Num {
  return n >= BigInt(INT_MIN) && n <= BigInt(INT_MAX) ? Number(n) : n;
}

/** The sum, or null when a long result would overflow int64 (MongoDB fails the update then). */
export function addNums(a: Num, b: Num): Num | null {
  if (isDouble(a) || isDouble(b)) return Number(a) + Number(b);
  if (isInt32(a) && isInt32(b)) return fromIntOp(BigInt(a) + BigInt(b));
  return fitLong(BigInt(a) + BigInt(b));
}

/** The product, or null when a long result would overflow int64. */
export function mulNums(a: Num, b: Num): Num | null {
  if (isDouble(a) || isDouble(b)) return Number(a) * Number(b);
  if (isInt32(a) && isInt32(b)) return fromIntOp(BigInt(a) * BigInt(b));
  return fitLong(BigInt(a) * BigInt(b));
}

/** $mul on a missing field stores zero of the multiplier's type. */
export function zeroLike(n: Num): Num {
  return typeof n === 'bigint' ? 0n : 0;
}
