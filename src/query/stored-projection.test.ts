// projectStoredText (a plain inclusion projection straight from the stored text) gives the same wire JSON as
// parsing the stored form, applying the projection and writing the result with toWire, for generated
// documents over every value type and field order and generated plain inclusion projections.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docArb } from './arbitraries.test-util.js';
import { applyProjection, parseProjection } from './projection.js';
import { fromStored, storedText } from './stored-form.js';
import { plainInclusion, projectStoredText } from './stored-projection.js';
import { type Doc, toWire } from './values.js';

const NAMES = [
  '_id',
  'n',
  's',
  'mixed',
  'arr',
  'objs',
  'nested',
  'any',
  'when',
  '10',
  '2',
  'gone',
  '__proto__',
];

const projectionArb = fc
  .record({
    fields: fc.uniqueArray(fc.constantFrom(...NAMES.filter((n) => n !== '_id')), { minLength: 1 }),
    id: fc.constantFrom(undefined, 0, 1, true, false),
  })
  .map(({ fields, id }) => {
    const p: Record<string, unknown> = {};
    for (const f of fields) Object.defineProperty(p, f, { value: 1, enumerable: true, writable: true });
    if (id !== undefined) p._id = id;
    return p;
  });

/** The text PostgreSQL gives back for a jsonb value: object keys by UTF-8 length, then bytewise. */
function jsonbText(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(jsonbText).join(', ')}]`;
  const keys = Object.keys(v).sort((a, b) => {
    const [x, y] = [Buffer.from(a), Buffer.from(b)];
    return x.length - y.length || Buffer.compare(x, y);
  });
  const record = v as Record<string, unknown>;
  return `{${keys.map((k) => `${JSON.stringify(k)}: ${jsonbText(record[k])}`).join(', ')}}`;
}

function slow(text: string, fields: unknown): string {
  return JSON.stringify(
    toWire(applyProjection(fromStored(JSON.parse(text)) as Doc, parseProjection(fields))),
  );
}

describe('projectStoredText', () => {
  it('generated documents and plain inclusions → the same wire JSON as applyProjection', () => {
    fc.assert(
      fc.property(docArb(true), projectionArb, fc.boolean(), (doc: Doc, fields, reorder) => {
        const extras: Doc = { when: new Date(1_700_000_000_123), 10: 'ten', 2: { b: 1, a: [2] } };
        Object.defineProperty(extras, '__proto__', { value: 7, enumerable: true, writable: true });
        const full: Doc = { _id: 'x1', ...doc, ...extras };
        // Stored with and without "$o": reversed names are rarely in JSONB's key order.
        const ordered = reorder ? Object.fromEntries(Object.entries(full).reverse()) : full;
        const text = jsonbText(JSON.parse(storedText(ordered as Doc)));
        const keep = plainInclusion(parseProjection(fields));
        expect(keep).toBeDefined();
        expect(projectStoredText(text, keep!)).toBe(slow(text, fields));
      }),
      { numRuns: 400 },
    );
  });

  it('other projections are left to applyProjection', () => {
    for (const fields of [
      { 'nested.p': 1 },
      { arr: { $slice: 1 } },
      { objs: { $elemMatch: { x: 1 } } },
      { 'arr.$': 1 },
      { n: 0 },
      { _id: 0 },
      { total: { $add: ['$n', 1] } },
    ]) {
      expect(plainInclusion(parseProjection(fields))).toBeUndefined();
    }
  });
});
