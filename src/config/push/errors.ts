// Errors of the push-notification test senders and of the sealed secrets that hold their credentials.
import { def, entriesOf } from '../../errors.js';

export const pushErrors = {
  pushNotConfigured: def(
    'PUSH_NOT_CONFIGURED',
    400,
    'The game has no credentials for this push provider; add them to the game configuration first.',
    (provider: string) => `No push credentials are configured for ${provider}`,
  ),
  pushUnknownProvider: def(
    'PUSH_UNKNOWN_PROVIDER',
    404,
    'The push provider in the path is not one of apple/development, apple/production, google.',
    (provider: string) => `Unknown push provider: ${provider}`,
  ),
  pushCredentialsInvalid: def(
    'PUSH_CREDENTIALS_INVALID',
    400,
    'The push credentials given for the game configuration are incomplete or hold an unusable key.',
    (why: string) => `Invalid push credentials: ${why}`,
  ),
  secretUnreadable: def(
    'SECRET_UNREADABLE',
    500,
    'A stored secret could not be opened: the master key changed or the stored value was altered.',
    () => 'A stored secret could not be decrypted',
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const pushCatalogue = entriesOf(pushErrors);
