// The pipeline stages of MongoDB parity (issue 16): their parsed forms, parsers and processors, kept apart from
// aggregate.ts, which knows them only through ExtraStage, extraParsers and extraProcessor.
import type { PipelineStage } from './aggregate.js';
import {
  type BucketAutoSpec,
  bucketAutoProcessor,
  parseBucket,
  parseBucketAuto,
  parseSortByCount,
} from './aggregate-bucket.js';
import type { Expr } from './aggregate-expr.js';
import {
  type FacetSpec,
  type ForeignRead,
  facetProcessor,
  type LookupSpec,
  lookupProcessor,
  type NestedRun,
  parseFacet,
  parseLookup,
  parseUnionWith,
  type SubChain,
  type SubPipelines,
  type UnionSpec,
  unionWithProcessor,
} from './aggregate-nested.js';
import {
  addFieldsProcessor,
  type FieldTree,
  type MatchExpr,
  matchExprProcessor,
  parseAddFields,
  parseReplaceRoot,
  parseSample,
  parseUnset,
  replaceRootProcessor,
  sampleProcessor,
  unsetProcessor,
} from './aggregate-reshape.js';
import type { Processor } from './aggregate-stages.js';
import type { Projection } from './projection.js';
import type { Value } from './values.js';

export type ExtraStage =
  | { op: '$addFields'; tree: FieldTree }
  | { op: '$unset'; projection: Projection }
  | { op: '$replaceRoot'; expr: Expr; name: '$replaceRoot' | '$replaceWith' }
  | { op: '$matchExpr'; spec: MatchExpr }
  | { op: '$sample'; size: number }
  | { op: '$bucketAuto'; spec: BucketAutoSpec }
  | { op: '$facet'; spec: FacetSpec<PipelineStage> }
  | { op: '$lookup'; spec: LookupSpec<PipelineStage> }
  | { op: '$unionWith'; spec: UnionSpec<PipelineStage> };

/** A read of another collection by $lookup or $unionWith. */
export type PipelineRead = ForeignRead<PipelineStage>;

type Parser = (arg: Value) => PipelineStage | PipelineStage[];

/**
 * The parsers by stage name. $set is $addFields, $replaceWith is $replaceRoot; $sortByCount and $bucket come
 * back as the $group and $sort they stand for. $facet, $lookup and $unionWith get their argument as sent.
 */
export function extraParsers(sub: SubPipelines<PipelineStage>): Record<string, Parser> {
  return {
    $addFields: (arg) => ({ op: '$addFields', tree: parseAddFields(arg, '$addFields') }),
    $set: (arg) => ({ op: '$addFields', tree: parseAddFields(arg, '$set') }),
    $unset: (arg) => ({ op: '$unset', projection: parseUnset(arg) }),
    $replaceRoot: (arg) => ({
      op: '$replaceRoot',
      expr: parseReplaceRoot(arg, '$replaceRoot'),
      name: '$replaceRoot',
    }),
    $replaceWith: (arg) => ({
      op: '$replaceRoot',
      expr: parseReplaceRoot(arg, '$replaceWith'),
      name: '$replaceWith',
    }),
    $sample: (arg) => ({ op: '$sample', size: parseSample(arg) }),
    $sortByCount: (arg) => parseSortByCount(arg),
    $bucket: (arg) => parseBucket(arg),
    $bucketAuto: (arg) => ({ op: '$bucketAuto', spec: parseBucketAuto(arg) }),
    $facet: (raw) => ({ op: '$facet', spec: parseFacet(raw, sub) }),
    $lookup: (raw) => ({ op: '$lookup', spec: parseLookup(raw, sub) }),
    $unionWith: (raw) => ({ op: '$unionWith', spec: parseUnionWith(raw, sub) }),
  };
}

/** Stages whose parsers take the argument as sent (sub-pipelines are parsed as pipelines are). */
export const EXTRA_RAW_ARGUMENT = ['$facet', '$lookup', '$unionWith'];

export function extraProcessor(
  stage: ExtraStage,
  cap: number,
  now: Date,
  nested: NestedRun<PipelineStage>,
  chainOf: (stages: PipelineStage[]) => SubChain,
): Processor {
  switch (stage.op) {
    case '$addFields':
      return addFieldsProcessor(stage.tree, now);
    case '$unset':
      return unsetProcessor(stage.projection, now);
    case '$replaceRoot':
      return replaceRootProcessor(stage.expr, stage.name, now);
    case '$matchExpr':
      return matchExprProcessor(stage.spec, now);
    case '$sample':
      return sampleProcessor(stage.size, cap);
    case '$bucketAuto':
      return bucketAutoProcessor(stage.spec, cap, now);
    case '$facet':
      return facetProcessor(stage.spec, chainOf, cap);
    case '$lookup':
      return lookupProcessor(stage.spec, nested);
    default:
      return unionWithProcessor(stage.spec, nested);
  }
}
