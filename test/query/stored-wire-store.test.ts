// The stored text → wire scanner (src/query/stored-wire.ts) over texts as each store prints them (doc::text:
// ", " and ": " separators, keys in JSONB order, numbers as numeric prints them): generated documents over
// every value type are written as the store writes them and read back; the scanner's answer is, byte for
// byte, the walk's (storedTextToWireParsed) and toWire's.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docArb } from '../../src/query/arbitraries.test-util.js';
import { storedText, storedTextToWireParsed } from '../../src/query/stored-form.js';
import { scanStoredText, storedTextToWire } from '../../src/query/stored-wire.js';
import { wireDocArb } from '../../src/query/stored-wire-arbitraries.test-util.js';
import { type Doc, toWire } from '../../src/query/values.js';
import { STORES, type TestStore } from './test-store.test-util.js';

const DOCS = [
  ...fc.sample(wireDocArb(false), { numRuns: 400, seed: 23 }),
  ...fc.sample(docArb(true), { numRuns: 200, seed: 5 }),
];
const WITH_INDEX_NAMES = fc.sample(wireDocArb(true), { numRuns: 200, seed: 7 });

for (const { name, open } of STORES) {
  describe(`stored text → wire on ${name}`, () => {
    let db: TestStore;
    beforeAll(async () => {
      db = await open();
    });
    afterAll(async () => {
      await db.close();
    });

    /** Each document written as a find's row is, and its doc::text as the find reads it. */
    async function roundTrip(docs: Doc[], collection: string): Promise<string[]> {
      await db.query(
        `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
         SELECT 'g', 'preview', $1, lpad(n::text, 6, '0'), d::jsonb
         FROM unnest($2::text[]) WITH ORDINALITY AS t(d, n)`,
        [collection, docs.map(storedText)],
      );
      const rows = await db.query<{ doc: string }>(
        `SELECT doc::text AS doc FROM nosql_documents WHERE collection = $1 ORDER BY id`,
        [collection],
      );
      return rows.map((r) => r.doc);
    }

    it('generated documents: the scanner answers alone, the same bytes as the walk and toWire', async () => {
      const texts = await roundTrip(DOCS, 'c1');
      expect(texts).toHaveLength(DOCS.length);
      // The store's text is not storedText's: the scanner is tested on what it will read.
      expect(texts.some((t, i) => t !== storedText(DOCS[i]!))).toBe(true);
      texts.forEach((text, i) => {
        const expected = JSON.stringify(toWire(DOCS[i]!));
        expect(storedTextToWireParsed(text)).toBe(expected);
        expect(scanStoredText(text), text).toBe(expected);
      });
    });

    it('field names JavaScript moves ("0", "10") or keeps apart (__proto__): the same bytes as the walk', async () => {
      const texts = await roundTrip(WITH_INDEX_NAMES, 'c2');
      for (const text of texts) expect(storedTextToWire(text)).toBe(storedTextToWireParsed(text));
    });

    it('numbers, strings and tags as the store prints what other writers put there', async () => {
      const written = [
        '{"a": 1.50, "b": 1e21, "c": 5e-7, "d": 123456789012345678901234567890, "e": -0, "f": 0.1}',
        '{"a": [1.0, 2.500, -3e2, 1E-10, 9007199254740993]}',
        '{"s": "tab\\t nl\\n ctl\\u0001 del\\u007f quote\\" back\\\\ slash\\/ u\\u0041 \\ud83d\\ude00"}',
        '{"x": {"$date": -62198755200000}, "y": {"$date": 253402300800000}, "z": {"$date": 1.5}}',
        '{"$o": ["b", "a"], "a": {"$o": ["y", "x"], "x": 1, "y": 2}, "b": {"$oid": "65a000000000000000000002"}}',
        '{"a": {"$numberLong": "9223372036854775807"}, "b": {"$numberDouble": "NaN"}}',
      ];
      await db.query(
        `INSERT INTO nosql_documents (game_id, stage, collection, id, doc)
         SELECT 'g', 'preview', 'c3', lpad(n::text, 6, '0'), d::jsonb
         FROM unnest($1::text[]) WITH ORDINALITY AS t(d, n)`,
        [written],
      );
      const rows = await db.query<{ doc: string }>(
        `SELECT doc::text AS doc FROM nosql_documents WHERE collection = 'c3' ORDER BY id`,
      );
      for (const { doc } of rows) {
        expect(scanStoredText(doc), doc).toBe(storedTextToWireParsed(doc));
      }
    });
  });
}
