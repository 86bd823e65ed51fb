// The bitwise query operators $bitsAllSet, $bitsAnySet, $bitsAllClear, $bitsAnyClear (MongoDB's
// BitTestMatchExpression): parsed to a 64-bit mask, tested in JavaScript (a residual filter after the SQL).
import { queryErrors } from './errors.js';
import type { Reached } from './path-walk.js';
import { fromWire } from './values.js';

export type BitsMode = 'allSet' | 'anySet' | 'allClear' | 'anyClear';

export const BITS_OPERATORS: Record<string, BitsMode> = {
  $bitsAllSet: 'allSet',
  $bitsAnySet: 'anySet',
  $bitsAllClear: 'allClear',
  $bitsAnyClear: 'anyClear',
};

export interface BitsPred {
  op: 'bits';
  mode: BitsMode;
  /** The positions as a 64-bit two's complement mask; positions past 63 test the sign bit (sign extension). */
  mask: bigint;
}

const U64 = (1n << 64n) - 1n;
/** Bit positions must fit a 32-bit signed integer (MongoDB's parser). */
const MAX_POSITION = 2 ** 31 - 1;

/**
 * A non-negative integral number (int, long or integral double below 2^63), an array of bit positions, or
 * BinData (extended JSON `{$binary: {base64, subType}}`; byte 0's lowest bit is position 0).
 */
export function parseBits(op: string, operand: unknown, path: string): BitsPred {
  const mode = BITS_OPERATORS[op]!;
  const bad = (why: string) => queryErrors.badOperand(op, path, why);
  if (Array.isArray(operand)) {
    let mask = 0n;
    for (const item of operand) mask |= bitOf(position(item, bad));
    return { op: 'bits', mode, mask };
  }
  if (isBinary(operand)) return { op: 'bits', mode, mask: binaryMask(operand, bad) };
  const value = typeof operand === 'object' && operand !== null ? safeWire(operand, path, bad) : operand;
  if (typeof value === 'bigint') {
    if (value < 0n) throw bad(`cannot take a negative number: ${value}`);
    return { op: 'bits', mode, mask: value };
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw bad(`expected an integer: ${value}`);
    if (value < 0) throw bad(`cannot take a negative number: ${value}`);
    if (value >= 2 ** 63) throw bad(`cannot represent ${value} as a 64-bit integer`);
    return { op: 'bits', mode, mask: BigInt(value) };
  }
  throw bad('takes an array of bit positions, a number or a BinData');
}

function safeWire(operand: object, path: string, bad: (why: string) => Error): unknown {
  try {
    return fromWire(operand, {}, path);
  } catch {
    throw bad('takes an array of bit positions, a number or a BinData');
  }
}

function position(item: unknown, bad: (why: string) => Error): number {
  const v = typeof item === 'object' && item !== null ? fromWire(item) : item;
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw bad('bit positions must be integers');
  if (n < 0) throw bad(`bit positions must be >= 0 but got ${n}`);
  if (n > MAX_POSITION) throw bad('bit positions must fit a 32-bit signed integer');
  return n;
}

/** A position's bit in the 64-bit mask: past 63 it is the sign bit, which numbers extend. */
function bitOf(pos: number): bigint {
  return 1n << BigInt(Math.min(pos, 63));
}

function isBinary(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.hasOwn(v, '$binary');
}

/** Canonical `{$binary: {base64, subType}}` or legacy `{$binary: "<base64>", $type: "<hex>"}`. */
function binaryMask(v: Record<string, unknown>, bad: (why: string) => Error): bigint {
  const inner = v.$binary;
  const b64 =
    typeof inner === 'string'
      ? inner
      : typeof inner === 'object' && inner !== null
        ? (inner as Record<string, unknown>).base64
        : undefined;
  if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64))
    throw bad('bad BinData: expected {$binary: {base64, subType}}');
  let mask = 0n;
  const bytes = Buffer.from(b64, 'base64');
  bytes.forEach((byte, i) => {
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) mask |= bitOf(i * 8 + bit);
  });
  return mask;
}

/** MongoDB matches numbers that are integral and fit a 64-bit integer (NaN, fractions, others never). */
export function matchesBits(pred: BitsPred, r: Reached): boolean {
  let v: bigint;
  if (typeof r === 'bigint') v = r;
  else if (typeof r === 'number') {
    if (!Number.isInteger(r) || r >= 2 ** 63 || r < -(2 ** 63)) return false;
    v = BigInt(r);
  } else return false;
  const bits = BigInt.asUintN(64, v);
  const m = pred.mask & U64;
  switch (pred.mode) {
    case 'allSet':
      return (bits & m) === m;
    case 'anySet':
      return (bits & m) !== 0n;
    case 'allClear':
      return (bits & m) === 0n;
    case 'anyClear':
      return (~bits & U64 & m) !== 0n;
  }
}
