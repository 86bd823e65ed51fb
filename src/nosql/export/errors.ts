// Errors of the export store and its download links; they join the one catalogue in src/errors.ts.
import { def, entriesOf } from '../../errors.js';

export const exportErrors = {
  linkExpired: def(
    'EXPORT_LINK_EXPIRED',
    403,
    'The export download link is past its expiry (links are valid 24 hours); ask for a new export.',
    () => 'Export download link has expired',
  ),
  linkInvalid: def(
    'EXPORT_LINK_INVALID',
    403,
    'The export download link was altered, is malformed or names another game; links are used exactly as given.',
    () => 'Export download link is not valid',
  ),
  fileGone: def(
    'EXPORT_FILE_NOT_FOUND',
    404,
    'The export file of a valid link no longer exists (it was purged or never finished).',
    (file: string) => `Export file ${file} not found`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const exportCatalogue = entriesOf(exportErrors);
