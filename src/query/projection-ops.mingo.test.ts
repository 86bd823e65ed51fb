// Differential test of find's projection operators (MongoDB 4.4+): $slice, $elemMatch and aggregation
// expressions, alone or with an inclusion or exclusion, over generated documents (arrays of numbers of mixed
// kinds, strings, nulls, documents; missing fields), through applyProjection and mingo's find. Field order is
// compared loosely (P3/A6 of docs/query-engine-js.md); every other mismatch must be a known deviation.
// mingo has no positional projection (`field.$`): projection-ops.test.ts pins it.
import fc from 'fast-check';
import { find } from 'mingo';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { docArb, sameMapped, scalarArb, show, toMingo } from './mingo-oracle.test-util.js';
import { applyProjection, parseProjection } from './projection.js';
import type { Doc, Value } from './values.js';

const NOW = new Date('2024-01-01T00:00:00Z');
const scalar = scalarArb(true).filter((v) => typeof v !== 'bigint' && !(v instanceof Date));
const sliceArg = fc.oneof(
  fc.integer({ min: -4, max: 4 }),
  fc.tuple(fc.integer({ min: -4, max: 4 }), fc.integer({ min: 1, max: 3 })),
);
const elemMatchArg = fc.oneof(
  scalar.map((v) => ({ $gte: v })),
  scalar.map((v) => ({ a: v })),
  scalar.map((v) => ({ b: { $ne: v } })),
);
const exprArg = fc.oneof(
  fc.constantFrom<Value>('$a', '$b.a', 'lit', [1, '$c']),
  fc.constantFrom('$a', '$b', '$c').map((f) => ({ $ifNull: [f, 'none'] }) as Value),
  fc.constantFrom('$a', '$b', '$c').map((f) => ({ $isArray: f }) as Value),
);

type Op = [string, Value, 'slice' | 'elemMatch' | 'expr'];
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc
    .tuple(fc.constantFrom('a', 'b', 'c', 'b.a'), sliceArg)
    .map(([p, s]): Op => [p, { $slice: s } as Value, 'slice']),
  fc
    .tuple(fc.constantFrom('a', 'b', 'c'), elemMatchArg)
    .map(([p, e]): Op => [p, { $elemMatch: e } as Value, 'elemMatch']),
  fc.tuple(fc.constantFrom('x', 'y'), exprArg).map(([p, e]): Op => [p, e, 'expr']),
);

const projectionArb = fc
  .record({ op: opArb, other: fc.option(fc.constantFrom<[string, Value]>(['c', 1], ['c', 0], ['_id', 0])) })
  .map(({ op, other }) => {
    const p: Doc = { [op[0]]: op[1] };
    if (other !== null && other[0] !== op[0]) p[other[0]] = other[1];
    return { p, kind: op[2] };
  });

type Outcome = { ok: true; doc: unknown } | { ok: false; code: string };

function ours(doc: Doc, p: Doc): Outcome {
  try {
    return { ok: true, doc: toMingo(applyProjection(doc, parseProjection(p), NOW)) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

function theirs(doc: Doc, p: Doc): Outcome {
  try {
    const [out] = find([toMingo(doc) as Record<string, unknown>], {}, toMingo(p) as never).all();
    return { ok: true, doc: comparable(out ?? null) };
  } catch (e) {
    return { ok: false, code: (e as Error).message };
  }
}

const comparable = (v: unknown) =>
  JSON.parse(JSON.stringify(v, (_k, x) => (x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x)));

function deviation(p: Doc, kind: string, o: Outcome, t: Outcome): string | null {
  // Q1: mingo refuses $slice beside an exclusion (MongoDB 4.4+ takes it: $slice counts as neither), and the
  // operator form of $elemMatch ({$elemMatch: {$gte: 5}}, "unknown top level operator"), which MongoDB takes.
  const text = show(p);
  if (o.ok && !t.ok && ((kind === 'slice' && text.includes(':0')) || text.includes('"$elemMatch":{"$')))
    return 'Q1';
  // Q2: mingo's $elemMatch matches with its own filter semantics (null also matches missing in MongoDB, mixed
  // types; filter deviation 5) and keeps the field when nothing matches; MongoDB leaves the field out.
  if (kind === 'elemMatch') return 'Q2';
  // Q5: mingo reads a $slice without inclusions as an inclusion (only _id and the field); MongoDB returns every
  // other field ("db.posts.find({}, {comments: {$slice: 3}})" answers the title too).
  if (kind === 'slice' && !Object.values(p).some((v) => v === 1)) return 'Q5';
  // Q3: mingo's $slice on a path through an array of documents (b.a) slices the collected values; MongoDB
  // slices each element's array. With a skip past the end mingo answers the whole array.
  if (kind === 'slice' && (Object.keys(p).some((k) => k.includes('.')) || Array.isArray(Object.values(p)[0])))
    return 'Q3';
  // Q4: expressions: missing fields and literal strings (E1/E12); mingo keeps `undefined`, or reads "lit".
  if (kind === 'expr') return 'Q4';
  return null;
}

describe('projection operators: differential against mingo', () => {
  it('generated documents × $slice, $elemMatch, expressions → same as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0 };
    fc.assert(
      fc.property(docArb(false, 2), projectionArb, (doc, { p, kind }) => {
        const o = ours(doc, p);
        const t = theirs(doc, p);
        if (
          (!o.ok && !t.ok) ||
          (o.ok && t.ok && sameMapped(comparable(o.doc), comparable(t.doc), { ignoreKeyOrder: true }))
        ) {
          counts.same = (counts.same ?? 0) + 1;
          return;
        }
        const why = deviation(p, kind, o, t);
        if (why === null)
          throw new Error(
            `mismatch\n doc ${show(doc)}\n projection ${show(p)}\n ours ${show(o)}\n mingo ${show(t)}`,
          );
        counts[why] = (counts[why] ?? 0) + 1;
      }),
      { numRuns: 3000, seed: 20241124 },
    );
    expect(counts.same).toBeGreaterThan(1500);
  });
});
