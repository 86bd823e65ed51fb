// Errors of update documents and upserts (parse time and apply time); they join the one catalogue.
import { def, entriesOf } from '../errors.js';

export const updateErrors = {
  unknownOperator: def(
    'QUERY_UNKNOWN_UPDATE_OPERATOR',
    400,
    'The update uses an update operator that is not supported; the message names it.',
    (op: string) => `Unsupported update operator ${op}`,
  ),
  badShape: def(
    'UPDATE_BAD_SHAPE',
    400,
    'The update is not a document of update operators or a replacement document (or mixes the two).',
    (why: string) => `Bad update: ${why}`,
  ),
  badArgument: def(
    'UPDATE_BAD_ARGUMENT',
    400,
    'An update operator was given an argument it does not accept; the message names the operator and path.',
    (op: string, path: string, why: string) => `Bad argument for ${op} at '${path}': ${why}`,
  ),
  unsupported: def(
    'UPDATE_UNSUPPORTED_FEATURE',
    400,
    'The update uses a feature of a supported operator that is not implemented (timestamps, pipeline updates...).',
    (what: string) => `${what} is not supported`,
  ),
  pathConflict: def(
    'UPDATE_PATH_CONFLICT',
    400,
    'Two paths of one update are the same or one contains the other, as MongoDB refuses.',
    (path: string, at: string) => `Updating the path '${path}' would create a conflict at '${at}'`,
  ),
  immutableId: def(
    'UPDATE_IMMUTABLE_ID',
    400,
    'The update would change or remove the _id of a document.',
    () => "Performing an update on the path '_id' would modify the immutable field '_id'",
  ),
  badId: def(
    'UPDATE_BAD_ID',
    400,
    'The _id of the resulting document would be an array.',
    () => "The '_id' value cannot be of type array",
  ),
  pathNotViable: def(
    'UPDATE_PATH_NOT_VIABLE',
    400,
    'The update path runs through a value that is neither a document nor an array it can index.',
    (part: string, path: string, what: string) =>
      `Cannot create field '${part}' of '${path}' in element ${what}`,
  ),
  typeMismatch: def(
    'UPDATE_TYPE_MISMATCH',
    400,
    'An update operator met a stored value of a type it cannot apply to (e.g. $inc on a string, $push on a number).',
    (op: string, path: string, why: string) => `Cannot apply ${op} to '${path}': ${why}`,
  ),
  overflow: def(
    'UPDATE_NUMERIC_OVERFLOW',
    400,
    'An $inc or $mul result does not fit a 64-bit integer; MongoDB refuses it too.',
    (op: string, path: string) => `Failed to apply ${op} to '${path}': the result overflows a 64-bit integer`,
  ),
  positional: def(
    'UPDATE_BAD_POSITIONAL',
    400,
    'A positional update path ($, $[], $[<identifier>]) cannot be applied as written (MongoDB refuses it too); the message names the operator.',
    (op: string, why: string) => `Bad positional update ${op}: ${why}`,
  ),
  badArrayFilters: def(
    'UPDATE_BAD_ARRAY_FILTERS',
    400,
    'arrayFilters is not an array of filters on one identifier each, or does not fit the $[<identifier>] paths of the update.',
    (why: string) => `Bad arrayFilters: ${why}`,
  ),
  applyConflict: def(
    'UPDATE_APPLY_CONFLICT',
    400,
    'Two paths of one update reach the same element once positional parts are resolved in a document.',
    (path: string) => `Update created a conflict at '${path}'`,
  ),
  upsertAmbiguous: def(
    'UPDATE_UPSERT_AMBIGUOUS',
    400,
    'The upsert filter sets the same path twice, or a path and one inside it, so the inserted document is unclear.',
    (why: string) => `Cannot infer query fields to set: ${why}`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const updateCatalogue = entriesOf(updateErrors);
