// Order-preserving byte keys of values: the same encoding as pb_enc in migration 0003, for query operands.
//
// Bytewise order of keys is MongoDB's BSON comparison order, and equal keys mean equal values (5, 5.0 and
// long 5 share a key). One type-rank byte, then the value; objects and arrays end with 00 so a prefix sorts
// first. Numbers: the nearest double in 8 sortable bytes, then the exact remainder of a long beyond 2^53.
import { Decimal128, ObjectId } from 'bson';
import { decimalKeyParts } from './decimal.js';
import { isDoc, type Value } from './values.js';

export const KEY = {
  /** pb_pk's answer when the path meets an array: not a value key. */
  walk: Buffer.from([0x01]),
  missing: Buffer.from([0x05]),
  /** Sort keys only: an empty array sorts below null. */
  emptyArray: Buffer.from([0x08]),
  null: Buffer.from([0x10]),
} as const;

const RANK_BYTE = {
  null: 0x10,
  number: 0x20,
  string: 0x30,
  object: 0x40,
  array: 0x50,
  objectId: 0x70,
  boolean: 0x80,
  date: 0x90,
} as const;

const SIGN = 1n << 63n;

/** The key of a value; undefined (a missing field) gives the missing key. */
export function encodeKey(v: Value | undefined): Buffer {
  const parts: Buffer[] = [];
  pushKey(v, parts);
  return Buffer.concat(parts);
}

function pushKey(v: Value | undefined, out: Buffer[]): void {
  if (v === undefined) out.push(KEY.missing);
  else if (v === null) out.push(KEY.null);
  else if (typeof v === 'number') out.push(numberKey(v, 0));
  else if (typeof v === 'bigint') out.push(longKey(v));
  else if (v instanceof Decimal128) out.push(decimalKey(v));
  else if (typeof v === 'string')
    out.push(Buffer.from([RANK_BYTE.string]), Buffer.from(v, 'utf8'), Buffer.from([0]));
  else if (typeof v === 'boolean') out.push(Buffer.from([RANK_BYTE.boolean, v ? 1 : 0]));
  else if (v instanceof Date) out.push(Buffer.from([RANK_BYTE.date]), int64Sortable(BigInt(v.getTime())));
  else if (v instanceof ObjectId) out.push(Buffer.from([RANK_BYTE.objectId]), Buffer.from(v.id));
  else if (Array.isArray(v)) {
    out.push(Buffer.from([RANK_BYTE.array]));
    for (const item of v) pushKey(item, out);
    out.push(Buffer.from([0]));
  } else if (isDoc(v)) {
    out.push(Buffer.from([RANK_BYTE.object]));
    for (const name of Object.keys(v)) {
      const k = encodeKey(v[name]);
      out.push(k.subarray(0, 1), Buffer.from(name, 'utf8'), Buffer.from([0]), k.subarray(1));
    }
    out.push(Buffer.from([0]));
  }
}

function numberKey(f: number, remainder: number): Buffer {
  const out = Buffer.alloc(11);
  out[0] = RANK_BYTE.number;
  if (!Number.isNaN(f)) {
    out.writeDoubleBE(f === 0 ? 0 : f, 1);
    if ((out[1]! & 0x80) === 0) out[1]! ^= 0x80;
    else for (let i = 1; i <= 8; i++) out[i] = ~out[i]! & 0xff;
  }
  out.writeUInt16BE(remainder + 2048, 9);
  return out;
}

/**
 * A decimal's key (decimalKeyParts): the key of the nearest double and integer remainder, then, if the value
 * lies strictly inside the next unit, FF and the fraction's digits as A0-A9. FF is above every byte that can
 * follow a number key (a type rank or the 00 end), and A0-A9 above the bytes that follow the digits, so keys
 * order as the values do and equal values (with doubles and longs too) have equal keys. In memory only.
 */
function decimalKey(d: Decimal128): Buffer {
  const { f, r, digits } = decimalKeyParts(d);
  const head = numberKey(f, r);
  if (digits === '') return head;
  const tail = Buffer.alloc(1 + digits.length);
  tail[0] = 0xff;
  for (let i = 0; i < digits.length; i++) tail[i + 1] = 0xa0 + digits.charCodeAt(i) - 48;
  return Buffer.concat([head, tail]);
}

function longKey(l: bigint): Buffer {
  const f = Number(l);
  return numberKey(f, Math.abs(f) < 2 ** 53 ? 0 : Number(l - BigInt(f)));
}

function int64Sortable(n: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64BE(BigInt.asUintN(64, n) ^ SIGN);
  return out;
}

/** The smallest key above every key of the type rank that starts k. */
export function rankUpperBound(k: Buffer): Buffer {
  return Buffer.from([k[0]! + 1]);
}

/** The lowest number key (NaN); ranges other than on NaN itself exclude it, as MongoDB does. */
export const NAN_KEY = numberKey(Number.NaN, 0);
