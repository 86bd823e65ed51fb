// Differential test of positional updates ($, $[], $[<identifier>] with arrayFilters) against mingo's updater,
// on generated documents whose arrays hold numbers of mixed kinds, strings, nulls, documents and gaps.
// Every mismatch must be a known deviation (docs/query-engine-js.md, rows PU1-PU4).
import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { matchesFilter, parseFilter } from './filter.js';
import { matchPosition } from './match-position.js';
import { sameMapped, show, toMingo } from './mingo-oracle.test-util.js';
import { applyUpdate, parseUpdate, positionFor } from './update.js';
import type { Doc, Value } from './values.js';

const NOW = new Date('2024-01-01T00:00:00Z');

const scalar = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -2.25, 2147483647),
  fc.constantFrom('x', 'y', ''),
  fc.constant(null),
);
const sub = fc.record({ b: scalar, c: scalar }, { requiredKeys: [] }).map((r) => r as Doc);
const element = fc.oneof({ weight: 3, arbitrary: scalar }, { weight: 2, arbitrary: sub });
const docArb = fc
  .record(
    {
      _id: fc.integer({ min: 0, max: 100 }),
      a: fc.oneof(
        { weight: 6, arbitrary: fc.array(element, { maxLength: 5 }) },
        { weight: 1, arbitrary: scalar },
      ),
      x: scalar,
    },
    { requiredKeys: ['_id'] },
  )
  .map((r) => r as Doc);

const queryArb: fc.Arbitrary<Doc> = fc.oneof(
  scalar.map((v) => ({ a: v })),
  scalar.map((v) => ({ a: { $gte: v } })),
  scalar.map((v) => ({ a: { $lt: v } })),
  fc.array(scalar, { minLength: 1, maxLength: 3 }).map((v) => ({ a: { $in: v } })),
  scalar.map((v) => ({ 'a.b': v })),
  scalar.map((v) => ({ 'a.c': { $gt: v } })),
  scalar.map((v) => ({ a: { $elemMatch: { b: { $gte: v } } } })),
  fc.tuple(scalar, scalar).map(([v, w]) => ({ a: v, x: w })),
);
const filterArb: fc.Arbitrary<Doc> = fc.oneof(
  scalar.map((v) => ({ e: v })),
  scalar.map((v) => ({ e: { $gt: v } })),
  scalar.map((v) => ({ e: { $ne: v } })),
  scalar.map((v) => ({ 'e.b': v })),
  fc.tuple(scalar, scalar).map(([v, w]) => ({ 'e.b': { $gte: v }, 'e.c': { $ne: w } })),
);

type Case = { doc: Doc; query: Doc; update: Doc; arrayFilters: Doc[] | undefined };

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  // $: the element the query matched.
  fc.record({
    doc: docArb,
    query: queryArb,
    update: fc.oneof(
      scalar.map((w) => ({ $set: { 'a.$': w } })),
      scalar.map((w) => ({ $set: { 'a.$.c': w } })),
      fc.constant({ $unset: { 'a.$': '' } }),
      fc.constant({ $inc: { 'a.$': 2 } }),
    ),
    arrayFilters: fc.constant(undefined),
  }),
  // $[]: every element.
  fc.record({
    doc: docArb,
    query: fc.constant({}),
    update: fc.oneof(
      scalar.map((w) => ({ $set: { 'a.$[]': w } })),
      scalar.map((w) => ({ $set: { 'a.$[].b': w } })),
      fc.constant({ $inc: { 'a.$[]': 1 } }),
      fc.constant({ $mul: { 'a.$[].c': 2 } }),
    ),
    arrayFilters: fc.constant(undefined),
  }),
  // $[e]: the elements the filter matches.
  fc.record({
    doc: docArb,
    query: fc.constant({}),
    update: fc.oneof(
      scalar.map((w) => ({ $set: { 'a.$[e]': w } })),
      scalar.map((w) => ({ $set: { 'a.$[e].c': w } })),
      fc.constant({ $inc: { 'a.$[e]': 5 } }),
    ),
    arrayFilters: filterArb.map((f) => [f]),
  }),
);

type Outcome = { ok: true; doc: unknown } | { ok: false; code: string };

function ours(c: Case): Outcome {
  try {
    const spec = parseUpdate(c.update, c.arrayFilters);
    const position = positionFor(spec, parseFilter(c.query), c.doc);
    return { ok: true, doc: toMingo(applyUpdate(c.doc, spec, { now: NOW, isInsert: false, position }).doc) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

function theirs(c: Case): Outcome {
  const copy = toMingo(c.doc) as Record<string, unknown>;
  try {
    mingoUpdate(copy, c.update as never, c.arrayFilters as never, c.query as never, { cloneMode: 'deep' });
    return { ok: true, doc: copy };
  } catch (e) {
    return { ok: false, code: (e as Error).message };
  }
}

const arrayOf = (doc: Doc) => (Array.isArray(doc.a) ? (doc.a as Value[]) : undefined);

/** The known deviation explaining a mismatch, or null. */
function deviation(c: Case, o: Outcome, t: Outcome): string | null {
  // PU1: MongoDB refuses an operator on the wrong type or a path through a scalar (and $[] on a missing or
  // non-array field, and $ without a recorded position); mingo skips the element or the whole update.
  if (!o.ok && ['UPDATE_TYPE_MISMATCH', 'UPDATE_PATH_NOT_VIABLE'].includes(o.code)) return 'PU1';
  const arr = arrayOf(c.doc);
  const noPosition = show(c.update).includes('a.$"') || show(c.update).includes('a.$.');
  if (!o.ok && o.code === 'UPDATE_BAD_POSITIONAL') {
    if (arr === undefined) return 'PU1';
    if (noPosition && matchPosition(parseFilter(c.query), c.doc) === undefined) return 'PU1';
    return null;
  }
  if (!o.ok || !t.ok) return null;
  // PU2: mingo's $[] and $[e] skip elements its setter cannot reach (a scalar for a.$[].b); MongoDB refuses
  // (covered by P1). Its $unset of an element deletes it (leaving a hole); MongoDB sets it to null.
  if (c.update.$unset !== undefined) return 'PU2';
  // PU3: a null operand in the query or an array filter: MongoDB's null also matches a missing field ($gte and
  // $lte null too), mingo's does not (filter deviation 5 of docs/query-engine.md).
  if (show([c.query, c.arrayFilters]).includes('null')) return 'PU3';
  return null;
}

describe('positional updates: differential against mingo', () => {
  it('generated documents × $, $[], $[e] updates → same as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0, skipped: 0 };
    fc.assert(
      fc.property(caseArb, (c) => {
        // mingo applies its condition itself; MongoDB updates only documents the query matched.
        if (!matchesFilter(parseFilter(c.query), c.doc)) {
          counts.skipped = (counts.skipped ?? 0) + 1;
          return;
        }
        const o = ours(c);
        const t = theirs(c);
        if ((!o.ok && !t.ok) || (o.ok && t.ok && sameMapped(o.doc, t.doc, { ignoreKeyOrder: true }))) {
          counts.same = (counts.same ?? 0) + 1;
          return;
        }
        const why = deviation(c, o, t);
        if (why === null) throw new Error(`mismatch\n case ${show(c)}\n ours ${show(o)}\n mingo ${show(t)}`);
        counts[why] = (counts[why] ?? 0) + 1;
      }),
      { numRuns: 6000, seed: 20241124 },
    );
    expect(counts.same).toBeGreaterThan(1800);
  });
});
