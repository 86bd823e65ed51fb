import { ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { applyUpdate, parseUpdate, seedUpsert } from './update.js';
import { toWire, type Value } from './values.js';

const NOW = new Date('2024-05-06T07:08:09.010Z');

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return `${e.status} ${e.code}`;
    throw e;
  }
  throw new Error('expected an error');
}

describe('seedUpsert', () => {
  const upsert = (filter: Value, u: Value) => {
    const spec = parseUpdate(toWire(u));
    return applyUpdate(seedUpsert(toWire(filter), spec), spec, { now: NOW, isInsert: true }).doc;
  };

  it('equality fields (dotted too) → seeded; operator conditions → ignored', () => {
    expect(upsert({ a: 1, 'b.c': 2, d: { $gt: 5 } }, { $set: { e: 1 } })).toEqual({
      a: 1,
      b: { c: 2 },
      e: 1,
    });
  });

  it('an _id equality → the _id comes first', () => {
    const id = new ObjectId('0123456789abcdef01234567');
    const out = upsert({ x: 1, _id: id }, { $inc: { n: 1 } });
    expect(Object.keys(out)).toEqual(['_id', 'x', 'n']);
    expect(out._id).toEqual(id);
  });

  it('$eq, $and, a one-element $in and a one-clause $or → seeded', () => {
    expect(upsert({ $and: [{ a: { $eq: 1 } }, { b: { $in: [2] } }], $or: [{ c: 3 }] }, { $set: {} })).toEqual(
      {
        a: 1,
        b: 2,
        c: 3,
      },
    );
  });

  it('a $regex or range condition in the filter → not seeded, no error', () => {
    expect(upsert({ a: { $regex: '^x' }, b: { $in: [1, 2] }, c: { $gte: 1 } }, { $set: { d: 1 } })).toEqual({
      d: 1,
    });
  });

  it('extended JSON values in the filter → seeded with their types', () => {
    const spec = parseUpdate({ $set: { x: 1 } });
    const seed = seedUpsert({ n: { $numberLong: '5' }, d: { $date: '2024-01-01T00:00:00Z' } }, spec);
    expect(seed).toEqual({ d: new Date('2024-01-01T00:00:00Z'), n: 5n });
  });

  it('the update overrides a seeded field', () => {
    expect(upsert({ a: 1 }, { $set: { a: 2 } })).toEqual({ a: 2 });
  });

  it('a path given twice, or a path and one inside it → 400 UPDATE_UPSERT_AMBIGUOUS', () => {
    expect(codeOf(() => upsert({ a: { $all: [1, 2] } }, { $set: { b: 1 } }))).toBe(
      '400 UPDATE_UPSERT_AMBIGUOUS',
    );
    expect(codeOf(() => upsert({ a: { x: 1 }, 'a.y': 2 }, { $set: { b: 1 } }))).toBe(
      '400 UPDATE_UPSERT_AMBIGUOUS',
    );
  });

  it('a replacement upsert → only the _id of the filter is taken', () => {
    expect(upsert({ _id: 5, a: 1 }, { b: 2 })).toEqual({ _id: 5, b: 2 });
  });

  it('$setOnInsert on an upsert → applied', () => {
    expect(upsert({ a: 1 }, { $setOnInsert: { c: 1 } })).toEqual({ a: 1, c: 1 });
  });

  it('an update changing the _id given by the filter → 400 UPDATE_IMMUTABLE_ID', () => {
    expect(codeOf(() => upsert({ _id: 1 }, { $set: { _id: 2 } }))).toBe('400 UPDATE_IMMUTABLE_ID');
  });
});
