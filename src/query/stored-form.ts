// The JSONB form of values: plain JSON where JSON is exact, tagged one-key objects for the other types.
//
// null, booleans, strings, arrays: themselves. Finite int32/double: a JSON number (JavaScript prints the
// shortest text that reads back to the same double, and SQL reads it back with ::float8, so it stays exact).
// NaN/±Infinity: {"$numberDouble": "NaN"|"Infinity"|"-Infinity"}. Long: {"$numberLong": "<digits>"}.
// Date: {"$date": <ms since epoch>}. ObjectId: {"$oid": "<24 hex>"}. Objects: their fields, plus
// "$o": [field names in document order] when that order differs from the order JSONB keeps keys in (shorter
// key first, then bytewise), because JSONB forgets field order and MongoDB's comparison of embedded documents
// depends on it. User field names never start with $, so none of these tags can be mistaken for data.
import { Decimal128, ObjectId } from 'bson';
import { queryErrors } from './errors.js';
import { type Doc, dateToWire, type Value } from './values.js';

export function toStored(v: Value): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $numberDouble: 'NaN' };
    if (v === Number.POSITIVE_INFINITY) return { $numberDouble: 'Infinity' };
    if (v === Number.NEGATIVE_INFINITY) return { $numberDouble: '-Infinity' };
    return v === 0 ? 0 : v;
  }
  if (typeof v === 'bigint') return { $numberLong: v.toString() };
  if (v instanceof Date) return { $date: v.getTime() };
  if (v instanceof ObjectId) return { $oid: v.toHexString() };
  // Decimals live only inside a pipeline or projection (docs/query-engine-js.md): never written.
  if (v instanceof Decimal128) throw queryErrors.badValue('', 'decimal values ($toDecimal) cannot be stored');
  if (Array.isArray(v)) return v.map(toStored);
  return storeDoc(v);
}

/** The JSON text to bind as the jsonb parameter of an INSERT or UPDATE. */
export function storedText(v: Value): string {
  return JSON.stringify(toStored(v));
}

function storeDoc(doc: Doc): Record<string, unknown> {
  const keys = Object.keys(doc);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const item = toStored(doc[key]!);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true });
    else out[key] = item;
  }
  if (!isJsonbOrder(keys)) out.$o = keys;
  return out;
}

/** JSONB keeps object keys sorted by UTF-8 length, then bytewise. */
function compareJsonbKeys(a: string, b: string): number {
  const la = Buffer.byteLength(a);
  const lb = Buffer.byteLength(b);
  if (la !== lb) return la - lb;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function isJsonbOrder(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (compareJsonbKeys(keys[i - 1]!, keys[i]!) > 0) return false;
  return true;
}

export function fromStored(j: unknown): Value {
  if (j === null || typeof j === 'boolean' || typeof j === 'string') return j;
  if (typeof j === 'number') return j;
  if (Array.isArray(j)) return j.map(fromStored);
  if (typeof j !== 'object') throw new TypeError(`Unexpected stored value of type ${typeof j}`);
  const obj = j as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1) {
    const tagged = fromTagged(keys[0]!, obj[keys[0]!]);
    if (tagged !== undefined) return tagged;
  }
  const order = Array.isArray(obj.$o) ? (obj.$o as string[]) : keys;
  const out: Doc = {};
  for (const key of order) {
    if (key === '$o' || !Object.hasOwn(obj, key)) continue;
    const item = fromStored(obj[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true });
    else out[key] = item;
  }
  return out;
}

/**
 * The wire JSON (toWire's extended JSON) of a stored document's text, without building the in-memory value:
 * the stored form already is the wire form except for dates ({"$date": ms} → ISO text or a $numberLong) and
 * the "$o" field order, so one pass over the parsed JSON does. The reference of stored-wire.ts's scanner,
 * which answers the same bytes without parsing, and comes here for what it cannot prove.
 */
export function storedTextToWireParsed(text: string): string {
  return JSON.stringify(storedToWire(JSON.parse(text)));
}

export function storedToWire(j: unknown): unknown {
  if (j === null || typeof j !== 'object') return j;
  if (Array.isArray(j)) return j.map(storedToWire);
  const obj = j as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === '$date') return dateToWire(new Date(obj.$date as number));
  if (keys.length === 1 && TAGS.has(keys[0]!)) return obj;
  if (!Object.hasOwn(obj, '$o')) {
    for (const key of keys) {
      const v = obj[key];
      if (v !== null && typeof v === 'object') obj[key] = storedToWire(v);
    }
    return obj;
  }
  const out: Record<string, unknown> = {};
  for (const key of obj.$o as string[]) {
    if (!Object.hasOwn(obj, key)) continue;
    const item = storedToWire(obj[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true });
    else out[key] = item;
  }
  return out;
}

/** Tagged values whose wire form is their stored form. */
const TAGS = new Set(['$numberLong', '$numberDouble', '$oid']);

function fromTagged(tag: string, arg: unknown): Value | undefined {
  switch (tag) {
    case '$numberLong':
      return BigInt(arg as string);
    case '$numberDouble':
      return Number(arg as string);
    case '$date':
      return new Date(arg as number);
    case '$oid':
      return ObjectId.createFromHexString(arg as string);
    default:
      return undefined;
  }
}
