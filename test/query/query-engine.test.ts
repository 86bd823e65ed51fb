// Unit tests of the query engine: parse errors, extended JSON, key encoding against SQL, regex translation.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../../src/errors.js';
import { docArb, scalarArb } from '../../src/query/arbitraries.test-util.js';
import { matchesFilter, parseFilter } from '../../src/query/filter.js';
import { parseFindOptions } from '../../src/query/find-options.js';
import { parseIndexKeys } from '../../src/query/indexes.js';
import { encodeKey } from '../../src/query/key-encoding.js';
import { translateRegex } from '../../src/query/regex.js';
import { parseSort } from '../../src/query/sort.js';
import {
  compareValues,
  fromStored,
  fromWire,
  idKey,
  ObjectId,
  parseWire,
  storedText,
  toStored,
  toWire,
  type Value,
} from '../../src/query/values.js';
import { STORES, type TestStore } from './test-store.test-util.js';

function errorOf(fn: () => unknown): { status: number; code: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (isPlaybaseError(e)) return { status: e.status, code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a PlaybaseError');
}

describe('parse errors', () => {
  it('$where at top level → 400 QUERY_UNKNOWN_OPERATOR naming it', () => {
    expect(errorOf(() => parseFilter({ $where: 'this.a' }))).toEqual({
      status: 400,
      code: 'QUERY_UNKNOWN_OPERATOR',
      message: 'Unsupported query operator $where',
    });
  });
  // $expr and the bitwise operators are supported (residual filters, docs/query-engine.md).
  it.each([['$text'], ['$near'], ['$jsonSchema']])('field operator %s → 400 naming it', (op) => {
    const err = errorOf(() =>
      parseFilter(op === '$text' || op === '$jsonSchema' ? { [op]: {} } : { a: { [op]: 1 } }),
    );
    expect(err.code).toBe('QUERY_UNKNOWN_OPERATOR');
    expect(err.message).toContain(op);
  });
  it.each([
    [{ 'a..b': 1 }, 'QUERY_BAD_FIELD_PATH'],
    [{ '': 1 }, 'QUERY_BAD_FIELD_PATH'],
    [{ 'a.$b': 1 }, 'QUERY_BAD_FIELD_PATH'],
    [{ a: { $gt: 1, b: 2 } }, 'QUERY_BAD_OPERAND'],
    [{ a: { $in: 5 } }, 'QUERY_BAD_OPERAND'],
    [{ a: { $mod: [0, 1] } }, 'QUERY_BAD_OPERAND'],
    [{ a: { $size: -1 } }, 'QUERY_BAD_OPERAND'],
    [{ a: { $options: 'i' } }, 'QUERY_BAD_OPERAND'],
    [{ a: { $type: 'nope' } }, 'QUERY_BAD_OPERAND'],
    [{ $and: [] }, 'QUERY_BAD_OPERAND'],
    [{ a: { $regex: 'a(?=b)' } }, 'QUERY_BAD_REGEX'],
    [{ a: { $regex: 'a', $options: 'u' } }, 'QUERY_BAD_REGEX'],
    [{ a: { $numberDecimal: '1.5' } }, 'QUERY_BAD_VALUE'],
    [{ a: { b: { $gt: 1 } } }, 'QUERY_BAD_VALUE'],
  ])('%j → 400 %s', (filter, code) => {
    const err = errorOf(() => parseFilter(filter));
    expect(err).toMatchObject({ status: 400, code });
  });
  it('sort and index keys with a direction other than 1 / -1 → 400', () => {
    expect(errorOf(() => parseSort({ a: 2 })).code).toBe('QUERY_BAD_SORT');
    expect(errorOf(() => parseIndexKeys({ a: 'text' })).code).toBe('QUERY_BAD_INDEX_KEYS');
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`f${i}`, 1]));
    expect(errorOf(() => parseIndexKeys(tooMany)).code).toBe('QUERY_BAD_INDEX_KEYS');
  });
  it('limit absent, 0 or above 10000 → 10000 (capped, as prior art did); negative skip, fractional limit → 400', () => {
    expect(parseFindOptions({}).limit).toBe(10_000);
    expect(parseFindOptions({ limit: 0, skip: 5 })).toMatchObject({ limit: 10_000, skip: 5 });
    expect(parseFindOptions({ limit: 20 }).limit).toBe(20);
    expect(parseFindOptions({ limit: 10_001 }).limit).toBe(10_000);
    expect(parseFindOptions({ limit: 1e12 }).limit).toBe(10_000);
    expect(errorOf(() => parseFindOptions({ skip: -1 })).code).toBe('QUERY_BAD_FIND_OPTION');
    expect(errorOf(() => parseFindOptions({ limit: 1.5 })).code).toBe('QUERY_BAD_FIND_OPTION');
  });
  it("MongoDB's other find options: hint, comment, maxTimeMS, batchSize → accepted; bad values → 400", () => {
    const o = parseFindOptions({ hint: 'level_1', comment: { who: 'me' }, maxTimeMS: 50, batchSize: 10 });
    expect(o).toMatchObject({ hint: { kind: 'name', name: 'level_1' }, maxTimeMs: 50 });
    expect(parseFindOptions({ hint: { level: -1 } }).hint).toMatchObject({ kind: 'keys' });
    expect(parseFindOptions({ hint: { $natural: 1 } }).hint).toEqual({ kind: 'natural' });
    expect(parseFindOptions({ maxTimeMS: 0 }).maxTimeMs).toBeUndefined();
    for (const bad of [
      { hint: '' },
      { hint: 5 },
      { hint: { level: 2 } },
      { hint: [] },
      { maxTimeMS: -1 },
      { maxTimeMS: '10' },
      { batchSize: -1 },
      { batchSize: 1.5 },
    ]) {
      expect(errorOf(() => parseFindOptions(bad)).code, JSON.stringify(bad)).toBe('QUERY_BAD_FIND_OPTION');
    }
  });
});

