// Arbitraries of hostile and plausible request bodies for the nosql fuzz tests.
import fc from 'fast-check';

// Keys a hostile client might send: operators, extended JSON tags, quotes, SQL, paths, odd Unicode.
export const HOSTILE_KEYS = [
  '$gt',
  '$where',
  '$ne',
  '$set',
  '$inc',
  '$oid',
  '$numberLong',
  '$date',
  '$o',
  '$regex',
  '$elemMatch',
  '$and',
  '$expr',
  "a'b",
  'a"b',
  "'; DROP TABLE nosql_documents; --",
  '"); DELETE FROM nosql_documents; --',
  '\\',
  'a.b',
  'a..b',
  '.a',
  '',
  ' ',
  'constructor',
  'prototype',
  'toString',
  '\u00e9t\u00e9',
  '\ud83d\ude00',
  'x'.repeat(300),
  'userName',
  'level',
  '_id',
];
export const HOSTILE_STRINGS = [
  "'",
  "''; DROP TABLE nosql_documents; --",
  '\\x00',
  '%',
  '_',
  '.*',
  '(a+)+$',
  '[',
  'NaN',
  'Infinity',
  '2026-01-01T00:00:00Z',
  '0123456789abcdef01234567',
];
const HUGE_NUMBERS = [
  1e308,
  -1e308,
  2 ** 53 + 2,
  -(2 ** 63),
  2 ** 64,
  5e-324,
  -0,
  0.1,
  10001,
  -1,
  2147483648,
];

