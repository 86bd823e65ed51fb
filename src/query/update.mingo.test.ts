// Differential test: generated documents and updates through applyUpdate and through mingo's updater.
// Every mismatch must be one of the known mingo deviations of docs/query-engine-js.md (U0-U9).
import fc from 'fast-check';
import { update as mingoUpdate } from 'mingo';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import {
  docArb,
  fillHoles,
  sameMapped,
  scalarArb,
  show,
  toMingo,
  valueArb,
} from './mingo-oracle.test-util.js';
import { applyUpdate, parseUpdate } from './update.js';
import { equalityKey } from './value-identity.js';
import { type Doc, getPath, isDoc, toWire, type Value } from './values.js';

const PATHS = ['a', 'b', 'c', 'a.b', 'a.c', 'b.a', 'a.0', 'a.1', 'b.2', 'a.0.b', 'c.b.a', '_id'];
const NOW = new Date('2024-01-01T00:00:00Z');

const pathArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c') },
  { weight: 8, arbitrary: fc.constantFrom(...PATHS.slice(3, -1)) },
  { weight: 1, arbitrary: fc.constant('_id') },
);
const value = valueArb(1, false);
const scalar = scalarArb(false);
const number = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(2147483647, 0.5, -2.25),
  fc.bigInt({ min: -5n, max: 5n }),
);
const sortSpec = fc.constantFrom<Value>(1, -1, { a: 1 }, { b: -1 });
const pushArg = fc.oneof(
  value,
  fc
    .record(
      {
        $each: fc.array(value, { maxLength: 3 }),
        $position: fc.integer({ min: -3, max: 3 }),
        $slice: fc.integer({ min: -3, max: 3 }),
        $sort: sortSpec,
      },
      { requiredKeys: ['$each'] },
    )
    .map((r) => r as Value),
);
const pullArg = fc.oneof(
  scalar,
  scalar.map((v) => ({ $gte: v })),
  fc.array(scalar, { maxLength: 3 }).map((v) => ({ $in: v })),
  scalar.map((v) => ({ a: v })),
  scalar.map((v) => ({ b: { $lt: v } })),
);

const ARGS: Record<string, fc.Arbitrary<Value>> = {
  $set: value,
  $unset: fc.constant(''),
  $inc: number,
  $mul: number,
  $min: value,
  $max: value,
  $rename: pathArb,
  $push: pushArg,
  $addToSet: fc.oneof(
    value,
    fc.array(value, { maxLength: 3 }).map((v) => ({ $each: v })),
  ),
  $pop: fc.constantFrom(1, -1),
  $pull: pullArg,
};

const ALL_OPS = Object.keys(ARGS);
const NUMERIC_OPS = ['$inc', '$mul', '$min', '$max', '$set', '$unset', '$rename'];
const ARRAY_OPS = ['$push', '$addToSet', '$pop', '$pull', '$set', '$min', '$max'];
const OTHER_OPS = ['$set', '$unset', '$min', '$max', '$rename'];

/** Mostly operators that apply to what the document holds at the path, so that most cases compare results. */
function opArb(current: Value | undefined): fc.Arbitrary<string> {
  const fitting =
    current === undefined
      ? ALL_OPS
      : typeof current === 'number' || typeof current === 'bigint'
        ? NUMERIC_OPS
        : Array.isArray(current)
          ? ARRAY_OPS
          : OTHER_OPS;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...fitting) },
    { weight: 1, arbitrary: fc.constantFrom(...ALL_OPS) },
  );
}

const isPrefix = (a: string, b: string) => a === b || b.startsWith(`${a}.`);

/** A document and an update of 1-3 paths that do not contain one another, each with an operator. */
const caseArb: fc.Arbitrary<[Doc, Doc]> = docArb(false).chain((doc) =>
  fc
    .uniqueArray(pathArb, { minLength: 1, maxLength: 3 })
    .map((paths) =>
      paths.filter((p, i) => !paths.some((q, j) => j < i && (isPrefix(p, q) || isPrefix(q, p)))),
    )
    .chain((paths) =>
      fc.tuple(
        ...paths.map((p) =>
          opArb(getPath(doc, p)).chain((op) => ARGS[op]!.map((arg) => [p, op, arg] as const)),
        ),
      ),
    )
    .map((ops): [Doc, Doc] => {
      const u: Doc = {};
      for (const [path, op, arg] of ops) {
        if (!isDoc(u[op])) u[op] = {};
        (u[op] as Doc)[path] = arg;
      }
      return [doc, u];
    }),
);

type Outcome = { ok: true; doc: unknown } | { ok: false; code: string };

