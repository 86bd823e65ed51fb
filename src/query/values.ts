// The in-memory value model of documents, and its conversion from and to extended JSON on the wire.
import { Decimal128, EJSON, ObjectId } from 'bson';
import { queryErrors } from './errors.js';

/**
 * number is an int32 or a double (not told apart in memory); bigint is a MongoDB long (int64); Decimal128 only
 * arises inside an aggregation or projection ($toDecimal, $convert): never parsed from the wire or stored.
 */
export type Value = null | boolean | number | string | bigint | Date | ObjectId | Decimal128 | Value[] | Doc;
export interface Doc {
  [key: string]: Value;
}

export { compareValues, typeRank, valuesEqual } from './compare-values.js';
export { fromStored, storedText, toStored } from './stored-form.js';
export { Decimal128, ObjectId };

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const INT_DIGITS = /^-?\d+$/;
/** Keys of the extended-JSON type wrappers ({"$oid": ...}, {"$date": ...}, ...). */
export const EJSON_TYPES = new Set([
  '$oid',
  '$numberLong',
  '$numberInt',
  '$numberDouble',
  '$date',
  '$numberDecimal',
  '$binary',
  '$uuid',
  '$regularExpression',
  '$timestamp',
  '$minKey',
  '$maxKey',
  '$symbol',
  '$code',
  '$dbPointer',
  '$undefined',
]);

export interface WireOptions {
  /** Keep keys that start with $ (query operators) as plain keys instead of rejecting them. */
  allowDollarKeys?: boolean;
}

export function isDoc(v: Value | undefined): v is Doc {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    !(v instanceof Date) &&
    !(v instanceof ObjectId) &&
    !(v instanceof Decimal128)
  );
}

/** Sets a field without ever touching the prototype (a key may be "__proto__"). */
export function setField(doc: Doc, key: string, value: Value): void {
  if (key === '__proto__')
    Object.defineProperty(doc, key, { value, enumerable: true, writable: true, configurable: true });
  else doc[key] = value;
}

/** Parses extended JSON text (relaxed or canonical) into a Value. */
export function parseWire(text: string, options: WireOptions = {}): Value {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw queryErrors.badValue('', `not JSON (${(e as Error).message})`);
  }
  return fromWire(json, options);
}

/** Converts parsed extended JSON into a Value; throws QUERY_BAD_VALUE naming the path of anything unsupported. */
export function fromWire(json: unknown, options: WireOptions = {}, path = ''): Value {
  if (json === null || typeof json === 'boolean') return json;
  if (typeof json === 'number') {
    if (!Number.isFinite(json)) throw queryErrors.badValue(path, 'numbers must be finite in plain JSON');
    return json === 0 ? 0 : json;
  }
  if (typeof json === 'string') return checkString(json, path);
  if (Array.isArray(json)) return json.map((item, i) => fromWire(item, options, joinPath(path, String(i))));
  if (typeof json !== 'object')
    throw queryErrors.badValue(path, `unsupported JavaScript type ${typeof json}`);
  const obj = json as Record<string, unknown>;
  const keys = Object.keys(obj);
  const first = keys[0];
  if (first !== undefined && EJSON_TYPES.has(first)) return fromEjsonType(obj, keys, path);
  const out: Doc = {};
  for (const key of keys) {
    const sub = joinPath(path, key);
    checkKey(key, sub, options);
    setField(out, key, fromWire(obj[key], options, sub));
  }
  return out;
}

function joinPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function checkKey(key: string, path: string, options: WireOptions): void {
  if (key.startsWith('$') && !options.allowDollarKeys)
    throw queryErrors.badValue(path, 'field names may not start with $');
  if (key.includes('\u0000')) throw queryErrors.badValue(path, 'field names may not contain NUL');
  if (hasLoneSurrogate(key)) throw queryErrors.badValue(path, 'field name is not valid Unicode');
}

/** PostgreSQL JSONB refuses NUL and unpaired surrogates, so they are refused here with a clear 400. */
function checkString(s: string, path: string): string {
  if (s.includes('\u0000')) throw queryErrors.badValue(path, 'strings may not contain NUL');
  if (hasLoneSurrogate(s))
    throw queryErrors.badValue(path, 'string is not valid Unicode (unpaired surrogate)');
  return s;
}

function hasLoneSurrogate(s: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?:[^\ud800-\udbff]|^)[\udc00-\udfff]/.test(s);
}

