// Test support for aggregate-stages.mingo.test.ts: running a pipeline by us and by mingo, the comparison, and
// the predicates of the known deviations (docs/query-engine-js.md, S1-S9 with the group suite's A1-A4, E2).
import fc from 'fast-check';
import { Aggregator } from 'mingo';
import { isPlaybaseError } from '../errors.js';
import { type PipelineRead, parsePipeline, runPipelineSync } from './aggregate.js';
import { docArb, sameMapped, show, toMingo } from './mingo-oracle.test-util.js';
import { type Doc, isDoc, toWire, type Value } from './values.js';

export const collectionArb = fc
  .array(docArb(true), { maxLength: 7 })
  .map((docs) => docs.map((d, i) => ({ ...d, _id: i })));
export const foreignArb = fc
  .array(docArb(true, 1), { maxLength: 6 })
  .map((docs) => docs.map((d, i) => ({ ...d, _id: 100 + i })));

export type Outcome = { ok: true; docs: unknown[] } | { ok: false; code: string };

export function runOurs(docs: Doc[], other: Doc[], pipeline: Doc[]): Outcome {
  const foreign = (read: PipelineRead) => runPipelineSync(read.head, other);
  try {
    return {
      ok: true,
      docs: runPipelineSync(parsePipeline(toWire(pipeline)), docs, { foreign }).map(toMingo),
    };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

export function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (typeof v !== 'object' || v === null || v instanceof Date || v instanceof Uint8Array) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => [k, dropUndefined(x)]),
  );
}

