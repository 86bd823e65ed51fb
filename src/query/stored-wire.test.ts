// The stored text → wire JSON scanner (stored-wire.ts) against the parse-and-walk path and toWire, byte for
// byte: generated documents over every value type, field name and order, as storedText writes them and as
// PostgreSQL prints them (test/query/stored-wire-store.test.ts reads them back from both stores); and the
// texts the scanner must leave to the walk.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docArb } from './arbitraries.test-util.js';
import { storedText, storedTextToWireParsed } from './stored-form.js';
import { isoText, scanStoredText, storedTextToWire } from './stored-wire.js';
import { wireDocArb } from './stored-wire-arbitraries.test-util.js';
import { type Doc, toWire } from './values.js';

const wire = (doc: Doc) => JSON.stringify(toWire(doc));

describe('storedTextToWire', () => {
  it('generated documents → the same wire JSON as toWire and the walk', () => {
    fc.assert(
      fc.property(docArb(true), (doc: Doc) => {
        const withExtras: Doc = {
          ...doc,
          when: new Date(1_700_000_000_123),
          old: new Date(-62_198_755_200_000),
          ordered: { z: 1, a: { y: [new Date(0), { b: 1, a: 2 }] } },
        };
        const text = storedText(withExtras);
        expect(storedTextToWire(text)).toBe(wire(withExtras));
        expect(storedTextToWireParsed(text)).toBe(wire(withExtras));
      }),
      { numRuns: 300 },
    );
  });

  it('every value type, unicode, any field order: the scanner answers alone, the same bytes', () => {
    fc.assert(
      fc.property(wireDocArb(false), (doc: Doc) => {
        const text = storedText(doc);
        expect(scanStoredText(text)).toBe(wire(doc));
        expect(storedTextToWireParsed(text)).toBe(wire(doc));
      }),
      { numRuns: 1000 },
    );
  });

  it('field names JavaScript moves ("0", "10") or keeps apart (__proto__): the same bytes as the walk', () => {
    fc.assert(
      fc.property(wireDocArb(true), (doc: Doc) => {
        const text = storedText(doc);
        expect(storedTextToWire(text)).toBe(storedTextToWireParsed(text));
      }),
      { numRuns: 500 },
    );
    // A name that is an array index is left to the walk, which writes it first.
    expect(scanStoredText('{"b": 1, "0": 2}')).toBeUndefined();
    expect(storedTextToWire('{"b": 1, "0": 2}')).toBe('{"0":2,"b":1}');
  });

  it('numbers as PostgreSQL prints them: written as JavaScript prints the double', () => {
    const cases: Array<[string, string]> = [
      ['{"a": 1.50}', '{"a":1.5}'],
      ['{"a": 1000000000000000000000}', '{"a":1e+21}'],
      ['{"a": 0.0000005}', '{"a":5e-7}'],
      ['{"a": 123456789012345678}', '{"a":123456789012345680}'],
      ['{"a": 9007199254740993}', '{"a":9007199254740992}'],
      ['{"a": 100000000000000}', '{"a":100000000000000}'],
      ['{"a": -0}', '{"a":0}'],
      ['{"a": -0.0}', '{"a":0}'],
      ['{"a": 1E+2}', '{"a":100}'],
      ['{"a": 1e400}', '{"a":null}'],
      ['{"a": [1, -2, 3.0]}', '{"a":[1,-2,3]}'],
    ];
    for (const [stored, expected] of cases) {
      expect(storedTextToWireParsed(stored)).toBe(expected);
      expect(scanStoredText(stored)).toBe(expected);
    }
  });

  it('texts the scanner leaves to the walk, with the walk’s answer', () => {
    const unsure = [
      '{"a": "\\u0041"}', // an escape JSON.stringify would not write
      '{"a": "\\/"}',
      '{"a": "\\u000a"}',
      '{"$o": ["b", "$o", "a"], "a": 1, "b": 2}', // "$o" listing itself
      '{"$o": "ab", "a": 1, "b": 2}', // "$o" not a list
      '{"$o": ["a"]}',
      '{"x": {"$oid": 5}}', // a tag holding a non-string
      '{"x": {"$date": "2020-01-01"}}',
      '{"x": {"$numberLong": {"$date": 0}}}',
    ];
    for (const text of unsure) {
      expect(scanStoredText(text), text).toBeUndefined();
      expect(storedTextToWire(text)).toBe(storedTextToWireParsed(text));
    }
    // Not JSON: the walk's JSON.parse refuses it.
    for (const text of ['{"a": 1} x', '{"a": 01}', '{"a": tru}', '{"a" 1}']) {
      expect(scanStoredText(text), text).toBeUndefined();
      expect(() => storedTextToWire(text)).toThrow(SyntaxError);
    }
  });

  it('"$o": listed order, names it lists twice or lacks, members it does not list', () => {
    const cases = [
      '{"a": 1, "b": 2, "$o": ["b", "a"]}',
      '{"$o": ["b", "b", "a"], "a": 1, "b": 2}',
      '{"$o": ["c", "b"], "a": 1, "b": 2}',
      '{"$o": [], "a": 1}',
      '{"a": {"$o": ["y", "x"], "x": {"$date": -1}, "y": [{"$o": ["d", "c"], "c": 1, "d": 2}]}}',
      '{"x": {"$date": 8640000000000001}}',
      '{"x": {"$date": 253402300800000}}',
      '{"x": {"$date": 1.5}}',
      '{"x": {"$other": {"$date": 0}}, "$y": 1}',
    ];
    for (const text of cases) expect(storedTextToWire(text), text).toBe(storedTextToWireParsed(text));
  });

  it('isoText is Date.prototype.toISOString over years 1970-9999', () => {
    const bounds = [0, 1, 999, 86_399_999, 951_782_400_000, 4_107_542_399_999, 253_402_300_799_999];
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...bounds), fc.integer({ min: 0, max: 253_402_300_799_999 })),
        (ms) => {
          expect(isoText(ms)).toBe(new Date(ms).toISOString());
        },
      ),
      { numRuns: 5000 },
    );
  });
});
