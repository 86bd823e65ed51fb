// Differential test: generated documents and find projections through applyProjection and mingo's find.
// Every mismatch must be one of the known mingo deviations of docs/query-engine-js.md (P1-P5).
import fc from 'fast-check';
import { find } from 'mingo';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { docArb, sameMapped, show, toMingo } from './mingo-oracle.test-util.js';
import { applyProjection, parseProjection } from './projection.js';
import { type Doc, isDoc, type Value } from './values.js';

const PATHS = ['a', 'b', 'c', 'a.b', 'a.c', 'b.a', 'a.b.c', 'c.a', '_id'];
const include = fc.constantFrom<Value>(1, true, 5);
const exclude = fc.constantFrom<Value>(0, false);

/**
 * 1-3 paths, mostly all included or all excluded (a mix is refused by both), sometimes an _id flag either way,
 * sometimes written as a nested document ({a: {b: 1}} for 'a.b').
 */
const projectionArb: fc.Arbitrary<Doc> = fc
  .record({
    mode: fc.oneof(
      { weight: 3, arbitrary: fc.constant('in') },
      { weight: 3, arbitrary: fc.constant('ex') },
      { weight: 1, arbitrary: fc.constant('mixed') },
    ),
    paths: fc.uniqueArray(fc.constantFrom(...PATHS.slice(0, -1)), { minLength: 1, maxLength: 3 }),
    id: fc.option(fc.oneof(include, exclude)),
    nest: fc.boolean(),
  })
  .map((r) => ({
    ...r,
    paths: r.paths.filter(
      (p, i) => !r.paths.some((q, j) => j < i && (p.startsWith(`${q}.`) || q.startsWith(`${p}.`))),
    ),
  }))
  .chain(({ mode, paths, id, nest }) =>
    fc
      .tuple(
        ...paths.map(() => (mode === 'in' ? include : mode === 'ex' ? exclude : fc.oneof(include, exclude))),
      )
      .map((flags) => {
        const flat: Doc = {};
        paths.forEach((path, i) => {
          flat[path] = flags[i]!;
        });
        if (id !== null) flat._id = id;
        return nest ? nestSpec(flat) : flat;
      }),
  );

function nestSpec(flat: Doc): Doc {
  const out: Doc = {};
  for (const [path, v] of Object.entries(flat)) {
    const [head, ...rest] = path.split('.');
    if (rest.length === 0 || Object.hasOwn(out, head!)) out[path] = v;
    else out[head!] = { [rest.join('.')]: v };
  }
  return out;
}

type Outcome = { ok: true; doc: unknown } | { ok: false; code: string };

function runOurs(doc: Doc, p: Doc): Outcome {
  try {
    return { ok: true, doc: toMingo(applyProjection(doc, parseProjection(p))) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

/** mingo appends _id after the projected fields; MongoDB keeps document order (P3), so _id goes first again. */
function runMingo(doc: Doc, p: Doc): Outcome {
  try {
    const [out] = find([toMingo(doc) as Record<string, unknown>], {}, toMingo(p) as never).all() as Record<
      string,
      unknown
    >[];
    if (out === undefined || !Object.hasOwn(out, '_id')) return { ok: true, doc: out };
    const { _id, ...rest } = out;
    return { ok: true, doc: { _id, ...rest } };
  } catch (e) {
    return { ok: false, code: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

const isFlagOn = (v: Value | undefined) => v === true || (typeof v === 'number' && v !== 0);
const nestedArrays = (v: Value | undefined): boolean =>
  Array.isArray(v)
    ? v.some((x) => Array.isArray(x) || nestedArrays(x))
    : isDoc(v)
      ? Object.values(v).some(nestedArrays)
      : false;

function flatten(p: Doc, prefix = ''): Array<[string, Value]> {
  return Object.entries(p).flatMap(
    ([k, v]): Array<[string, Value]> => (isDoc(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v]]),
  );
}

function knownDeviation(doc: Doc, p: Doc, ours: Outcome, theirs: Outcome): string | null {
  const flags = flatten(p);
  // P1: MongoDB accepts _id: 1 in an exclusion projection (it changes nothing); mingo refuses the mix.
  if (
    ours.ok &&
    !theirs.ok &&
    isFlagOn(p._id) &&
    flags.some(([k, v]) => k !== '_id' && !isDoc(v) && !isFlagOn(v))
  )
    return 'P1';
  // P2: an exclusion reaches into arrays nested in arrays in MongoDB (kRecurseNestedArrays); mingo stops.
  if (ours.ok && theirs.ok && flags.some(([k, v]) => k !== '_id' && !isFlagOn(v)) && nestedArrays(doc))
    return 'P2';
  // P5: mingo crashes (TypeError) on an exclusion path through an array holding null; MongoDB leaves null as is.
  if (ours.ok && !theirs.ok && theirs.code.startsWith('TypeError')) return 'P5';
  // P4: mingo reads a nested projection with a dotted key ({a: {'b.c': 1}}) as something else; MongoDB 4.4+
  // reads it as the path a.b.c.
  if (Object.values(p).some((v) => isDoc(v) && Object.keys(v).some((k) => k.includes('.')))) return 'P4';
  return null;
}

describe('projections: differential against mingo', () => {
  it('generated documents × projections → same result as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0 };
    fc.assert(
      fc.property(docArb(false, 3), projectionArb, (doc, p) => {
        const ours = runOurs(doc, p);
        const theirs = runMingo(doc, p);
        let why: string | null;
        if (!ours.ok && !theirs.ok) why = 'bothFail';
        else if (ours.ok && theirs.ok && sameMapped(ours.doc, theirs.doc)) why = 'same';
        else why = knownDeviation(doc, p, ours, theirs);
        if (why === null)
          throw new Error(
            `mismatch\n doc ${show(doc)}\n projection ${show(p)}\n ours ${show(ours)}\n mingo ${show(theirs)}`,
          );
        counts[why] = (counts[why] ?? 0) + 1;
      }),
      { numRuns: 3000, seed: 20240602 },
    );
    expect(counts.same).toBeGreaterThan(2000);
  });
});
