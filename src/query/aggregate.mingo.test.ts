// Differential test: generated collections and pipelines through runPipelineSync and mingo's Aggregator.
// Every mismatch must be one of the known mingo deviations of docs/query-engine-js.md (A1-A7, D1).
import fc from 'fast-check';
import { Aggregator } from 'mingo';
import { describe, expect, it } from 'vitest';
import { isPlaybaseError } from '../errors.js';
import { parsePipeline, runPipelineSync } from './aggregate.js';
import { docArb, sameMapped, scalarArb, show, toMingo } from './mingo-oracle.test-util.js';
import { type Doc, isDoc, toWire, type Value } from './values.js';

const PATHS = ['a', 'b', 'c', 'a.b'];
const path = fc.constantFrom(...PATHS);
const scalar = scalarArb(true);

// $match itself is the filter engine's (differential-tested there); here it only feeds the other stages, so it
// stays where mingo follows MongoDB: top-level fields, no null operand.
const topPath = fc.constantFrom('a', 'b', 'c');
const notNull = scalar.filter((v) => v !== null);
const matchArb = fc.oneof(
  fc.record({ p: topPath, v: notNull }).map(({ p, v }) => ({ [p]: v })),
  fc
    .record({ p: topPath, v: notNull, op: fc.constantFrom('$gt', '$lte') })
    .map(({ p, v, op }) => ({ [p]: { [op]: v } })),
  fc.record({ p: topPath, v: fc.boolean() }).map(({ p, v }) => ({ [p]: { $exists: v } })),
);
const projectArb = fc.constantFrom<Value>(
  { a: 1, b: 1 },
  { c: 0 },
  { 'a.b': 0, _id: 0 },
  { x: '$a.b', a: 1 },
  { y: '$b', k: { $literal: 5 } },
  { s: 'text', 'b.a': 1 },
);
const unwindArb = fc.oneof(
  path.map((p) => `$${p}`),
  fc
    .record({ p: path, keep: fc.boolean() })
    .map(({ p, keep }) => ({ path: `$${p}`, includeArrayIndex: 'i', preserveNullAndEmptyArrays: keep })),
);
const sortArb = fc.record({ p: path, d: fc.constantFrom(1, -1) }).map(({ p, d }) => ({ [p]: d, _id: 1 }));

const prefixStage: fc.Arbitrary<Doc> = fc.oneof(
  matchArb.map((m) => ({ $match: m })),
  sortArb.map((s) => ({ $sort: s })),
  fc.integer({ min: 0, max: 3 }).map((n) => ({ $skip: n })),
  fc.integer({ min: 1, max: 5 }).map((n) => ({ $limit: n })),
  projectArb.map((p) => ({ $project: p })),
  unwindArb.map((u) => ({ $unwind: u })),
);

const ACCUMULATORS = ['$sum', '$avg', '$min', '$max', '$first', '$last', '$push', '$addToSet'];
const groupArb = fc
  .record({
    id: fc.constantFrom<Value>(null, '$a', '$b', '$a.b', { x: '$a', y: '$c' }, 1),
    accs: fc.array(
      fc.record({
        op: fc.constantFrom(...ACCUMULATORS),
        arg: fc.constantFrom<Value>('$a', '$b', '$c', '$a.b', 1),
      }),
      {
        maxLength: 3,
      },
    ),
  })
  .map(({ id, accs }) => {
    const spec: Doc = { _id: id };
    accs.forEach(({ op, arg }, i) => {
      spec[`f${i}`] = { [op]: arg };
    });
    return { $group: spec } as Doc;
  });

/** A few prefix stages, then maybe a $group (itself maybe sorted and limited) or a $count. */
const pipelineArb: fc.Arbitrary<Doc[]> = fc
  .tuple(
    fc.array(prefixStage, { maxLength: 3 }),
    fc.oneof(
      fc.constant<Doc[]>([]),
      groupArb.map((g): Doc[] => [g]),
      groupArb.map((g): Doc[] => [g, { $sort: { _id: 1 } }, { $limit: 2 }]),
      fc.constant<Doc[]>([{ $count: 'n' }]),
    ),
  )
  .map(([prefix, tail]) => [...prefix, ...tail]);

const collectionArb = fc
  .array(docArb(true), { maxLength: 7 })
  .map((docs) => docs.map((d, i) => ({ ...d, _id: i })));

