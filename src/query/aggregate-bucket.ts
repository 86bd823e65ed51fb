// Stages that group by an expression and sort: $sortByCount and $bucket (rewritten into $group + $sort, as
// MongoDB defines them), and $bucketAuto (sorts every document by its key, then cuts the order into buckets).

import { type AccumulatorField, AccumulatorStates, parseAccumulators } from './aggregate-accumulators.js';
import { type Expr, evaluate, parseExpression } from './aggregate-expr.js';
import { granularKey, parseGranularity, type Rounder } from './aggregate-granularity.js';
import type { GroupSpec } from './aggregate-group.js';
import type { Processor } from './aggregate-stages.js';
import { compareValues, typeRank } from './compare-values.js';
import { evalExpr } from './expr/core.js';
import { pipelineErrors } from './pipeline-errors.js';
import { parseSort, type SortSpec } from './sort.js';
import { type Doc, isDoc, type Value } from './values.js';

type GroupAndSort = [{ op: '$group'; spec: GroupSpec }, { op: '$sort'; raw: unknown; spec: SortSpec }];

const sortBy = (raw: Doc) => ({ op: '$sort' as const, raw, spec: parseSort(raw) });

/** groupBy of $bucket, $bucketAuto and the operand of $sortByCount: a $-path or an operator document. */
function parseGroupBy(v: Value | undefined, stage: string, what: string): Expr {
  const isPath = typeof v === 'string' && v.startsWith('$');
  const isOperator = isDoc(v) && Object.keys(v).length === 1 && Object.keys(v)[0]!.startsWith('$');
  if (!isPath && !isOperator)
    throw pipelineErrors.badStage(stage, `${what} must be a $-prefixed path or an expression object`);
  return parseExpression(v, stage);
}

const COUNT_ONLY = (stage: string): AccumulatorField[] => parseAccumulators({ count: { $sum: 1 } }, stage);

/** $sortByCount: expr ≡ {$group: {_id: expr, count: {$sum: 1}}}, {$sort: {count: -1}}. */
export function parseSortByCount(arg: Value): GroupAndSort {
  const id = parseGroupBy(arg, '$sortByCount', 'the operand');
  return [{ op: '$group', spec: { id, fields: COUNT_ONLY('$sortByCount') } }, sortBy({ count: -1 })];
}

function outputOf(spec: Doc, stage: string): AccumulatorField[] {
  if (spec.output === undefined) return COUNT_ONLY(stage);
  if (!isDoc(spec.output)) throw pipelineErrors.badStage(stage, 'output must be a document of accumulators');
  return parseAccumulators(spec.output, stage);
}

function checkKeys(spec: Value, stage: string, allowed: string[], required: string[]): Doc {
  if (!isDoc(spec)) throw pipelineErrors.badStage(stage, 'the specification must be a document');
  for (const key of Object.keys(spec))
    if (!allowed.includes(key)) throw pipelineErrors.badStage(stage, `unrecognized option ${key}`);
  for (const key of required)
    if (spec[key] === undefined) throw pipelineErrors.badStage(stage, `${key} is required`);
  return spec;
}

/**
 * $bucket ≡ {$group: {_id: <the boundary at or below the value, or default>, ...output}}, {$sort: {_id: 1}}.
 * Boundaries: at least two constants of one type (numbers of any kind are one), strictly ascending; default
 * (when of that type) below the lowest or at or above the highest.
 */
export function parseBucket(arg: Value): GroupAndSort {
  const bad = (why: string) => pipelineErrors.badStage('$bucket', why);
  const spec = checkKeys(
    arg,
    '$bucket',
    ['groupBy', 'boundaries', 'default', 'output'],
    ['groupBy', 'boundaries'],
  );
  const groupBy = parseGroupBy(spec.groupBy, '$bucket', 'groupBy');
  const bounds = spec.boundaries;
  if (!Array.isArray(bounds) || bounds.length < 2)
    throw bad('boundaries must be an array of at least 2 values');
  bounds.forEach((b, i) => {
    if (isDoc(b) && Object.keys(b).some((k) => k.startsWith('$'))) throw bad('boundaries must be constants');
    if (i === 0) return;
    if (typeRank(b) !== typeRank(bounds[0])) throw bad('all boundaries must be of the same type');
    if (compareValues(bounds[i - 1], b) >= 0)
      throw bad('boundaries must be sorted in strictly ascending order');
  });
  const hasDefault = Object.hasOwn(spec, 'default');
  const fallback = spec.default;
  if (
    hasDefault &&
    typeRank(fallback) === typeRank(bounds[0]) &&
    compareValues(fallback, bounds[0]) >= 0 &&
    compareValues(fallback, bounds.at(-1)) < 0
  )
    throw bad('default must be less than the lowest boundary or at least the highest');
  const id: Expr = {
    kind: 'op',
    op: '$bucket',
    run: (ctx) => {
      const v = evalExpr(groupBy, ctx);
      const i = bucketIndex(bounds, v);
      if (i >= 0) return bounds[i];
      if (!hasDefault) throw bad('a groupBy value is outside the boundaries and no default is given');
      return fallback;
    },
  };
  return [{ op: '$group', spec: { id, fields: outputOf(spec, '$bucket') } }, sortBy({ _id: 1 })];
}

