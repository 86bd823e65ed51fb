// MongoDB's BSON comparison order over in-memory values: exact across int, long and double.
import { Decimal128, ObjectId } from 'bson';
import { compareWithDecimal } from './decimal.js';
import type { Doc, Value } from './values.js';

/** Canonical type ranks in MongoDB's order; missing compares as null. */
const RANK = {
  null: 1,
  number: 2,
  string: 3,
  object: 4,
  array: 5,
  objectId: 7,
  boolean: 8,
  date: 9,
} as const;

export function typeRank(v: Value | undefined): number {
  if (v === undefined || v === null) return RANK.null;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof Decimal128) return RANK.number;
  if (typeof v === 'string') return RANK.string;
  if (typeof v === 'boolean') return RANK.boolean;
  if (v instanceof Date) return RANK.date;
  if (v instanceof ObjectId) return RANK.objectId;
  if (Array.isArray(v)) return RANK.array;
  return RANK.object;
}

/** Negative, zero or positive as a sorts before, with or after b in MongoDB's order. */
export function compareValues(a: Value | undefined, b: Value | undefined): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case RANK.null:
      return 0;
    case RANK.number:
      if (a instanceof Decimal128 || b instanceof Decimal128)
        return compareWithDecimal(a as number | bigint | Decimal128, b as number | bigint | Decimal128);
      return compareNumbers(a as number | bigint, b as number | bigint);
    case RANK.string:
      return compareStrings(a as string, b as string);
    case RANK.boolean:
      return a === b ? 0 : a ? 1 : -1;
    case RANK.date:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    case RANK.objectId:
      return compareBytes((a as ObjectId).id, (b as ObjectId).id);
    case RANK.array:
      return compareArrays(a as Value[], b as Value[]);
    default:
      return compareDocs(a as Doc, b as Doc);
  }
}

export function valuesEqual(a: Value | undefined, b: Value | undefined): boolean {
  return compareValues(a, b) === 0;
}

/** Exact numeric order; NaN equals NaN and sorts below every other number, as in MongoDB. */
function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : 1;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  if (typeof a === 'bigint') return 0 - compareDoubleLong(b as number, a) || 0;
  return compareDoubleLong(a, b as bigint);
}

function compareDoubleLong(d: number, l: bigint): number {
  if (Number.isNaN(d) || d === Number.NEGATIVE_INFINITY) return -1;
  if (d === Number.POSITIVE_INFINITY) return 1;
  const floor = BigInt(Math.floor(d));
  if (floor !== l) return floor < l ? -1 : 1;
  return Number.isInteger(d) ? 0 : 1;
}

/** Unicode code point order (what UTF-8 byte order gives), not UTF-16 code unit order. */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/** Element by element: type rank, then value; a prefix sorts first (BSON array comparison). */
function compareArrays(a: Value[], b: Value[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Field by field in document order: type rank of the value, then the field name, then the value. */
function compareDocs(a: Doc, b: Doc): number {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) {
    const va = a[ka[i]!];
    const vb = b[kb[i]!];
    const ra = typeRank(va);
    const rb = typeRank(vb);
    if (ra !== rb) return ra < rb ? -1 : 1;
    const names = compareStrings(ka[i]!, kb[i]!);
    if (names !== 0) return names;
    const c = compareValues(va, vb);
    if (c !== 0) return c;
  }
  return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
}