type Outcome = { ok: true; docs: unknown[] } | { ok: false; code: string };

function runOurs(docs: Doc[], pipeline: Doc[]): Outcome {
  try {
    return { ok: true, docs: runPipelineSync(parsePipeline(toWire(pipeline)), docs).map(toMingo) };
  } catch (e) {
    if (isPlaybaseError(e) && e.status === 400) return { ok: false, code: e.code };
    throw e;
  }
}

function runMingo(docs: Doc[], pipeline: Doc[]): Outcome {
  try {
    const agg = new Aggregator(toMingo(pipeline) as Record<string, unknown>[]);
    const out = agg.run(docs.map((d) => toMingo(d) as Record<string, unknown>)) as unknown[];
    // mingo keeps a computed field whose value is missing as an undefined property: the same as absent.
    return { ok: true, docs: out.map(dropUndefined) };
  } catch (e) {
    return { ok: false, code: `${(e as Error).name}: ${(e as Error).message}` };
  }
}

function dropUndefined(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropUndefined);
  if (!composite(v)) return v;
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => [k, dropUndefined(x)]),
  );
}

/** A6: mingo orders $project output differently (literals first, _id last); MongoDB: included, then computed. */
const hasProject = (pipeline: Doc[]) => pipeline.some((s) => Object.hasOwn(s, '$project'));

const groupStage = (pipeline: Doc[]) =>
  pipeline.find((s) => Object.hasOwn(s, '$group'))?.$group as Doc | undefined;

/** mingo puts _id after the other fields of a $project; MongoDB keeps it first (as in the documents). */
function idFirst(doc: unknown): unknown {
  const d = doc as Record<string, unknown>;
  if (!Object.hasOwn(d, '_id')) return d;
  const { _id, ...rest } = d;
  return { _id, ...rest };
}

/** Group output order is unspecified in MongoDB, and so is $addToSet's: both are compared as sets. */
function normalize(pipeline: Doc[], all: unknown[]): unknown[] {
  const docs = all.map(idFirst);
  const group = groupStage(pipeline);
  if (group === undefined) return docs;
  const setFields = Object.entries(group)
    .filter(([, v]) => isDoc(v) && Object.hasOwn(v, '$addToSet'))
    .map(([k]) => k);
  const out = docs.map((d) => {
    const copy = { ...(d as Record<string, unknown>) };
    for (const f of setFields)
      if (Array.isArray(copy[f]))
        copy[f] = [...(copy[f] as unknown[])].sort((x, y) => show(x).localeCompare(show(y)));
    return copy;
  });
  const sortedAfter =
    pipeline.indexOf(pipeline.find((s) => Object.hasOwn(s, '$group'))!) < pipeline.length - 1;
  return sortedAfter ? out : out.sort((x, y) => show(x._id).localeCompare(show(y._id)));
}

const stagesWith = (pipeline: Doc[], op: string) =>
  pipeline.filter((s) => Object.hasOwn(s, op)).map((s) => s[op]);
const composite = (v: unknown) =>
  Array.isArray(v) ||
  (typeof v === 'object' && v !== null && !(v instanceof Date) && !(v instanceof Uint8Array));
const anyComposite = (docs: unknown[], path: string) =>
  docs.some((d) => {
    const v = (d as Record<string, unknown>)[path.split('.')[0]!];
    return composite(v);
  });

/** True when `theirs` is `ours` with some nulls added (mingo pushes null for a missing value). */
function onlyNullsAdded(ours: unknown, theirs: unknown): boolean {
  if (!Array.isArray(ours) || !Array.isArray(theirs)) return false;
  let i = 0;
  for (const t of theirs) {
    if (i < ours.length && sameMapped(ours[i], t)) i++;
    else if (t !== null) return false;
  }
  return i === ours.length;
}

/**
 * Explains every differing $group output field: A4 for $push/$addToSet (MongoDB skips missing values, mingo
 * adds null), A5 for $min/$max when the inputs hold arrays or documents (compared differently, as in A3).
 */
