// storedTextToWire (stored text → wire JSON in one pass) gives the same text as parsing the stored form into
// values and writing them with toWire, for generated documents over every value type and field order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docArb } from './arbitraries.test-util.js';
import { storedText, storedTextToWire } from './stored-form.js';
import { type Doc, toWire } from './values.js';

describe('storedTextToWire', () => {
  it('generated documents → the same wire JSON as toWire', () => {
    fc.assert(
      fc.property(docArb(true), (doc: Doc) => {
        const withExtras: Doc = {
          ...doc,
          when: new Date(1_700_000_000_123),
          old: new Date(-62_198_755_200_000),
          ordered: { z: 1, a: { y: [new Date(0), { b: 1, a: 2 }] } },
        };
        expect(storedTextToWire(storedText(withExtras))).toBe(JSON.stringify(toWire(withExtras)));
      }),
      { numRuns: 300 },
    );
  });
});