describe('regular expressions in $in and $nin; $comment', () => {
  const re = (pattern: string, options = '') => ({ $regularExpression: { pattern, options } });
  const match = (filter: unknown, doc: Record<string, unknown>) =>
    matchesFilter(parseFilter(filter), doc as never);

  it('$in with a regex → an element equal to a value or matching a regex; both extended JSON forms', () => {
    const f = { a: { $in: [re('^ap'), 5] } };
    expect(
      [{ a: 'apple' }, { a: 5 }, { a: 'banana' }, { a: ['x', 'apricot'] }, {}].map((d) => match(f, d)),
    ).toEqual([true, true, false, true, false]);
    expect(match({ a: { $in: [{ $regex: '^AP', $options: 'i' }] } }, { a: 'apple' })).toBe(true);
    expect(match({ a: { $in: [re('^AP', 'i')] } }, { a: 'apple' })).toBe(true);
  });

  it('$nin with a regex → no element equal to a value nor matching a regex (missing matches)', () => {
    const f = { a: { $nin: [re('^ap'), 5] } };
    expect(
      [{ a: 'apple' }, { a: 5 }, { a: 'banana' }, { a: ['x', 'apricot'] }, {}].map((d) => match(f, d)),
    ).toEqual([false, false, true, false, true]);
  });

  it('a malformed regex element, or a regex in $in inside $elemMatch → 400 naming $in', () => {
    for (const bad of [
      { a: { $in: [{ $regularExpression: { pattern: 1, options: '' } }] } },
      { a: { $in: [{ $regularExpression: { pattern: 'a' } }] } },
      { a: { $in: [{ $regex: 'a', x: 1 }] } },
      { a: { $in: [{ $regex: '(' }] } },
      { a: { $elemMatch: { $in: [re('a')] } } },
    ]) {
      expect(errorOf(() => parseFilter(bad)).status, JSON.stringify(bad)).toBe(400);
    }
  });

  it('$comment at the top → accepted whatever its value, matching as if absent', () => {
    expect(match({ $comment: 'why', a: 1 }, { a: 1 })).toBe(true);
    expect(match({ $comment: { any: ['thing'] }, a: 1 }, { a: 2 })).toBe(false);
  });
});