const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }));
const leaf = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, ...HUGE_NUMBERS, ...HOSTILE_STRINGS),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.constantFrom<unknown>(
    { $oid: '0123456789abcdef01234567' },
    { $oid: 'not-hex' },
    { $numberLong: '9223372036854775807' },
    { $numberLong: '99999999999999999999' },
    { $date: '2026-01-01T00:00:00Z' },
    { $date: { $numberLong: '-1' } },
    { $numberDecimal: '1.5' },
    { $binary: { base64: '', subType: '00' } },
  ),
);
export const { value: hostile } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));
// Plausible shapes with hostile contents reach further than random JSON: the parsers, the SQL, the updates.
const FIELDS = [
  'level',
  'userName',
  'tags',
  'tags.0',
  'nested.x',
  'nested.y.z',
  'nested.y.1.z',
  '_id',
  'missing',
];
const field = fc.oneof(fc.constantFrom(...FIELDS), key);
const QUERY_OPS = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$type',
  '$regex',
  '$options',
];
const MORE_OPS = ['$size', '$all', '$elemMatch', '$not', '$mod', '$where', '$expr', '$text', '$near'];
const operand = fc.oneof(leaf, fc.array(leaf, { maxLength: 3 }), hostile);
const condition = fc.oneof(
  leaf,
  fc.dictionary(fc.constantFrom(...QUERY_OPS, ...MORE_OPS), operand, { minKeys: 1, maxKeys: 2 }),
);
export const { query: plausibleQuery } = fc.letrec<{ query: Record<string, unknown> }>((tie) => ({
  query: fc.oneof(
    { depthSize: 'small' },
    fc.dictionary(field, condition, { maxKeys: 3 }),
    fc.record({ $or: fc.array(tie('query'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ $and: fc.array(tie('query'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ $nor: fc.array(tie('query'), { minLength: 1, maxLength: 2 }) }),
  ),
}));
// Well-formed conditions and updates, so that many requests get past validation into SQL and the updater.
const scalar = fc.oneof(
  fc.integer({ min: -5, max: 25 }),
  fc.constantFrom<unknown>('u1', 'a', '1', null, true, 2.5),
);
const sane = fc.oneof(
  scalar,
  fc.record({ $gt: scalar }),
  fc.record({ $lte: scalar }),
  fc.record({ $ne: scalar }),
  fc.record({ $in: fc.array(scalar, { maxLength: 3 }) }),
  fc.record({ $nin: fc.array(scalar, { maxLength: 3 }) }),
  fc.record({ $exists: fc.boolean() }),
  fc.record({ $type: fc.constantFrom<unknown>('string', 'number', 'array', 'object', 2, 'null') }),
  fc.record({ $regex: fc.constantFrom('^u', '1$', 'a|b', "'", '\\d'), $options: fc.constantFrom('', 'i') }),
  fc.record({ $size: fc.nat(3) }),
  fc.record({ $all: fc.array(scalar, { minLength: 1, maxLength: 2 }) }),
  fc.record({ $elemMatch: fc.oneof(fc.record({ $gt: scalar }), fc.record({ z: scalar })) }),
  fc.record({ $not: fc.record({ $gt: scalar }) }),
  fc.record({ $mod: fc.tuple(fc.integer({ min: 1, max: 5 }), fc.nat(4)) }),
);
export const saneQuery = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELDS), sane, { minKeys: 1, maxKeys: 3 }),
  fc.record({
    $or: fc.array(fc.dictionary(fc.constantFrom(...FIELDS), sane, { minKeys: 1, maxKeys: 2 }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
);
export const saneUpdate = fc.oneof(
  fc.record({
    $set: fc.dictionary(fc.constantFrom(...FIELDS, 'new.field'), scalar, { minKeys: 1, maxKeys: 2 }),
  }),
  fc.record({
    $inc: fc.dictionary(fc.constantFrom('level', 'nested.x', 'count'), fc.integer({ min: -3, max: 3 }), {
      minKeys: 1,
    }),
  }),
  fc.record({ $push: fc.dictionary(fc.constantFrom('tags', 'list'), scalar, { minKeys: 1, maxKeys: 1 }) }),
  fc.record({
    $pull: fc.dictionary(fc.constantFrom('tags'), fc.oneof(scalar, fc.record({ $gt: scalar })), {
      minKeys: 1,
      maxKeys: 1,
    }),
  }),
  fc.record({
    $unset: fc.dictionary(fc.constantFrom(...FIELDS), fc.constant(''), { minKeys: 1, maxKeys: 1 }),
  }),
  fc.record({ $rename: fc.constant({ userName: 'name' }) }),
  fc.dictionary(fc.constantFrom('a', 'b', 'userName'), scalar, { maxKeys: 2 }),
);
const UPDATE_OPS = [
  '$set',
  '$unset',
  '$inc',
  '$mul',
  '$min',
  '$max',
  '$push',
  '$addToSet',
  '$pull',
  '$pop',
  '$rename',
];
export const plausibleUpdate = fc.oneof(
  fc.dictionary(
    fc.constantFrom(...UPDATE_OPS, '$currentDate', '$setOnInsert', '$bit'),
    fc.dictionary(field, operand, { maxKeys: 2 }),
    {
      minKeys: 1,
      maxKeys: 3,
    },
  ),
  fc.dictionary(field, operand, { maxKeys: 3 }),
);
const plausibleFind = fc.record(
  {
    query: fc.oneof(saneQuery, saneQuery, plausibleQuery),
    sort: fc.dictionary(field, fc.constantFrom<unknown>(1, -1, 0, '1', true), { maxKeys: 2 }),
    fields: fc.dictionary(field, fc.constantFrom<unknown>(1, 0, true, { $slice: 1 }), { maxKeys: 2 }),
    skip: fc.oneof(fc.nat(30), leaf),
    limit: fc.oneof(fc.nat(30), leaf),
  },
  { requiredKeys: [] },
);
const deep = fc.integer({ min: 90, max: 400 }).map((n) => `${'{"a":['.repeat(n)}1${']}'.repeat(n)}`);
const findBody = fc.record(
  { query: hostile, fields: hostile, sort: hostile, skip: hostile, limit: hostile },
  { requiredKeys: [] },
);
export const anyBody = fc.oneof(hostile, findBody, deep, plausibleFind, plausibleFind);
