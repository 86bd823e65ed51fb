// Differential test of $expr and the bitwise query operators: generated documents (arrays, nulls, missing
// fields, ints, doubles and longs) and filters through matchesFilter and mingo's Query. A mismatch must be a
// known deviation (docs/query-engine-js.md, rows B and E1/E2).
import fc from 'fast-check';
import { Query } from 'mingo';
import { describe, expect, it } from 'vitest';
import { docArb } from './arbitraries.test-util.js';
import { matchesFilter, parseFilter } from './filter.js';
import { show, toMingo } from './mingo-oracle.test-util.js';
import { walkPath } from './path-walk.js';
import { type Doc, getPath, toWire, type Value } from './values.js';

const FIELDS = ['$n', '$s', '$mixed', '$nested.p.q', '$arr', '$gone'];
const operand = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIELDS) },
  { weight: 1, arbitrary: fc.integer({ min: -3, max: 3 }) },
);
const cmp = fc.constantFrom('$eq', '$ne', '$gt', '$gte', '$lt', '$lte');
const exprArb: fc.Arbitrary<Value> = fc.oneof(
  fc.record({ op: cmp, a: operand, b: operand }).map(({ op, a, b }) => ({ [op]: [a, b] }) as Value),
  fc.constantFrom(...FIELDS),
  fc
    .tuple(cmp, operand, operand, cmp, operand, operand)
    .map(([o1, a, b, o2, c, d]) => ({ $and: [{ [o1]: [a, b] }, { $not: [{ [o2]: [c, d] }] }] }) as Value),
  fc
    .record({ a: fc.constantFrom('$n', '$nested.p.q', 2), b: fc.integer({ min: 1, max: 3 }) })
    .map(({ a, b }) => ({ $gt: [{ $add: [{ $ifNull: [a, 0] }, b] }, 2] }) as Value),
);

const BITS = ['$bitsAllSet', '$bitsAnySet', '$bitsAllClear', '$bitsAnyClear'];
const bitsArb = fc.record({
  path: fc.constantFrom('n', 'mixed', 'arr', 'nested.p.q', 'gone'),
  op: fc.constantFrom(...BITS),
  mask: fc.oneof(
    fc.integer({ min: 0, max: 15 }),
    fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
  ),
});

const filterArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  exprArb.map((e) => ({ $expr: e })),
  bitsArb.map(({ path, op, mask }) => ({ [path]: { [op]: mask } })),
  fc
    .tuple(exprArb, bitsArb)
    .map(([e, { path, op, mask }]) => ({ $or: [{ $expr: e }, { [path]: { [op]: mask } }] })),
  bitsArb.map(({ path, op, mask }) => ({ [path]: { $not: { [op]: mask } } })),
);

/** The known deviation explaining a mismatch, or null. */
function deviation(filter: Record<string, unknown>, doc: Doc): string | null {
  const text = show(filter);
  if (text.includes('$bits')) {
    const path = Object.keys(filter)[0] === '$or' ? undefined : Object.keys(filter)[0];
    const values = path === undefined ? [] : walkPath(doc, path.split('.'), 'traverse');
    // B1: mingo applies JavaScript's & to any value (a string or null is 0: "all clear"); MongoDB tests only
    // numbers (and BinData). B2: mingo truncates doubles and wraps past 32 bits; MongoDB matches only integral
    // numbers, as 64-bit two's complement.
    if (
      path === undefined ||
      values.some((v) => typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) >= 2 ** 31)
    )
      return 'B';
  }
  // E1/E2 of docs/query-engine-js.md: mingo's expression comparisons treat missing as null and order mixed
  // types by JavaScript's rules; MongoDB compares in BSON order, missing below null. Only cases where a
  // compared field holds something other than a number (or nothing) may differ.
  if (text.includes('$expr')) {
    const fields = [...text.matchAll(/"\$([a-z][a-z.]*)"/g)].map((m) => m[1]!);
    const values = fields.map((f) => getPath(doc, f));
    if (values.some((v) => typeof v !== 'number')) return 'E1/E2';
  }
  return null;
}

describe('$expr and bitwise operators: differential against mingo', () => {
  it('generated documents × filters → same answer as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0 };
    fc.assert(
      fc.property(fc.array(docArb(false), { minLength: 4, maxLength: 8 }), filterArb, (docs, filter) => {
        const node = parseFilter(toWire(filter as Value));
        const query = new Query(filter as never, {});
        for (const doc of docs) {
          const ours = matchesFilter(node, doc);
          const theirs = query.test(toMingo(doc) as never);
          if (ours === theirs) {
            counts.same = (counts.same ?? 0) + 1;
            continue;
          }
          const why = deviation(filter, doc);
          if (why === null)
            throw new Error(
              `mismatch\n filter ${show(filter)}\n doc ${show(doc)}\n ours ${ours} mingo ${theirs}`,
            );
          counts[why] = (counts[why] ?? 0) + 1;
        }
      }),
      { numRuns: 1500, seed: 20241124 },
    );
    expect(counts.same).toBeGreaterThan(6000);
  });
});
