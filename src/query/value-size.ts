// The approximate size of a value, for the byte caps of the pipeline stages that hold documents ($group's
// arrays, $facet, $lookup, $unionWith): about BSON's size (names and strings by their UTF-16 length, numbers and
// dates 8 bytes, 5 per field or element of overhead). Memoized per document or array, so a value held in many
// places (a foreign document matched by many $lookup inputs) is measured once.
import { Decimal128, ObjectId } from 'bson';
import { isDoc, type Value } from './values.js';

const sizes = new WeakMap<object, number>();

export function valueBytes(v: Value | undefined): number {
  if (v === undefined || v === null || typeof v === 'boolean') return 1;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof Date) return 8;
  if (typeof v === 'string') return v.length + 5;
  if (v instanceof ObjectId) return 12;
  if (v instanceof Decimal128) return 16;
  const known = sizes.get(v);
  if (known !== undefined) return known;
  let n = 5;
  if (Array.isArray(v)) for (const item of v) n += 5 + valueBytes(item);
  else if (isDoc(v)) for (const key of Object.keys(v)) n += 2 + key.length + valueBytes(v[key]);
  sizes.set(v, n);
  return n;
}

/** MongoDB's largest document (16 MiB): no document a stage builds ($facet, $lookup's `as`, $push) may pass it. */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;
