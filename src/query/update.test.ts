import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { applyUpdate, parseUpdate } from './update.js';
import { type Doc, toWire, type Value } from './values.js';

const NOW = new Date('2024-05-06T07:08:09.010Z');

function update(doc: Doc, u: Value, isInsert = false): Doc {
  return applyUpdate(doc, parseUpdate(toWire(u)), { now: NOW, isInsert }).doc;
}

function changed(doc: Doc, u: Value): boolean {
  return applyUpdate(doc, parseUpdate(toWire(u)), { now: NOW, isInsert: false }).changed;
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  throw new Error('expected an error');
}

const failing = (doc: Doc, u: Value) => codeOf(() => update(doc, u));

describe('parseUpdate', () => {
  it('unknown operator $frob → 400 QUERY_UNKNOWN_UPDATE_OPERATOR naming it', () => {
    expect(codeOf(() => parseUpdate({ $frob: { a: 1 } }))).toBe('400 QUERY_UNKNOWN_UPDATE_OPERATOR');
    expect(() => parseUpdate({ $frob: { a: 1 } })).toThrow('Unsupported update operator $frob');
  });

  it('operators mixed with plain fields → 400 UPDATE_BAD_SHAPE', () => {
    expect(codeOf(() => parseUpdate({ $set: { a: 1 }, b: 2 }))).toBe('400 UPDATE_BAD_SHAPE');
  });

  it('the same path under two operators → 400 UPDATE_PATH_CONFLICT', () => {
    expect(codeOf(() => parseUpdate({ $set: { a: 1 }, $inc: { a: 1 } }))).toBe('400 UPDATE_PATH_CONFLICT');
  });

  it('a path and a path inside it → 400 UPDATE_PATH_CONFLICT', () => {
    expect(codeOf(() => parseUpdate({ $set: { a: 1, 'a.b': 2 } }))).toBe('400 UPDATE_PATH_CONFLICT');
    expect(codeOf(() => parseUpdate({ $rename: { a: 'b' }, $set: { 'b.c': 1 } }))).toBe(
      '400 UPDATE_PATH_CONFLICT',
    );
  });

  it('positional paths parse; misplaced ones → 400 UPDATE_BAD_POSITIONAL (update-positional.test.ts)', () => {
    expect(parseUpdate({ $set: { 'a.$': 1 } })).toMatchObject({ dynamic: true, positional: true });
    expect(parseUpdate({ $inc: { 'a.$[].b': 1 } })).toMatchObject({ dynamic: true, positional: false });
    expect(codeOf(() => parseUpdate({ $set: { '$.a': 1 } }))).toBe('400 UPDATE_BAD_POSITIONAL');
  });

  it('empty path part → 400 QUERY_BAD_FIELD_PATH', () => {
    expect(codeOf(() => parseUpdate({ $set: { 'a..b': 1 } }))).toBe('400 QUERY_BAD_FIELD_PATH');
  });

  it('bad operator arguments → 400 UPDATE_BAD_ARGUMENT', () => {
    expect(codeOf(() => parseUpdate({ $inc: { a: 'x' } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $mul: { a: true } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $pop: { a: 2 } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $push: { a: { $each: 1 } } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $push: { a: { $each: [], $slice: 1.5 } } }))).toBe(
      '400 UPDATE_BAD_ARGUMENT',
    );
    expect(codeOf(() => parseUpdate({ $push: { a: { $each: [], $foo: 1 } } }))).toBe(
      '400 UPDATE_BAD_ARGUMENT',
    );
    expect(codeOf(() => parseUpdate({ $rename: { a: 5 } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $currentDate: { a: false } }))).toBe('400 UPDATE_BAD_ARGUMENT');
    expect(codeOf(() => parseUpdate({ $set: 5 }))).toBe('400 UPDATE_BAD_ARGUMENT');
  });

  it('$currentDate with $type timestamp → 400 UPDATE_UNSUPPORTED_FEATURE', () => {
    expect(codeOf(() => parseUpdate({ $currentDate: { a: { $type: 'timestamp' } } }))).toBe(
      '400 UPDATE_UNSUPPORTED_FEATURE',
    );
  });

  it('a value holding a $-prefixed field name → 400 UPDATE_BAD_SHAPE', () => {
    expect(codeOf(() => parseUpdate({ $set: { a: { $x: 1 } } }))).toBe('400 UPDATE_BAD_SHAPE');
    expect(codeOf(() => parseUpdate({ a: [{ $x: 1 }] }))).toBe('400 UPDATE_BAD_SHAPE');
  });

  it('an update pipeline (array) → 400 UPDATE_UNSUPPORTED_FEATURE; a non-document → 400 UPDATE_BAD_SHAPE', () => {
    expect(codeOf(() => parseUpdate([{ $set: { a: 1 } }]))).toBe('400 UPDATE_UNSUPPORTED_FEATURE');
    expect(codeOf(() => parseUpdate('x'))).toBe('400 UPDATE_BAD_SHAPE');
  });

  it('an empty operator document → accepted, changes nothing', () => {
    expect(changed({ _id: 1, a: 1 }, { $set: {} })).toBe(false);
  });
});

