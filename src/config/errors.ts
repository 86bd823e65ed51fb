// Errors of the game configuration: missing entities, duplicates, references, invalid documents.
import { catalogue, def, type ErrorDetail, PlaybaseError } from '../errors.js';

/** A 400 that carries one detail per offending field, like VALIDATION_FAILED, under its own code. */
function defWithDetails(code: string, description: string) {
  catalogue.push({ code, status: 400, description });
  return (message: string, details: ErrorDetail[]) => new PlaybaseError(400, code, message, details);
}

export const configErrors = {
  eventNotFound: def(
    'EVENT_NOT_FOUND',
    404,
    'The game has no event with this short code.',
    (shortCode: string) => `Event ${shortCode} not found`,
  ),
  attributeNotFound: def(
    'ATTRIBUTE_NOT_FOUND',
    404,
    'The event has no attribute with this short code.',
    (event: string, shortCode: string) => `Attribute ${shortCode} of event ${event} not found`,
  ),
  runningTotalNotFound: def(
    'RUNNING_TOTAL_NOT_FOUND',
    404,
    'The game has no running total with this short code.',
    (shortCode: string) => `Running total ${shortCode} not found`,
  ),
  leaderboardNotFound: def(
    'LEADERBOARD_NOT_FOUND',
    404,
    'The game has no leaderboard with this short code.',
    (shortCode: string) => `Leaderboard ${shortCode} not found`,
  ),
  indexedTypeNotFound: def(
    'INDEXED_TYPE_NOT_FOUND',
    404,
    'The game has no data-service type (indexed type) with this short code.',
    (shortCode: string) => `Indexed type ${shortCode} not found`,
  ),
  credentialNotFound: def(
    'CREDENTIAL_NOT_FOUND',
    404,
    'The game has no server credential with this name.',
    (name: string) => `Credential ${name} not found`,
  ),
  duplicate: def(
    'CONFIG_DUPLICATE',
    409,
    'An entity of this kind with this short code (or credential name) exists already in the game or event.',
    (id: string) => `${id} exists already`,
  ),
  inUse: def(
    'CONFIG_IN_USE',
    409,
    'The entity is referenced by other entities (named in the message); change or delete those first.',
    (id: string, by: string[]) => `${id} is referenced by ${by.join(', ')}`,
  ),
  invalid: defWithDetails(
    'CONFIG_INVALID',
    'The entity or configuration document breaks a rule (data type, aggregation, default value, uniqueness, ' +
      'immutable short code...); `details` names each field.',
  ),
  badReference: defWithDetails(
    'CONFIG_REFERENCE_INVALID',
    'An {"@ref"} (or a collector or partition name) is malformed or points at nothing; `details` names each one.',
  ),
};
