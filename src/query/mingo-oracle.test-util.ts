// Test support for the differential tests of updates, projections and pipelines against mingo 7: value
// mapping into mingo's world, a strict structural comparison, and generators of documents.
//
// Mapping: mingo has no long or ObjectId. A long becomes a number (generators keep longs within ±2^31, so
// this is exact, and MongoDB compares longs and numbers by value anyway); an ObjectId becomes a 12-byte
// Uint8Array, which mingo orders bytewise between arrays and booleans — where MongoDB puts ObjectIds.
// Our outputs are mapped the same way before comparing.
import { Decimal128, ObjectId } from 'bson';
import fc from 'fast-check';
import { compareStrings } from './compare-values.js';
import type { Doc, Value } from './values.js';

export function toMingo(v: Value | undefined): unknown {
  if (v === undefined || v === null || typeof v !== 'object') return typeof v === 'bigint' ? Number(v) : v;
  if (v instanceof Date) return new Date(v.getTime());
  if (v instanceof ObjectId) return new Uint8Array(v.id);
  // mingo has no decimals ($toDecimal is its $toDouble): compared as the nearest double (deviation D1).
  if (v instanceof Decimal128) return Number(v.toString());
  if (Array.isArray(v)) return v.map(toMingo);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) out[key] = toMingo(v[key]);
  return out;
}

export interface CompareOptions {
  /** Compare documents as sets of fields (used where MongoDB and mingo order new fields differently). */
  ignoreKeyOrder?: boolean;
}

/** Structural equality of mapped values: numbers exactly, dates by time, bytes, arrays (holes differ from null). */
export function sameMapped(a: unknown, b: unknown, opts: CompareOptions = {}): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (i in a !== i in b || !sameMapped(a[i], b[i], opts)) return false;
    }
    return true;
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const ka = Object.keys(ra);
  const kb = Object.keys(rb);
  if (ka.length !== kb.length) return false;
  if (!opts.ignoreKeyOrder && ka.some((k, i) => kb[i] !== k)) return false;
  return ka.every((k) => Object.hasOwn(rb, k) && sameMapped(ra[k], rb[k], opts));
}

/** Replaces array holes (mingo leaves them where MongoDB pads with null) by null. */
export function fillHoles(v: unknown): unknown {
  if (Array.isArray(v)) return Array.from({ length: v.length }, (_, i) => (i in v ? fillHoles(v[i]) : null));
  if (v === null || typeof v !== 'object' || v instanceof Date || v instanceof Uint8Array) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = fillHoles(x);
  return out;
}

export function show(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `oid:${Buffer.from(x).toString('hex')}` : x,
  );
}

const OIDS = ['000000000000000000000001', '65a000000000000000000002', 'ffffffffffffffffffffff03'].map((h) =>
  ObjectId.createFromHexString(h),
);
const DATES = [new Date(0), new Date(1_700_000_000_123), new Date(-86_400_000)];

/**
 * Scalars of every supported type. `exactSums` keeps doubles to multiples of 1/4 below 2^20, whose sums are
 * exact in any order (mingo sums naively, MongoDB with double-double compensation: deviation D1).
 */
export function scalarArb(exactSums: boolean): fc.Arbitrary<Value> {
  const quarter = fc.integer({ min: -4000, max: 4000 }).map((n) => n / 4);
  const doubles = exactSums
    ? quarter
    : fc.oneof(quarter, fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 }));
  return fc.oneof(
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom(2147483647, -2147483648, 2147483646),
    doubles.map((n) => (n === 0 ? 0 : n)),
    fc.bigInt({ min: -(2n ** 31n), max: 2n ** 31n }),
    fc.constantFrom('', 'x', 'y', 'xy', 'é'),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...DATES),
    fc.constantFrom(...OIDS),
  );
}

/** Values up to `depth` levels of arrays and sub-documents; sub-document keys come sorted (see deviation K). */
export function valueArb(depth: number, exactSums: boolean): fc.Arbitrary<Value> {
  const scalar = scalarArb(exactSums);
  if (depth === 0) return scalar;
  const inner = valueArb(depth - 1, exactSums);
  return fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }) },
    { weight: 1, arbitrary: subDocArb(inner) },
  );
}

function subDocArb(inner: fc.Arbitrary<Value>): fc.Arbitrary<Doc> {
  return fc.record({ a: inner, b: inner, c: inner }, { requiredKeys: [] }).map((r) => sortKeys(r as Doc));
}

function sortKeys(doc: Doc): Doc {
  const out: Doc = {};
  for (const key of Object.keys(doc).sort(compareStrings)) out[key] = doc[key]!;
  return out;
}

/** A stored document: an int _id first, then some of a, b, c (missing fields are common). */
export function docArb(exactSums: boolean, depth = 2): fc.Arbitrary<Doc> {
  const value = valueArb(depth, exactSums);
  return fc
    .record(
      { _id: fc.integer({ min: 0, max: 1000 }), a: value, b: value, c: value },
      { requiredKeys: ['_id'] },
    )
    .map((r) => r as Doc);
}
