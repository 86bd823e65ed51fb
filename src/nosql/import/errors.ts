// Errors of the mongo and data imports; they join the one catalogue in src/errors.ts.
import { def, entriesOf, PlaybaseError } from '../../errors.js';

const badRecord = def(
  'IMPORT_BAD_RECORD',
  400,
  'A line of the import file is not a record the import takes (not JSON, wrong shape, a bad value, too long); the message and `details[0].line` name the first such line. Nothing was imported.',
  (line: number, why: string) => `Line ${line}: ${why}. Nothing was imported`,
);
const conflict = def(
  'IMPORT_CONFLICT',
  409,
  'A record of the import file meets data the stage already holds (a document _id, a data item id, a unique index, a leaderboard entry of the same player), or an earlier line of the same file; the message and `details[0].line` name the first such line. Nothing was imported.',
  (line: number, why: string) => `Line ${line}: ${why}. Nothing was imported`,
);

/** The error with the line in `details`, so that clients read it without parsing the message. */
function atLine(error: PlaybaseError, line: number, why: string): PlaybaseError {
  return new PlaybaseError(error.status, error.code, error.message, [{ line, message: why }]);
}

export const importErrors = {
  badRecord: (line: number, why: string) => atLine(badRecord(line, why), line, why),
  conflict: (line: number, why: string) => atLine(conflict(line, why), line, why),
  badEncoding: def(
    'IMPORT_BAD_ENCODING',
    400,
    'The body is not a complete gzip stream (Content-Type application/gzip), or is cut short. Nothing was imported.',
    (why: string) => `The body is not a complete gzip stream (${why}). Nothing was imported`,
  ),
  emptyBody: def(
    'IMPORT_EMPTY_BODY',
    400,
    'The import request has no body: send the export file (an empty export, a gzip stream of no lines, is accepted).',
    () => 'The request has no body: send the export file',
  ),
  mediaType: def(
    'IMPORT_MEDIA_TYPE',
    415,
    'An import takes `application/gzip` (the export file as downloaded) or `application/x-ndjson` (the same lines, not compressed).',
    (type: string) =>
      `Unsupported Content-Type "${type.slice(0, 100)}": send application/gzip or application/x-ndjson`,
  ),
  inProgress: def(
    'IMPORT_IN_PROGRESS',
    409,
    'Another import into the same game and stage is running; try again when it has finished.',
    (game: string, stage: string) => `An import into ${game} (${stage}) is already running`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const importCatalogue = entriesOf(badRecord, conflict, importErrors);
