// Values as strings: the coercion of the string operators ($toLower, $substrCP...) and $toString's conversion.
import { Decimal128, ObjectId } from 'bson';
import { typeName } from './args.js';
import { bad, type Out } from './core.js';

/** A date as MongoDB prints it: %Y-%m-%dT%H:%M:%S.%LZ (years outside 0–9999 are refused). */
export function dateText(op: string, d: Date): string {
  const year = d.getUTCFullYear();
  if (year < 0 || year > 9999) throw bad(op, 'the date is outside the years 0–9999 it can print');
  return d.toISOString();
}

/** A number as text: integers in decimal, doubles in JavaScript's shortest round-trip form. */
export function numberText(n: number | bigint): string {
  if (typeof n === 'bigint') return n.toString();
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  return Object.is(n, -0) ? '-0' : String(n);
}

/** The string operators' coercion: null and missing are "", numbers and dates print, other types are 400. */
export function coerceToString(op: string, v: Out): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return numberText(v);
  if (v instanceof Decimal128) return v.toString();
  if (v instanceof Date) return dateText(op, v);
  throw bad(op, `can't convert a value of type ${typeName(v)} to a string`);
}

/** $toString: as the coercion, plus booleans and ObjectIds; undefined when the type cannot convert. */
export function convertToString(op: string, v: Out): string | undefined {
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof ObjectId) return v.toHexString();
  if (v instanceof Decimal128) return v.toString();
  if (Array.isArray(v) || (typeof v === 'object' && v !== null && !(v instanceof Date))) return undefined;
  return coerceToString(op, v);
}