describe('applyUpdate: $set, $unset and paths', () => {
  it('$set of a dotted path on an empty document → nested objects created', () => {
    expect(update({ _id: 1 }, { $set: { 'a.b.c': 1 } })).toEqual({ _id: 1, a: { b: { c: 1 } } });
  });

  it('$set past the end of an array → padded with nulls', () => {
    expect(update({ _id: 1, a: [1] }, { $set: { 'a.2': 5 } })).toEqual({ _id: 1, a: [1, null, 5] });
  });

  it('$set a.0.b inside an array of documents → only that element changes', () => {
    expect(update({ _id: 1, a: [{ b: 1 }, { b: 2 }] }, { $set: { 'a.0.b': 9 } })).toEqual({
      _id: 1,
      a: [{ b: 9 }, { b: 2 }],
    });
  });

  it('$set a numeric part on a missing path → an object field named "0", not an array', () => {
    expect(update({ _id: 1 }, { $set: { 'a.0': 1 } })).toEqual({ _id: 1, a: { '0': 1 } });
  });

  it('$set through a number, null or an array by name → 400 UPDATE_PATH_NOT_VIABLE', () => {
    expect(failing({ _id: 1, a: 5 }, { $set: { 'a.b': 1 } })).toBe('400 UPDATE_PATH_NOT_VIABLE');
    expect(failing({ _id: 1, a: null }, { $set: { 'a.b': 1 } })).toBe('400 UPDATE_PATH_NOT_VIABLE');
    expect(failing({ _id: 1, a: [{ b: 1 }] }, { $set: { 'a.b': 1 } })).toBe('400 UPDATE_PATH_NOT_VIABLE');
  });

  it('$set of an equal value → changed false; of the same number as a long → changed true', () => {
    expect(changed({ _id: 1, a: { b: 1 } }, { $set: { a: { b: 1 } } })).toBe(false);
    expect(changed({ _id: 1, a: 1 }, { $set: { a: 1n } })).toBe(true);
  });

  it('new fields → appended in MongoDB 5.0 order (by path, not by operator or argument order)', () => {
    const out = update({ _id: 1, z: 0 }, { $set: { y: 1, b: 1 }, $inc: { m: 1 } });
    expect(Object.keys(out)).toEqual(['_id', 'z', 'b', 'm', 'y']);
  });

  it('the input document → never mutated', () => {
    const doc: Doc = { _id: 1, a: { b: [1, 2] }, d: new Date(0) };
    const before = structuredClone(doc);
    update(doc, { $set: { 'a.c': 1 }, $push: { 'a.b': 3 }, $unset: { d: '' } });
    expect(doc).toEqual(before);
  });

  it('$unset → removes a field, nulls an array element, ignores missing or unreachable paths', () => {
    expect(update({ _id: 1, a: 1, b: 2 }, { $unset: { a: '' } })).toEqual({ _id: 1, b: 2 });
    expect(update({ _id: 1, a: [1, 2, 3] }, { $unset: { 'a.1': '' } })).toEqual({ _id: 1, a: [1, null, 3] });
    expect(changed({ _id: 1, a: 5 }, { $unset: { 'a.b': '', x: '' } })).toBe(false);
  });

  it('$setOnInsert → applied only when inserting', () => {
    expect(update({ _id: 1 }, { $setOnInsert: { a: 1 } })).toEqual({ _id: 1 });
    expect(update({ _id: 1 }, { $setOnInsert: { a: 1 } }, true)).toEqual({ _id: 1, a: 1 });
  });

  it('$currentDate true or {$type: "date"} → the context clock', () => {
    const out = update({ _id: 1 }, { $currentDate: { a: true, b: { $type: 'date' } } });
    expect(out).toEqual({ _id: 1, a: NOW, b: NOW });
  });
});

