// Type-exact identity, deep copies and hashable keys of values, for update no-op detection and grouping.
import { Decimal128, ObjectId } from 'bson';
import { decimalKeyParts } from './decimal.js';
import { type Doc, isDoc, setField, type Value } from './values.js';

/**
 * True when a and b are the same BSON value: same types (int/double vs long kept apart), same field order.
 * MongoDB counts a document as modified only when its bytes change, which this mirrors.
 */
export function identical(a: Value | undefined, b: Value | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (a === null || typeof a !== 'object') return a === b;
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof ObjectId) return b instanceof ObjectId && a.equals(b);
  if (a instanceof Decimal128) return b instanceof Decimal128 && a.toString() === b.toString();
  if (b instanceof Decimal128) return false;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => identical(x, b[i]));
  if (!isDoc(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && identical(a[k], b[k]));
}

/** A deep copy that shares nothing mutable with the original (ObjectIds are immutable and kept). */
export function cloneValue<T extends Value>(v: T): T {
  if (v === null || typeof v !== 'object' || v instanceof ObjectId || v instanceof Decimal128) return v;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (Array.isArray(v)) return v.map(cloneValue) as T;
  return cloneDoc(v as Doc) as T;
}

export function cloneDoc(doc: Doc): Doc {
  const out: Doc = {};
  for (const key of Object.keys(doc)) setField(out, key, cloneValue(doc[key]!));
  return out;
}

/**
 * A string that two values share exactly when MongoDB's comparison calls them equal: numbers by exact value
 * across int, long and double (NaN equals NaN, -0 equals 0), documents field by field in order.
 */
export function equalityKey(v: Value | undefined): string {
  if (v === undefined || v === null) return 'z';
  if (typeof v === 'number') return `n${numberKey(v)}`;
  if (typeof v === 'bigint') return `n${v.toString()}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return v ? 'T' : 'F';
  if (v instanceof Date) return `d${v.getTime()}`;
  if (v instanceof ObjectId) return `o${v.toHexString()}`;
  if (v instanceof Decimal128) return `n${decimalEqualityKey(v)}`;
  if (Array.isArray(v)) return `[${v.map(equalityKey).join(',')}]`;
  return `{${Object.keys(v)
    .map((k) => `${JSON.stringify(k)}:${equalityKey(v[k])}`)
    .join(',')}}`;
}

/** A decimal equal to a double or a long gets its key; any other value a key no double or long has. */
function decimalEqualityKey(d: Decimal128): string {
  const { f, r, digits } = decimalKeyParts(d);
  if (digits !== '') return `~${f}/${r}/${digits}`;
  if (r === 0) return numberKey(f);
  return (BigInt(f) + BigInt(r)).toString();
}

function numberKey(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Inf' : '-Inf';
  // An integral double equals the long of the same value, so both print as exact integer digits. String() prints
  // a safe integer's digits exactly (and -0 as 0) at a tenth of BigInt's cost; beyond 2^53 it would use exponents.
  if (Number.isSafeInteger(n)) return String(n);
  if (Number.isInteger(n)) return BigInt(n).toString();
  return String(n);
}
