// Errors of the game configuration: missing entities, duplicates, references, invalid documents.
import { def, defWithDetails, entriesOf } from '../errors.js';

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
  // 400s that carry one detail per offending field, like VALIDATION_FAILED, under their own codes.
  invalid: defWithDetails(
    'CONFIG_INVALID',
    400,
    'The entity or configuration document breaks a rule (data type, aggregation, default value, uniqueness, ' +
      'immutable short code...); `details` names each field.',
  ),
  syntax: defWithDetails(
    'SCRIPT_SYNTAX_ERROR',
    400,
    'A Cloud Code script does not parse (ES2020 script); each detail names the script, its `line` and `column` ' +
      "(1-based) and the parser's message.",
  ),
  zipInvalid: defWithDetails(
    'SCRIPT_ZIP_INVALID',
    400,
    'The Cloud Code import is not a zip this server reads, or breaks a bound: too many entries, too many bytes ' +
      'inflated, an unsafe entry name (`../`, absolute), an encrypted entry. Nothing is applied.',
  ),
  scriptNotFound: def(
    'SCRIPT_NOT_FOUND',
    404,
    'The game has no Cloud Code script in this folder with this short code.',
    (folder: string, shortCode: string) => `Script ${folder}/${shortCode} not found`,
  ),
  badReference: defWithDetails(
    'CONFIG_REFERENCE_INVALID',
    400,
    'An {"@ref"} (or a collector or partition name) is malformed or points at nothing; `details` names each one.',
  ),
};

/** Errors of game creation and the recycle bin (src/config/games.ts). */
export const gameErrors = {
  unknownCluster: def(
    'CLUSTER_UNKNOWN',
    400,
    'The cluster named is not in the cluster registry (PLAYBASE_CLUSTERS).',
    (c: string) => `Unknown cluster ${c}`,
  ),
  notDeleted: def(
    'GAME_NOT_DELETED',
    404,
    'The game is not in the recycle bin (or was removed for good after 10 days).',
    (k: string) => `Game ${k} is not in the recycle bin`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const configCatalogue = entriesOf(configErrors, gameErrors);
