// Errors of projections and aggregation pipelines evaluated in JavaScript; they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const pipelineErrors = {
  badProjection: def(
    'QUERY_BAD_PROJECTION',
    400,
    'The projection is not an object of field paths to 1/0/true/false, or mixes inclusion and exclusion.',
    (why: string) => `Bad projection: ${why}`,
  ),
  unsupportedProjection: def(
    'QUERY_UNSUPPORTED_PROJECTION_OPERATOR',
    400,
    'The projection uses an operator that is not supported ($meta, a positional part not at the end); the message names it.',
    (op: string) => `Unsupported projection operator ${op}`,
  ),
  badPipeline: def(
    'QUERY_BAD_PIPELINE',
    400,
    'The aggregation pipeline is not an array of one-key stage documents.',
    (why: string) => `Bad pipeline: ${why}`,
  ),
  unknownStage: def(
    'QUERY_UNKNOWN_PIPELINE_STAGE',
    400,
    'The pipeline uses a stage that is not supported; the message names it.',
    (stage: string) => `Unsupported pipeline stage ${stage}`,
  ),
  badStage: def(
    'QUERY_BAD_PIPELINE_STAGE',
    400,
    'A pipeline stage has an argument of the wrong shape; the message names the stage.',
    (stage: string, why: string) => `Bad ${stage} stage: ${why}`,
  ),
  unknownAccumulator: def(
    'QUERY_UNKNOWN_ACCUMULATOR',
    400,
    'A $group stage uses an accumulator that is not supported; the message names it.',
    (op: string) => `Unsupported accumulator ${op}`,
  ),
  unknownExpression: def(
    'QUERY_UNKNOWN_EXPRESSION_OPERATOR',
    400,
    'A pipeline expression uses an operator that is not supported; the message names it.',
    (op: string) => `Unsupported expression operator ${op}`,
  ),
  badExpression: def(
    'QUERY_BAD_EXPRESSION',
    400,
    'An expression operator was given operands of the wrong number, shape or type (when the pipeline is parsed ' +
      'or when a document is evaluated); the message names the operator.',
    (op: string, why: string) => `Bad ${op} expression: ${why}`,
  ),
  bufferLimit: def(
    'QUERY_PIPELINE_BUFFER_LIMIT',
    400,
    'A $group or $sort stage would hold more documents in memory than the configured limit.',
    (stage: string, limit: number) => `${stage} would hold more than ${limit} documents in memory`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const pipelineCatalogue = entriesOf(pipelineErrors);