function explainGroupFields(docs: Doc[], pipeline: Doc[], ours: unknown[], theirs: unknown[]): string | null {
  const group = groupStage(pipeline);
  if (group === undefined || ours.length !== theirs.length) return null;
  const reasons = new Set<string>();
  for (let i = 0; i < ours.length; i++) {
    const o = ours[i] as Record<string, unknown>;
    const t = theirs[i] as Record<string, unknown>;
    for (const key of new Set([...Object.keys(o), ...Object.keys(t)])) {
      if (sameMapped(o[key], t[key])) continue;
      const acc = key === '_id' ? undefined : (group[key] as Doc | undefined);
      const op = acc === undefined ? '_id' : Object.keys(acc)[0]!;
      const arg = acc?.[op];
      if ((op === '$push' || op === '$addToSet') && onlyNullsAdded(o[key], t[key])) reasons.add('A4');
      else if (
        (op === '$min' || op === '$max') &&
        typeof arg === 'string' &&
        anyComposite(docs, arg.slice(1))
      )
        reasons.add('A5');
      else return null;
    }
  }
  return [...reasons].join('+') || null;
}

function knownDeviation(docs: Doc[], pipeline: Doc[], ours: Outcome, theirs: Outcome): string | null {
  if (!ours.ok || !theirs.ok) return null;
  // A1: $count of no documents gives no document in MongoDB; mingo gives {n: 0}.
  if (ours.docs.length === 0 && stagesWith(pipeline, '$count').length > 0) return 'A1';
  // A2: $unwind: MongoDB reads the path through documents only and unwinds "" and {} as single values; mingo
  // reads through arrays and drops "" and {}.
  // (The documents reaching each $unwind are computed by our own stages before it.)
  const holdsEmpty = (v: Value | undefined): boolean =>
    v === '' ||
    (isDoc(v) && (Object.keys(v).length === 0 || Object.values(v).some(holdsEmpty))) ||
    (Array.isArray(v) && v.some(holdsEmpty));
  for (let k = 0; k < pipeline.length; k++) {
    const u = pipeline[k]!.$unwind;
    if (u === undefined) continue;
    const p = (typeof u === 'string' ? u : ((u as Doc).path as string)).slice(1);
    const reaching = runPipelineSync(parsePipeline(toWire(pipeline.slice(0, k))), docs);
    const top = (d: Doc) => d[p.split('.')[0]!];
    if (reaching.some((d) => holdsEmpty(top(d)) || (p.includes('.') && Array.isArray(top(d))))) return 'A2';
  }
  // A3: $sort on arrays or documents: MongoDB sorts by the smallest (largest, descending) element, mingo compares
  // sorted arrays; documents compare field by field in MongoDB, by sorted names in mingo.
  if (stagesWith(pipeline, '$sort').length > 0 && PATHS.some((p) => anyComposite(docs, p))) return 'A3';
  const group = groupStage(pipeline);
  if (group !== undefined && isDoc(group._id) && pipeline.at(-2)?.$sort !== undefined) return 'A3';
  // A7: a field path "$a.b" over an array keeps, in mingo, elements that are not documents (a field of a
  // scalar resolves to the scalar); MongoDB skips them (and recurses into nested arrays).
  const usesDotted = JSON.stringify(toWire(pipeline)).includes('"$a.b"');
  if (usesDotted && docs.some((d) => Array.isArray(d.a) && d.a.some((x) => !isDoc(x)))) return 'A7';
  return explainGroupFields(docs, pipeline, normalize(pipeline, ours.docs), normalize(pipeline, theirs.docs));
}

describe('pipelines: differential against mingo', () => {
  it('generated collections × pipelines → same result as mingo, or a known deviation', () => {
    const counts: Record<string, number> = { same: 0 };
    fc.assert(
      fc.property(collectionArb, pipelineArb, (docs, pipeline) => {
        const ours = runOurs(docs, pipeline);
        const theirs = runMingo(docs, pipeline);
        let why: string | null;
        if (!ours.ok && !theirs.ok) why = 'bothFail';
        else if (
          ours.ok &&
          theirs.ok &&
          sameMapped(normalize(pipeline, ours.docs), normalize(pipeline, theirs.docs), {
            ignoreKeyOrder: hasProject(pipeline),
          })
        ) {
          why = 'same';
        } else why = knownDeviation(docs, pipeline, ours, theirs);
        if (why === null) {
          throw new Error(
            `mismatch\n docs ${show(docs)}\n pipeline ${show(pipeline)}\n ours ${show(ours)}\n mingo ${show(theirs)}`,
          );
        }
        counts[why] = (counts[why] ?? 0) + 1;
      }),
      { numRuns: 2000, seed: 20240603 },
    );
    expect(counts.same).toBeGreaterThan(1300);
  });
});
