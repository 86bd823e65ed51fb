// Stored form (src/query/stored-form.ts) → canonical extended JSON, directly, for exports of millions of documents.
//
// Same output as `EJSON.serialize(fromStored(j), {relaxed: false})` with one deliberate difference: a plain
// number that is an integer outside int32 stays a double ({"$numberDouble"}) where bson would print a
// {"$numberLong"}, so that every value keeps its type on the way out (only stored longs are longs).
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

function canonicalNumber(n: number): { $numberInt: string } | { $numberDouble: string } {
  if (Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX && !Object.is(n, -0)) {
    return { $numberInt: String(n) };
  }
  if (Object.is(n, -0)) return { $numberDouble: '-0.0' };
  // bson's Double: an integral double keeps a ".0" (toFixed prints large ones with an exponent, as bson does).
  return { $numberDouble: Number.isInteger(n) ? n.toFixed(1) : String(n) };
}

function canonicalTagged(tag: string, arg: unknown): unknown {
  switch (tag) {
    case '$numberLong':
      return { $numberLong: arg };
    case '$numberDouble':
      return { $numberDouble: arg };
    case '$date':
      return { $date: { $numberLong: String(arg) } };
    case '$oid':
      return { $oid: arg };
    default:
      return undefined;
  }
}

function setKey(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Converts one stored value; objects keep their document field order (the `$o` list when present). */
export function storedToCanonical(j: unknown): unknown {
  if (j === null || typeof j === 'boolean' || typeof j === 'string') return j;
  if (typeof j === 'number') return canonicalNumber(j);
  if (Array.isArray(j)) return j.map(storedToCanonical);
  if (typeof j !== 'object') throw new TypeError(`Unexpected stored value of type ${typeof j}`);
  const obj = j as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1) {
    const tagged = canonicalTagged(keys[0] as string, obj[keys[0] as string]);
    if (tagged !== undefined) return tagged;
  }
  const order = Array.isArray(obj.$o) ? (obj.$o as string[]) : keys;
  const out: Record<string, unknown> = {};
  for (const key of order) {
    if (key === '$o' || !Object.hasOwn(obj, key)) continue;
    setKey(out, key, storedToCanonical(obj[key]));
  }
  return out;
}