function fromEjsonType(obj: Record<string, unknown>, keys: string[], path: string): Value {
  const type = keys[0]!;
  const arg = obj[type];
  const single = keys.length === 1;
  const bad = (why: string) => queryErrors.badValue(path, `${type}: ${why}`);
  if (type === '$oid' && single) {
    if (typeof arg !== 'string' || !/^[0-9a-fA-F]{24}$/.test(arg)) throw bad('expected 24 hex digits');
    return ObjectId.createFromHexString(arg.toLowerCase());
  }
  if (type === '$numberLong' && single) return parseLong(arg, bad);
  if (type === '$numberInt' && single) {
    if (typeof arg !== 'string' || !INT_DIGITS.test(arg)) throw bad('expected a string of digits');
    const n = Number(arg);
    if (n < -(2 ** 31) || n >= 2 ** 31) throw bad('out of int32 range');
    return n === 0 ? 0 : n;
  }
  if (type === '$numberDouble' && single) return parseDouble(arg, bad);
  if (type === '$date' && single) return parseDate(arg, bad);
  if (!single && !EJSON_TYPES.has(type)) throw bad('unexpected keys');
  if (!single && ['$oid', '$numberLong', '$numberInt', '$numberDouble', '$date'].includes(type)) {
    throw bad('an extended JSON type object must have exactly one key');
  }
  throw queryErrors.badValue(path, `extended JSON type ${type} is not supported`);
}

type BadFn = (why: string) => Error;

function parseLong(arg: unknown, bad: BadFn): bigint {
  if (typeof arg !== 'string' || !INT_DIGITS.test(arg)) throw bad('expected a string of digits');
  const n = BigInt(arg);
  if (n < LONG_MIN || n > LONG_MAX) throw bad('out of int64 range');
  return n;
}

function parseDouble(arg: unknown, bad: BadFn): number {
  if (typeof arg !== 'string') throw bad('expected a string');
  if (arg === 'NaN') return Number.NaN;
  if (arg === 'Infinity') return Number.POSITIVE_INFINITY;
  if (arg === '-Infinity') return Number.NEGATIVE_INFINITY;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(arg)) throw bad('not a number');
  const n = Number(arg);
  return n === 0 ? 0 : n;
}

function parseDate(arg: unknown, bad: BadFn): Date {
  let ms: number;
  if (typeof arg === 'string') {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(arg)) {
      throw bad('expected an ISO-8601 date-time with a zone');
    }
    ms = Date.parse(arg);
  } else if (
    typeof arg === 'object' &&
    arg !== null &&
    Object.keys(arg).length === 1 &&
    '$numberLong' in arg
  ) {
    ms = Number(parseLong((arg as Record<string, unknown>).$numberLong, bad));
  } else {
    throw bad('expected an ISO-8601 string or {"$numberLong": "<ms>"}');
  }
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw bad('date out of range');
  return date;
}

/** Relaxed extended JSON: ISO-8601 for years 1970–9999, the canonical millisecond form for any other date. */
export function dateToWire(d: Date): unknown {
  const year = d.getUTCFullYear();
  return year >= 1970 && year <= 9999
    ? { $date: d.toISOString() }
    : { $date: { $numberLong: String(d.getTime()) } };
}

/** Converts a Value to JSON-able extended JSON (relaxed numbers, canonical wrappers for the rest). */
export function toWire(v: Value): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $numberDouble: 'NaN' };
    if (v === Number.POSITIVE_INFINITY) return { $numberDouble: 'Infinity' };
    if (v === Number.NEGATIVE_INFINITY) return { $numberDouble: '-Infinity' };
    return v;
  }
  if (typeof v === 'bigint') return { $numberLong: v.toString() };
  if (v instanceof Date) return dateToWire(v);
  if (v instanceof ObjectId) return { $oid: v.toHexString() };
  if (v instanceof Decimal128) return { $numberDecimal: v.toString() };
  if (Array.isArray(v)) return v.map(toWire);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const item = toWire(v[key]!);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true });
    else out[key] = item;
  }
  return out;
}

/** Plain dotted lookup: objects by key, arrays only by a numeric part; no expansion over array elements. */
export function getPath(doc: Doc, path: string): Value | undefined {
  let cur: Value | undefined = doc;
  for (const part of path.split('.')) {
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(part)) return undefined;
      cur = cur[Number(part)];
    } else if (isDoc(cur)) {
      cur = Object.hasOwn(cur, part) ? cur[part] : undefined;
    } else {
      return undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Canonical extended JSON of an _id, the key of the id column: "5" and 5 are different keys. */
export function idKey(id: Value): string {
  return EJSON.stringify(toBson(id), { relaxed: false });
}

function toBson(v: Value): unknown {
  if (typeof v === 'bigint') return EJSON.parse(`{"$numberLong":"${v}"}`, { relaxed: false });
  if (Array.isArray(v)) return v.map(toBson);
  if (isDoc(v)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v)) out[key] = toBson(v[key]!);
    return out;
  }
  return v;
}
