// Test support: documents that stress the stored text → wire JSON scanner (stored-wire.ts): every value type
// (ints, doubles with -0, NaN, ±Infinity, subnormals and huge ones, longs, dates before 1970 and after 9999,
// ObjectIds), unicode and control characters in strings and field names, field names JavaScript reorders
// ("0", "10") or treats specially (__proto__), any field order, nested arrays and objects.
import { ObjectId } from 'bson';
import fc from 'fast-check';
import type { Doc, Value } from './values.js';

/** What a jsonb column holds: no NUL, no lone surrogate. */
const storable = (s: string) =>
  !s.includes('\u0000') && !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

const NAMES = [
  'a',
  'b',
  'ab',
  '_id',
  'level',
  'country',
  'é',
  '\u{1f600}',
  'q"q',
  'back\\slash',
  'tab\t',
  'ctl\u0001',
  'x y',
  '',
];
const INDEX_NAMES = ['0', '1', '10', '01', '__proto__'];

const nameArb = (withIndexNames: boolean) =>
  fc.oneof(
    fc.constantFrom(...NAMES, ...(withIndexNames ? INDEX_NAMES : [])),
    fc
      .string({ unit: 'binary', maxLength: 6 })
      .filter(
        (s) =>
          storable(s) &&
          !s.startsWith('$') &&
          (withIndexNames || !/^[0-9]/.test(s)) &&
          (withIndexNames || s !== '__proto__'),
      ),
  );

const scalarArb: fc.Arbitrary<Value> = fc.oneof(
  fc.integer(),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.constantFrom(0.1, 1.5, -0, 1e21, 5e-7, 2 ** 53, 2 ** 53 + 2, 1.7976931348623157e308, 5e-324, 123456.789),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.date({ noInvalidDate: true }),
  fc.constantFrom(new Date(0), new Date(-1), new Date(253_402_300_799_999), new Date(253_402_300_800_000)),
  fc.uint8Array({ minLength: 12, maxLength: 12 }).map((b) => new ObjectId(b)),
  fc.string({ unit: 'binary', maxLength: 8 }).filter(storable),
  fc.constantFrom(
    '',
    'a, "b": c',
    'quote " and \\ back',
    'line\nnext\r\t\b\f',
    '\u001f\u007f\u2028',
    '{"$date": 1}',
  ),
  fc.boolean(),
  fc.constant(null),
);

function build(entries: Array<[string, Value]>): Doc {
  const doc: Doc = {};
  for (const [k, v] of entries)
    Object.defineProperty(doc, k, { value: v, enumerable: true, writable: true, configurable: true });
  return doc;
}

/** A document of generated fields, nested up to three levels; withIndexNames adds "0", "10", "__proto__"... */
export function wireDocArb(withIndexNames: boolean): fc.Arbitrary<Doc> {
  const { value } = fc.letrec<{ value: Value; obj: Doc }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalarArb,
      scalarArb,
      fc.array(tie('value'), { maxLength: 4 }),
      tie('obj'),
    ),
    obj: fc.array(fc.tuple(nameArb(withIndexNames), tie('value')), { maxLength: 5 }).map(build),
  }));
  return fc.array(fc.tuple(nameArb(withIndexNames), value), { maxLength: 8 }).map(build);
}
