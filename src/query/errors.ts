// Errors of the query engine (filters, sorts, find options, extended JSON values); they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const queryErrors = {
  unknownOperator: def(
    'QUERY_UNKNOWN_OPERATOR',
    400,
    'The query uses an operator that is not supported; the message names it.',
    (op: string) => `Unsupported query operator ${op}`,
  ),
  badOperand: def(
    'QUERY_BAD_OPERAND',
    400,
    'An operator was given an operand of the wrong shape; the message names the operator and the path.',
    (op: string, path: string, why: string) => `Bad operand for ${op} at ${path || '(root)'}: ${why}`,
  ),
  badFieldPath: def(
    'QUERY_BAD_FIELD_PATH',
    400,
    'A field path is empty, has an empty part, starts with $ or contains a NUL character.',
    (path: string, why: string) => `Bad field path "${path}": ${why}`,
  ),
  badValue: def(
    'QUERY_BAD_VALUE',
    400,
    'A document or query value is not valid extended JSON of a supported type; the message names the path.',
    (path: string, why: string) => `Bad value at ${path || '(root)'}: ${why}`,
  ),
  badSort: def(
    'QUERY_BAD_SORT',
    400,
    'The sort specification is not an object of field paths to 1 or -1.',
    (why: string) => `Bad sort: ${why}`,
  ),
  badIndexKeys: def(
    'QUERY_BAD_INDEX_KEYS',
    400,
    'The index keys are not an object of 1 to 16 field paths to 1 or -1.',
    (why: string) => `Bad index keys: ${why}`,
  ),
  badFindOption: def(
    'QUERY_BAD_FIND_OPTION',
    400,
    'A find option (skip, limit, hint, maxTimeMS, batchSize) is not a value it takes, or hint names no index.',
    (name: string, why: string) => `Bad ${name}: ${why}`,
  ),
  maxTimeExpired: def(
    'QUERY_MAX_TIME_EXPIRED',
    503,
    'The find ran past the maxTimeMS it was given and was stopped (MongoDB: MaxTimeMSExpired).',
    (ms: number) => `The find ran past its maxTimeMS of ${ms} ms`,
  ),
  residualScanLimit: def(
    'QUERY_RESIDUAL_SCAN_LIMIT',
    400,
    'The filter has a part SQL cannot answer ($expr, a bitwise operator) and would have to be checked on more ' +
      'documents than the server tests for one request; add an indexable condition beside it (docs/query-engine.md).',
    (limit: number) =>
      `The filter's $expr or bitwise part would be checked on more than ${limit} documents; add a condition on an indexed field beside it`,
  ),
  tooLarge: def(
    'QUERY_TOO_LARGE',
    400,
    'The query, update or pipeline is larger than the server evaluates (too many operand values, pipeline ' +
      'stages, field path parts or $regex steps); the message names the limit. docs/query-engine.md lists the limits.',
    (what: string, limit: number) => `Too large: ${what} (at most ${limit})`,
  ),
  badRegex: def(
    'QUERY_BAD_REGEX',
    400,
    'A $regex pattern or its options cannot be evaluated exactly with the same meaning as MongoDB, or the ' +
      'pattern is too complex (groups nested over 16 deep, or an expanded size over 5,000; see docs/query-engine.md).',
    (why: string) => `Unsupported $regex: ${why}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const queryCatalogue = entriesOf(queryErrors);