describe('extended JSON values', () => {
  it('wire → value → wire keeps types: ObjectId, long, date, NaN', () => {
    const wire = {
      o: { $oid: '65a000000000000000000002' },
      l: { $numberLong: '9007199254740993' },
      d: { $date: '2024-01-02T03:04:05.678Z' },
      n: { $numberDouble: 'NaN' },
      i: { $numberInt: '7' },
      arr: [1.5, 'x', null, true],
    };
    const v = fromWire(wire) as Record<string, Value>;
    expect(v.o).toBeInstanceOf(ObjectId);
    expect(v.l).toBe(9007199254740993n);
    expect(toWire(v)).toEqual({ ...wire, i: 7 });
    expect(toWire(fromWire({ d: { $date: { $numberLong: '0' } } }))).toEqual({
      d: { $date: '1970-01-01T00:00:00.000Z' },
    });
  });
  it('$-prefixed keys, NUL and unsupported types → 400 QUERY_BAD_VALUE naming the path', () => {
    expect(errorOf(() => parseWire('{"a":{"$set":1}}')).message).toContain('a.$set');
    expect(errorOf(() => fromWire({ a: 'x\u0000' })).code).toBe('QUERY_BAD_VALUE');
    expect(errorOf(() => fromWire({ b: [{ $binary: {} }] })).message).toContain('b.0');
  });
  it('stored form round-trips and keeps field order', () => {
    fc.assert(
      fc.property(docArb(true), (doc) => {
        expect(toWire(fromStored(JSON.parse(storedText(doc))))).toEqual(toWire(doc));
      }),
    );
    const doc = { zz: 1, a: { y: 1, x: 2 } };
    expect(Object.keys(fromStored(toStored(doc)) as object)).toEqual(['zz', 'a']);
  });
  it('idKey: "5" and 5 differ; ObjectIds are canonical', () => {
    expect(idKey('5')).toBe('"5"');
    expect(idKey(5)).toBe('{"$numberInt":"5"}');
    expect(idKey(ObjectId.createFromHexString('65a000000000000000000002'))).toBe(
      '{"$oid":"65a000000000000000000002"}',
    );
  });
  it('compareValues: longs beyond 2^53 exact against doubles; strings by code point', () => {
    expect(compareValues(2n ** 60n + 1n, 2 ** 60)).toBe(1);
    expect(compareValues(2n ** 60n, 2 ** 60)).toBe(0);
    expect(compareValues(Number.NaN, Number.NEGATIVE_INFINITY)).toBe(-1);
    expect(compareValues('\uff21', '\u{1f600}')).toBe(-1);
    expect(compareValues(null, undefined)).toBe(0);
  });
  it('encodeKey order = compareValues order, equality = equality', () => {
    const value = fc.oneof(
      scalarArb(true),
      fc.array(scalarArb(true), { maxLength: 3 }),
      fc.record({ a: scalarArb(true), b: scalarArb(true) }, { requiredKeys: [] }),
    );
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(Math.sign(Buffer.compare(encodeKey(a), encodeKey(b)))).toBe(Math.sign(compareValues(a, b)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe.each(STORES)('SQL helpers on $name', ({ open }) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('pb_enc(stored form) = encodeKey(value) for generated values', async () => {
    const values = fc.sample(fc.oneof(scalarArb(true), docArb(true)), 400);
    const rows = await store.query<{ k: string }>(
      `SELECT encode(pb_enc(x), 'hex') AS k FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(x, o) ORDER BY o`,
      [`[${values.map((v) => storedText(v)).join(',')}]`],
    );
    expect(rows.map((r) => r.k)).toEqual(values.map((v) => encodeKey(v).toString('hex')));
  });

  it('translated regexes → PostgreSQL and JavaScript agree on every subject', async () => {
    const patterns: Array<[string, string]> = [
      ['^a.c$', ''],
      ['^a.c$', 's'],
      ['b$', ''],
      ['^b', 'm'],
      ['b$', 'm'],
      ['^$', 'm'],
      ['K', 'i'],
      ['[a-c]+x', 'i'],
      ['\\d{2,3}', ''],
      ['\\bis\\b', ''],
      ['a b # comment', 'x'],
      ['[^\\n]+', ''],
      ['\\Aab\\z', ''],
      ['ab\\Z', ''],
      ['(?:ab|cd)*?e', ''],
      ['\\x41\\x{1F600}', ''],
      ['[\\]\\-]', ''],
      ['a{2}', ''],
      ['\\s', ''],
      ['\\.\\*', ''],
    ];
    const subjects = [
      'abc',
      'a\nc',
      'ab\n',
      'b\nb',
      '\n',
      'K',
      '\u212a',
      'ſ',
      'S',
      'AbCx',
      '123',
      'this is it',
      'ab',
      'ab\nx',
      'cdabe',
      'A😀',
      ']',
      '-',
      'aa',
      ' ',
      '.*',
      'x\n',
    ];
    for (const [p, o] of patterns) {
      const re = translateRegex(p, o);
      const rows = await store.query<{ m: boolean }>(
        `SELECT s ~ $1 AS m FROM unnest($2::text[]) WITH ORDINALITY AS t(s, i) ORDER BY i`,
        [re.sql, subjects],
      );
      const js = subjects.map((s) => new RegExp(re.js, 'u').test(s));
      expect({ p, o, m: rows.map((r) => r.m) }).toEqual({ p, o, m: js });
    }
    // PCRE semantics that JavaScript's own flags would get wrong:
    const m = (p: string, o: string, s: string) => new RegExp(translateRegex(p, o).js, 'u').test(s);
    expect(m('d$', '', 'end\n')).toBe(true);
    expect(m('^$', 'm', 'end\n')).toBe(false);
    expect(m('a.c', '', 'a\nc')).toBe(false);
    expect(m('k', 'i', '\u212a')).toBe(true);
  });
});