function runOurs(doc: Doc, u: Doc): Outcome {
  try {
    const out = applyUpdate(doc, parseUpdate(toWire(u)), { now: NOW, isInsert: false }).doc;
    return { ok: true, doc: toMingo(out) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

function runMingo(doc: Doc, u: Doc): Outcome {
  const copy = toMingo(doc) as Record<string, unknown>;
  try {
    mingoUpdate(copy, toMingo(u) as never, undefined, undefined, { cloneMode: 'deep' });
    return { ok: true, doc: copy };
  } catch (e) {
    return { ok: false, code: (e as Error).message };
  }
}

const touches = (u: Doc, test: (path: string) => boolean): boolean =>
  Object.values(u).some(
    (fields) =>
      isDoc(fields) && Object.entries(fields).some(([p, v]) => test(p) || (typeof v === 'string' && test(v))),
  );

const hasOp = (u: Doc, op: string) => Object.hasOwn(u, op);
const isComposite = (v: Value | undefined) => Array.isArray(v) || isDoc(v);
const containsComposite = (v: Value | undefined): boolean =>
  Array.isArray(v) ? v.some(isComposite) : isDoc(v) ? Object.values(v).some(isComposite) : false;

/** Returns the known deviation explaining a mismatch, or null. */
function knownDeviation(doc: Doc, u: Doc, ours: Outcome, theirs: Outcome): string | null {
  // U1: MongoDB refuses to apply an operator to a value of the wrong type or through a scalar; mingo skips it.
  if (!ours.ok && ['UPDATE_TYPE_MISMATCH', 'UPDATE_PATH_NOT_VIABLE'].includes(ours.code)) return 'U1';
  // U2: mingo refuses every update path on _id; MongoDB only refuses changing its value.
  if (ours.ok && !theirs.ok && touches(u, (p) => p === '_id' || p.startsWith('_id.'))) return 'U2';
  if (!ours.ok || !theirs.ok) return null;
  // U3: mingo leaves array holes where MongoDB pads with null.
  if (sameMapped(ours.doc, fillHoles(theirs.doc), { ignoreKeyOrder: true })) return 'U3';
  // U4: $min/$max/$push-$sort over arrays or documents: mingo sorts array elements and compares documents by
  // sorted field names; MongoDB compares arrays element by element and documents field by field in order.
  for (const op of ['$min', '$max', '$push'] as const) {
    if (!hasOp(u, op)) continue;
    for (const [path, arg] of Object.entries(u[op] as Doc)) {
      const old = getPath(doc, path);
      const sorted = op !== '$push' || (isDoc(arg) && arg.$sort !== undefined);
      if (
        sorted &&
        (isComposite(arg) ||
          isComposite(old) ||
          containsComposite(old) ||
          containsComposite(isDoc(arg) ? arg.$each : undefined))
      ) {
        return 'U4';
      }
    }
  }
  // U6: mingo's $push to a missing field stores $each as is, ignoring $sort and $slice; MongoDB applies them.
  if (
    hasOp(u, '$push') &&
    Object.entries(u.$push as Doc).some(
      ([p, arg]) =>
        getPath(doc, p) === undefined && isDoc(arg) && (arg.$slice !== undefined || arg.$sort !== undefined),
    )
  ) {
    return 'U6';
  }
  // U7: mingo's $addToSet to a missing field stores $each with its duplicates; MongoDB removes them.
  if (
    hasOp(u, '$addToSet') &&
    Object.entries(u.$addToSet as Doc).some(([p, arg]) => getPath(doc, p) === undefined && isDoc(arg))
  ) {
    return 'U7';
  }
  // U8: mingo's $pull with a query document also tests elements that are not documents (a field of a scalar
  // resolves to the scalar itself); MongoDB matches only element documents against it.
  if (
    hasOp(u, '$pull') &&
    Object.entries(u.$pull as Doc).some(([p, arg]) => {
      const old = getPath(doc, p);
      return (
        isDoc(arg) &&
        !Object.keys(arg).some((k) => k.startsWith('$')) &&
        Array.isArray(old) &&
        old.some((x) => !isDoc(x))
      );
    })
  ) {
    return 'U8';
  }
  // U9: mingo's $addToSet deduplicates the existing array too (and then compares lengths); MongoDB leaves
  // existing duplicates alone and appends each absent value.
  if (
    hasOp(u, '$addToSet') &&
    Object.keys(u.$addToSet as Doc).some((p) => {
      const old = getPath(doc, p);
      return Array.isArray(old) && new Set(old.map((x) => equalityKey(x))).size < old.length;
    })
  ) {
    return 'U9';
  }
  // U5: mingo's $pull with a plain value matches inside element arrays; MongoDB compares elements whole.
  if (hasOp(u, '$pull') && Object.keys(u.$pull as Doc).some((p) => containsComposite(getPath(doc, p))))
    return 'U5';
  return null;
}

describe('updates: differential against mingo', () => {
  it('generated documents × updates → same result as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0 };
    fc.assert(
      fc.property(caseArb, ([doc, u]) => {
        const ours = runOurs(doc, u);
        const theirs = runMingo(doc, u);
        if (!ours.ok && !theirs.ok) counts[`both:${ours.code}`] = (counts[`both:${ours.code}`] ?? 0) + 1;
        else if (ours.ok && theirs.ok && sameMapped(ours.doc, theirs.doc, { ignoreKeyOrder: true }))
          counts.same = (counts.same ?? 0) + 1;
        else {
          const why = knownDeviation(doc, u, ours, theirs);
          if (why === null)
            throw new Error(
              `mismatch\n doc ${show(doc)}\n update ${show(u)}\n ours ${show(ours)}\n mingo ${show(theirs)}`,
            );
          counts[why] = (counts[why] ?? 0) + 1;
        }
      }),
      { numRuns: 5000, seed: 20240601 },
    );
    // The comparison must mostly succeed outright, or it tests nothing.
    expect(counts.same).toBeGreaterThan(2000);
  });
});