/** The i with bounds[i] ≤ v < bounds[i + 1] (MongoDB's $gte / $lt: missing and other types fall outside), or -1. */
function bucketIndex(bounds: Value[], v: Value | undefined): number {
  if (v === undefined || typeRank(v) !== typeRank(bounds[0])) return -1;
  if (compareValues(v, bounds[0]) < 0 || compareValues(v, bounds.at(-1)) >= 0) return -1;
  let lo = 0;
  let hi = bounds.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (compareValues(v, bounds[mid]) >= 0) lo = mid;
    else hi = mid;
  }
  return lo;
}

export interface BucketAutoSpec {
  groupBy: Expr;
  buckets: number;
  fields: AccumulatorField[];
  /** The granularity's rounder (src/query/aggregate-granularity.ts), when one is given. */
  rounder?: Rounder;
}

export function parseBucketAuto(arg: Value): BucketAutoSpec {
  const stage = '$bucketAuto';
  const spec = checkKeys(arg, stage, ['groupBy', 'buckets', 'output', 'granularity'], ['groupBy', 'buckets']);
  const n = typeof spec.buckets === 'bigint' ? Number(spec.buckets) : spec.buckets;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1)
    throw pipelineErrors.badStage(stage, 'buckets must be a positive 32-bit integer');
  return {
    groupBy: parseGroupBy(spec.groupBy, stage, 'groupBy'),
    buckets: n,
    fields: outputOf(spec, stage),
    ...(spec.granularity === undefined ? {} : { rounder: parseGranularity(spec.granularity) }),
  };
}

interface AutoBucket {
  min: Value;
  max: Value;
  states: AccumulatorStates;
}

/**
 * MongoDB's DocumentSourceBucketAuto: documents sorted by their key (missing as null); each bucket takes
 * round(n / buckets) documents (at least 1), then every following document with a key equal to its last one;
 * the last bucket takes all that remain. A bucket's max is the next bucket's min (the last: its largest key).
 * With a granularity, every key must be a non-negative number; a bucket's max is its largest key rounded up
 * (and it takes the following documents below that bound too), its min the previous bucket's max (the first:
 * its smallest key rounded down); a max rounded up to 0 becomes the next key rounded down.
 */
export function bucketAutoProcessor(spec: BucketAutoSpec, cap: number, now: Date): Processor {
  const items: Array<{ key: Value; doc: Doc }> = [];
  const { rounder } = spec;
  return {
    push: (doc) => {
      const key = evaluate(spec.groupBy, doc, now);
      items.push({ key: rounder ? granularKey(key ?? null) : (key ?? null), doc });
      if (items.length > cap) throw pipelineErrors.bufferLimit('$bucketAuto', cap);
    },
    flush: (emit) => {
      items.sort((a, b) => compareValues(a.key, b.key));
      const size = Math.max(1, Math.round(items.length / spec.buckets));
      const budget = { bytes: 0 };
      const buckets: AutoBucket[] = [];
      let previousMax: Value | undefined;
      let i = 0;
      for (let b = 0; b < spec.buckets && i < items.length; b++) {
        const states = new AccumulatorStates(spec.fields, '$bucketAuto', budget);
        const firstKey = items[i]!.key;
        const bucket: AutoBucket = { min: firstKey, max: firstKey, states };
        if (rounder) bucket.min = previousMax ?? rounder.roundDown(firstKey as number | bigint);
        const take = () => {
          const item = items[i++]!;
          bucket.max = item.key;
          states.add(item.doc, now);
        };
        const end = b === spec.buckets - 1 ? items.length : Math.min(items.length, i + size);
        while (i < end) take();
        if (rounder) {
          const bound = rounder.roundUp(bucket.max as number | bigint);
          while (
            i < items.length &&
            (compareValues(bound, items[i]!.key) > 0 || compareValues(bucket.max, items[i]!.key) === 0)
          )
            take();
          bucket.max =
            Number(bound) === 0 && i < items.length
              ? rounder.roundDown(items[i]!.key as number | bigint)
              : bound;
        } else {
          while (i < items.length && compareValues(items[i]!.key, bucket.max) === 0) take();
          if (i < items.length) bucket.max = items[i]!.key;
        }
        previousMax = bucket.max;
        buckets.push(bucket);
      }
      items.length = 0;
      for (const bucket of buckets) {
        const out: Doc = { _id: { min: bucket.min, max: bucket.max } };
        bucket.states.finish(out);
        emit(out);
      }
    },
    finished: () => false,
  };
}