describe('applyUpdate: $inc, $mul, $min, $max', () => {
  it('$inc int + int → int; past int32 → long', () => {
    expect(update({ _id: 1, a: 2 }, { $inc: { a: 3 } }).a).toBe(5);
    expect(update({ _id: 1, a: 2147483647 }, { $inc: { a: 1 } }).a).toBe(2147483648n);
  });

  it('$inc int + long → long; long + double → double', () => {
    expect(update({ _id: 1, a: 2 }, { $inc: { a: 3n } }).a).toBe(5n);
    expect(update({ _id: 1, a: 2n }, { $inc: { a: 0.5 } }).a).toBe(2.5);
  });

  it('$inc overflowing int64 → 400 UPDATE_NUMERIC_OVERFLOW', () => {
    expect(failing({ _id: 1, a: 9223372036854775807n }, { $inc: { a: 1 } })).toBe(
      '400 UPDATE_NUMERIC_OVERFLOW',
    );
  });

  it('$inc on a string or null → 400 UPDATE_TYPE_MISMATCH', () => {
    expect(failing({ _id: 1, a: 'x' }, { $inc: { a: 1 } })).toBe('400 UPDATE_TYPE_MISMATCH');
    expect(failing({ _id: 1, a: null }, { $inc: { a: 1 } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });

  it('$inc on a missing field → the increment, keeping its type', () => {
    expect(update({ _id: 1 }, { $inc: { 'a.b': 7n } })).toEqual({ _id: 1, a: { b: 7n } });
  });

  it('$inc by 0 → changed false', () => {
    expect(changed({ _id: 1, a: 4 }, { $inc: { a: 0 } })).toBe(false);
  });

  it('$mul int * int past int32 → long; on a missing field → zero of the multiplier type', () => {
    expect(update({ _id: 1, a: 65536 }, { $mul: { a: 65536 } }).a).toBe(4294967296n);
    expect(update({ _id: 1 }, { $mul: { a: 5n, b: 2.5 } })).toEqual({ _id: 1, a: 0n, b: 0 });
  });

  it('$mul long * long overflowing → 400 UPDATE_NUMERIC_OVERFLOW', () => {
    expect(failing({ _id: 1, a: 2n ** 62n }, { $mul: { a: 2n } })).toBe('400 UPDATE_NUMERIC_OVERFLOW');
  });

  it('$min/$max on a missing field → set; across types → BSON order decides', () => {
    expect(update({ _id: 1 }, { $min: { a: 3 } })).toEqual({ _id: 1, a: 3 });
    expect(update({ _id: 1, a: 5 }, { $max: { a: 'x' } }).a).toBe('x');
    expect(update({ _id: 1, a: 5 }, { $min: { a: null } }).a).toBe(null);
    expect(update({ _id: 1, a: 5 }, { $max: { a: 4 } }).a).toBe(5);
  });

  it('$min with an equal value of another numeric type → no change', () => {
    expect(changed({ _id: 1, a: 1 }, { $min: { a: 1n } })).toBe(false);
  });
});

describe('applyUpdate: $rename', () => {
  it('$rename → the value moves, the new field goes last', () => {
    expect(update({ _id: 1, a: 1, b: 2 }, { $rename: { a: 'c' } })).toEqual({ _id: 1, b: 2, c: 1 });
    expect(Object.keys(update({ _id: 1, a: 1, b: 2 }, { $rename: { a: 'c' } }))).toEqual(['_id', 'b', 'c']);
  });

  it('$rename into a nested path, over an existing value → overwritten', () => {
    expect(update({ _id: 1, a: 1, b: { c: 0 } }, { $rename: { a: 'b.c' } })).toEqual({ _id: 1, b: { c: 1 } });
  });

  it('$rename of a missing field → no change', () => {
    expect(changed({ _id: 1, b: 2 }, { $rename: { a: 'c' } })).toBe(false);
  });

  it('$rename from or into an array element → 400 UPDATE_TYPE_MISMATCH', () => {
    expect(failing({ _id: 1, a: [{ b: 1 }] }, { $rename: { 'a.0.b': 'c' } })).toBe(
      '400 UPDATE_TYPE_MISMATCH',
    );
    expect(failing({ _id: 1, a: 1, c: [] }, { $rename: { a: 'c.0' } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });
});

describe('applyUpdate: array operators', () => {
  it('$push → appends; creates the array when missing', () => {
    expect(update({ _id: 1, a: [1] }, { $push: { a: 2 } }).a).toEqual([1, 2]);
    expect(update({ _id: 1 }, { $push: { a: { $each: [1, 2] } } }).a).toEqual([1, 2]);
  });

  it('$push on a non-array → 400 UPDATE_TYPE_MISMATCH', () => {
    expect(failing({ _id: 1, a: 1 }, { $push: { a: 2 } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });

  it('$push $each with $position (also negative) → inserted there', () => {
    expect(update({ _id: 1, a: [1, 2, 3] }, { $push: { a: { $each: [9], $position: 1 } } }).a).toEqual([
      1, 9, 2, 3,
    ]);
    expect(update({ _id: 1, a: [1, 2, 3] }, { $push: { a: { $each: [9], $position: -1 } } }).a).toEqual([
      1, 2, 9, 3,
    ]);
    expect(update({ _id: 1, a: [1] }, { $push: { a: { $each: [9], $position: -5 } } }).a).toEqual([9, 1]);
  });

  it('$push $each with $sort and $slice → sorted, then sliced', () => {
    const doc = { _id: 1, a: [{ s: 3 }, { s: 1 }] };
    expect(update(doc, { $push: { a: { $each: [{ s: 2 }], $sort: { s: -1 }, $slice: 2 } } }).a).toEqual([
      { s: 3 },
      { s: 2 },
    ]);
    expect(update({ _id: 1, a: [3, 1] }, { $push: { a: { $each: [2], $sort: 1, $slice: -2 } } }).a).toEqual([
      2, 3,
    ]);
    expect(update({ _id: 1, a: [3, 1] }, { $push: { a: { $each: [], $slice: 0 } } }).a).toEqual([]);
  });

  it('$push $sort by field → elements without it (or not documents) sort as null', () => {
    const doc: Doc = { _id: 1, a: [{ s: 2 }, 7, {}, { s: null }] };
    expect(update(doc, { $push: { a: { $each: [], $sort: { s: 1 } } } }).a).toEqual([
      7,
      {},
      { s: null },
      { s: 2 },
    ]);
  });

  it('$addToSet → adds only absent values, by MongoDB equality (1 equals 1n)', () => {
    expect(update({ _id: 1, a: [1n] }, { $addToSet: { a: 1 } }).a).toEqual([1n]);
    expect(update({ _id: 1, a: [1] }, { $addToSet: { a: { $each: [2, 2, 1, 3] } } }).a).toEqual([1, 2, 3]);
    expect(update({ _id: 1 }, { $addToSet: { a: { $each: [4, 4] } } }).a).toEqual([4]);
  });

  it('$addToSet of a document with the fields in another order → added (order matters)', () => {
    expect(update({ _id: 1, a: [{ x: 1, y: 2 }] }, { $addToSet: { a: { y: 2, x: 1 } } }).a).toHaveLength(2);
  });

  it('$addToSet on a non-array → 400 UPDATE_TYPE_MISMATCH', () => {
    expect(failing({ _id: 1, a: 'x' }, { $addToSet: { a: 1 } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });

  it('$pop 1 / -1 → last / first removed; empty or missing → no change; non-array → 400', () => {
    expect(update({ _id: 1, a: [1, 2, 3] }, { $pop: { a: 1 } }).a).toEqual([1, 2]);
    expect(update({ _id: 1, a: [1, 2, 3] }, { $pop: { a: -1 } }).a).toEqual([2, 3]);
    expect(changed({ _id: 1, a: [] }, { $pop: { a: 1, b: 1 } })).toBe(false);
    expect(failing({ _id: 1, a: 5 }, { $pop: { a: 1 } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });

  it('$pull a value → equal elements removed (an array element is compared whole)', () => {
    expect(update({ _id: 1, a: [1, 2, 1n, [1]] }, { $pull: { a: 1 } }).a).toEqual([2, [1]]);
  });

  it('$pull a condition → elements matching it removed', () => {
    expect(update({ _id: 1, a: [1, 5, 3, 'x'] }, { $pull: { a: { $gte: 3 } } }).a).toEqual([1, 'x']);
    expect(update({ _id: 1, a: [1, 5, 3] }, { $pull: { a: { $in: [1, 3] } } }).a).toEqual([5]);
  });

  it('$pull a $regex condition → matching strings removed', () => {
    const spec = parseUpdate({ $pull: { a: { $regex: '^x' } } });
    expect(applyUpdate({ _id: 1, a: ['xa', 'b', 'x'] }, spec, { now: NOW, isInsert: false }).doc.a).toEqual([
      'b',
    ]);
  });

  it('$pull an extended JSON value ({$numberLong}) → equal elements removed', () => {
    const spec = parseUpdate({ $pull: { a: { $numberLong: '2' } } });
    expect(applyUpdate({ _id: 1, a: [1, 2, 2n] }, spec, { now: NOW, isInsert: false }).doc.a).toEqual([1]);
  });

  it('$pull a document → element documents matching it as a query removed, extra fields or not', () => {
    const doc: Doc = { _id: 1, a: [{ b: 1, c: 2 }, { b: 2 }, 1] };
    expect(update(doc, { $pull: { a: { b: 1 } } }).a).toEqual([{ b: 2 }, 1]);
    expect(update(doc, { $pull: { a: { b: { $gt: 1 } } } }).a).toEqual([{ b: 1, c: 2 }, 1]);
  });

  it('$pull on a non-array → 400 UPDATE_TYPE_MISMATCH; on a missing field → no change', () => {
    expect(failing({ _id: 1, a: 1 }, { $pull: { a: 1 } })).toBe('400 UPDATE_TYPE_MISMATCH');
    expect(changed({ _id: 1 }, { $pull: { a: 1 } })).toBe(false);
  });
});

describe('applyUpdate: _id and replacement documents', () => {
  it('$set _id to the same value → allowed; to another value → 400 UPDATE_IMMUTABLE_ID', () => {
    expect(changed({ _id: 1, a: 1 }, { $set: { _id: 1 } })).toBe(false);
    expect(failing({ _id: 1 }, { $set: { _id: 2 } })).toBe('400 UPDATE_IMMUTABLE_ID');
    expect(failing({ _id: 1 }, { $unset: { _id: '' } })).toBe('400 UPDATE_IMMUTABLE_ID');
    expect(failing({ _id: { x: 1 } }, { $inc: { '_id.x': 1 } })).toBe('400 UPDATE_IMMUTABLE_ID');
    expect(failing({ _id: 1 }, { $rename: { _id: 'x' } })).toBe('400 UPDATE_IMMUTABLE_ID');
  });

  it('replacement without _id → the original _id kept, first', () => {
    const out = update({ _id: 7, a: 1 }, { b: 2 });
    expect(out).toEqual({ _id: 7, b: 2 });
    expect(Object.keys(out)).toEqual(['_id', 'b']);
  });

  it('replacement with the same _id → accepted; with another → 400 UPDATE_IMMUTABLE_ID', () => {
    expect(update({ _id: 7, a: 1 }, { b: 2, _id: 7 })).toEqual({ b: 2, _id: 7 });
    expect(failing({ _id: 7 }, { _id: 8 })).toBe('400 UPDATE_IMMUTABLE_ID');
  });

  it('an empty replacement → only the _id remains', () => {
    expect(update({ _id: 7, a: 1 }, {})).toEqual({ _id: 7 });
  });

  it('_id set to an array on insert → 400 UPDATE_BAD_ID', () => {
    expect(codeOf(() => update({}, { $set: { _id: [1] } }, true))).toBe('400 UPDATE_BAD_ID');
  });
});

describe('$bit (MongoDB update_bit cases)', () => {
  const long = (n: bigint) => n;
  it('and, or, xor on an int → an int: 13 and 10 = 8, 13 or 5 = 13, 3 xor 5 = 6', () => {
    expect(update({ a: 13 }, { $bit: { a: { and: 10 } } })).toEqual({ a: 8 });
    expect(update({ a: 13 }, { $bit: { a: { or: 5 } } })).toEqual({ a: 13 });
    expect(update({ a: 3 }, { $bit: { a: { xor: 5 } } })).toEqual({ a: 6 });
  });

  it('several operations → applied in the order given; a missing field counts as 0', () => {
    expect(update({ a: 13 }, { $bit: { a: { and: 6, or: 1 } } })).toEqual({ a: 5 });
    expect(update({}, { $bit: { 'x.y': { or: 5 } } })).toEqual({ x: { y: 5 } });
    expect(update({}, { $bit: { a: { or: long(5n) } } })).toEqual({ a: 5n });
  });

  it('a long on either side → a long, 64-bit: 3 or long 4 = long 7; -1 and 255 = 255; long xor -1 wraps', () => {
    expect(update({ a: 3 }, { $bit: { a: { or: long(4n) } } })).toEqual({ a: 7n });
    expect(update({ a: long(3n) }, { $bit: { a: { and: 5 } } })).toEqual({ a: 1n });
    expect(update({ a: -1 }, { $bit: { a: { and: 255 } } })).toEqual({ a: 255 });
    expect(update({ a: long(2n ** 62n) }, { $bit: { a: { xor: long(-1n) } } })).toEqual({
      a: -(2n ** 62n) - 1n,
    });
    expect(update({ a: 2 ** 31 - 1 }, { $bit: { a: { or: -(2 ** 31) } } })).toEqual({ a: -1 });
  });

  it('a double or string operand, an unknown operation, an empty document → 400; a non-integral field → 400', () => {
    for (const arg of [{ and: 1.5 }, { or: '1' }, { nand: 1 }, {}, 5] as Value[]) {
      expect(
        codeOf(() => parseUpdate(toWire({ $bit: { a: arg } }))),
        JSON.stringify(arg),
      ).toMatch(/^400 /);
    }
    expect(failing({ a: 'x' }, { $bit: { a: { and: 1 } } })).toBe('400 UPDATE_TYPE_MISMATCH');
    expect(failing({ a: 1.5 }, { $bit: { a: { and: 1 } } })).toBe('400 UPDATE_TYPE_MISMATCH');
    expect(failing({ a: [1] }, { $bit: { a: { and: 1 } } })).toBe('400 UPDATE_TYPE_MISMATCH');
  });
});