export function runMingo(docs: Doc[], other: Doc[], pipeline: Doc[]): Outcome {
  try {
    const collectionResolver = (name: string) =>
      name === 'other' ? (other.map((d) => toMingo(d)) as Record<string, unknown>[]) : [];
    const agg = new Aggregator(toMingo(pipeline) as Record<string, unknown>[], { collectionResolver });
    const out = agg.run(docs.map((d) => toMingo(d) as Record<string, unknown>)) as unknown[];
    return { ok: true, docs: out.map(dropUndefined) };
  } catch (e) {
    return { ok: false, code: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

export interface StageCase {
  name: string;
  stages: fc.Arbitrary<Doc[]>;
  /** Compare outputs as sets (the stage leaves the order unspecified). */
  unordered?: boolean;
  /** Compare documents as sets of fields. */
  ignoreKeyOrder?: boolean;
  /** A known deviation explaining a mismatch, or null. */
  known?: (docs: Doc[], other: Doc[], pipeline: Doc[], ours: Outcome, theirs: Outcome) => string | null;
  minSame: number;
}

export const sortedByShow = (docs: unknown[]) => [...docs].sort((x, y) => show(x).localeCompare(show(y)));

export function checkStage(c: StageCase, runs = 600): Record<string, number> {
  const counts: Record<string, number> = { same: 0 };
  fc.assert(
    fc.property(collectionArb, foreignArb, c.stages, (docs, other, pipeline) => {
      const ours = runOurs(docs, other, pipeline);
      const theirs = runMingo(docs, other, pipeline);
      let why: string | null;
      if (!ours.ok && !theirs.ok) why = 'bothFail';
      else if (
        ours.ok &&
        theirs.ok &&
        sameMapped(
          c.unordered ? sortedByShow(ours.docs) : ours.docs,
          c.unordered ? sortedByShow(theirs.docs) : theirs.docs,
          { ignoreKeyOrder: c.ignoreKeyOrder ?? false },
        )
      )
        why = 'same';
      else why = c.known?.(docs, other, pipeline, ours, theirs) ?? null;
      if (why === null) {
        throw new Error(
          `mismatch\n docs ${show(docs)}\n other ${show(other)}\n pipeline ${show(pipeline)}\n ours ${show(ours)}\n mingo ${show(theirs)}`,
        );
      }
      counts[why] = (counts[why] ?? 0) + 1;
    }),
    { numRuns: runs, seed: 20261124 },
  );
  if (process.env.SHOW_COUNTS) console.log(c.name, counts);
  return counts;
}

export const fields = ['a', 'b', 'c'];
export const anyComposite = (docs: Doc[], f: string) => docs.some((d) => Array.isArray(d[f]) || isDoc(d[f]));
export const holdsArray = (docs: Doc[], f: string) => docs.some((d) => Array.isArray(d[f]));

/** S1: a dotted $addFields path through an array or a scalar: MongoDB applies it to each element / replaces. */
export function knownAddFields(docs: Doc[], _o: Doc[], pipeline: Doc[]): string | null {
  const spec = Object.values(pipeline[0]!)[0] as Doc;
  const dotted = Object.keys(spec).filter((k) => k.includes('.'));
  if (dotted.some((k) => docs.some((d) => !isDoc(d[k.split('.')[0]!])))) return 'S1';
  return null;
}

/** A3/A5 of the group suite: mingo compares arrays and documents after sorting them; also for group keys. */
export function knownGroupKeys(docs: Doc[]): string | null {
  return fields.some((f) => anyComposite(docs, f)) ? 'A3' : null;
}

/** S2: $unset through an array of scalars or arrays (MongoDB leaves non-documents as they are; as P2, P5). */
export function knownUnset(docs: Doc[]): string | null {
  return fields.some((f) => holdsArray(docs, f)) ? 'S2' : null;
}

/** S3: a new root that is not a document: MongoDB fails the stage (400 here); mingo fails too or passes it. */
export function knownReplaceRoot(
  _d: Doc[],
  _o: Doc[],
  _p: Doc[],
  ours: Outcome,
  theirs: Outcome,
): string | null {
  return !ours.ok && theirs.ok ? 'S3' : null;
}

/** S4: $bucket groups by $gte/$lt of BSON order: values of another type go to default (mingo compares with JS). */
export function knownBucket(
  docs: Doc[],
  _o: Doc[],
  pipeline: Doc[],
  ours: Outcome,
  theirs: Outcome,
): string | null {
  if (ours.ok && theirs.ok) {
    // mingo also emits the buckets no document falls in: the rest must be ours exactly.
    const idOf = (d: unknown) => (d as Record<string, unknown>)._id;
    const kept = theirs.docs.filter((t) => ours.docs.some((o) => sameMapped(idOf(o), idOf(t))));
    if (kept.length < theirs.docs.length && sameMapped(ours.docs, kept, { ignoreKeyOrder: true }))
      return 'S4e';
  }
  const spec = pipeline[0]!.$bucket as Doc;
  const f = typeof spec.groupBy === 'string' ? spec.groupBy.slice(1) : undefined;
  if (f !== undefined && docs.some((d) => typeof d[f] !== 'number' && typeof d[f] !== 'bigint')) return 'S4';
  // S4b: mingo puts a value equal to an inner boundary in the bucket below it; MongoDB's lower bound is inclusive.
  const keyOf = (d: Doc) =>
    f !== undefined ? d[f] : typeof d.a === 'number' || typeof d.a === 'bigint' ? d.a : 0;
  const bounds = (spec.boundaries as Value[]).map(Number);
  if (docs.some((d) => bounds.includes(Number(keyOf(d))))) return 'S4b';
  return ours.ok && theirs.ok ? knownGroupKeys(docs) : null;
}

/** S5: $bucketAuto sorts keys in BSON order (mingo: JS order) and keeps equal keys in one bucket. */
export function knownBucketAuto(docs: Doc[], _o: Doc[], pipeline: Doc[]): string | null {
  if (docs.length === 0) return 'S4';
  const f = ((pipeline[0]!.$bucketAuto as Doc).groupBy as string).slice(1);
  const keys = docs.map((d) => d[f]);
  const kinds = new Set(
    keys.map((k) =>
      k === undefined
        ? 'null'
        : typeof k === 'bigint'
          ? 'number'
          : k === null
            ? 'null'
            : k instanceof Date
              ? 'date'
              : Array.isArray(k)
                ? 'array'
                : typeof k,
    ),
  );
  if (kinds.size > 1 || kinds.has('object') || kinds.has('array')) return 'S5';
  return process.env.DEBUG_S5 ? null : 'S5-ties';
}

/** $facet runs the group suite's stages: their deviations (A1 $count of nothing, A3 sort on composites). */
export function knownFacet(docs: Doc[], pipeline: Doc[], ours: Outcome, theirs: Outcome): string | null {
  if (!ours.ok || !theirs.ok) return null;
  const text = JSON.stringify(pipeline);
  if (text.includes('$count') && docs.length === 0) return 'A1';
  if (text.includes('$sort') && fields.some((f) => anyComposite(docs, f))) return 'A3';
  return null;
}

/**
 * S6: mingo's equality $lookup compares whole values (an array localField matches only an equal array; a missing
 * field only a missing one); MongoDB matches as the query {foreignField: {$in: <each value at localField>}} does.
 * S7: $expr $eq with missing: MongoDB's missing ≠ null (E1), mingo's missing = null.
 */
export function knownLookup(docs: Doc[], other: Doc[], pipeline: Doc[]): string | null {
  const spec = pipeline[0]!.$lookup as Doc | undefined;
  if (spec === undefined) return null;
  const all = [...docs, ...other];
  if (spec.localField !== undefined) {
    const paths = [spec.localField as string, spec.foreignField as string];
    if (
      paths.some((p) => p.includes('.')) ||
      all.some((d) => fields.some((f) => Array.isArray(d[f]) || d[f] === undefined || d[f] === null))
    )
      return 'S6';
    return null;
  }
  if (
    all.some((d) =>
      fields.some((f) => d[f] === undefined || d[f] === null || isDoc(d[f]) || Array.isArray(d[f])),
    )
  )
    return 'S7';
  return null;
}

/**
 * $group: as in the group suite (A3/A5 composites, A4 $push of missing, E2 $gt across types), S8 $mergeObjects of
 * non-documents, S9 $stdDev rounding and its answer for too few numbers. Each differing field needs a reason.
 */
export function knownGroup(
  docs: Doc[],
  _o: Doc[],
  pipeline: Doc[],
  ours: Outcome,
  theirs: Outcome,
): string | null {
  const text = JSON.stringify(pipeline);
  if (text.includes('$mergeObjects') && (!ours.ok || !theirs.ok)) return 'S8';
  if (text.includes('$gt') && docs.some((d) => typeof d.a !== 'number' && typeof d.a !== 'bigint'))
    return 'E2';
  if (!ours.ok || !theirs.ok || ours.docs.length !== theirs.docs.length) return knownGroupKeys(docs);
  const a = sortedByShow(ours.docs) as Record<string, unknown>[];
  const b = sortedByShow(theirs.docs) as Record<string, unknown>[];
  const reasons = new Set<string>();
  const noNulls = (v: unknown) => (Array.isArray(v) ? v.filter((x) => x !== null) : v);
  for (let i = 0; i < a.length; i++) {
    for (const k of new Set([...Object.keys(a[i]!), ...Object.keys(b[i]!)])) {
      const [x, y] = [a[i]![k], b[i]![k]];
      if (sameMapped(x, y)) continue;
      if (x === null && typeof y === 'number' && (Number.isNaN(y) || y === 0)) reasons.add('S9');
      else if (
        typeof x === 'number' &&
        typeof y === 'number' &&
        Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x))
      )
        reasons.add('S9');
      else if (Array.isArray(x) && sameMapped(noNulls(x), noNulls(y))) reasons.add('A4');
      else return knownGroupKeys(docs);
    }
  }
  return [...reasons].join('+') || knownGroupKeys(docs);
}
