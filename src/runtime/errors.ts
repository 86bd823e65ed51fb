// HTTP-level errors of the runtime requests API; request-level errors travel in the answer's `error` field.
import { def, entriesOf } from '../errors.js';

export const runtimeErrors = {
  badCredential: def(
    'RUNTIME_CREDENTIAL_INVALID',
    403,
    'The credential and secret of a runtime URL do not name a server credential of a game in this stage (Live knows the credentials of the published snapshot). The answer never says which part was wrong.',
    () => 'The credential or its secret is not valid in this stage',
  ),
  unknownRequest: def(
    'RUNTIME_REQUEST_UNKNOWN',
    404,
    'The last path segment of a runtime URL is not a request this server runs (see docs/runtime.md).',
    (name: string) => `Unknown request ${name}`,
  ),
  badBody: def(
    'RUNTIME_BAD_BODY',
    400,
    'A runtime request body is a JSON object; its @class, when present, names the same request as the URL.',
    (why: string) => `Bad request body: ${why}`,
  ),
  callbackNotFound: def(
    'CALLBACK_NOT_FOUND',
    404,
    'A callback URL names a credential that has no callbacks/ script in this stage (Live: in the published snapshot), so nothing answers it.',
    (name: string) => `No callback script for the credential ${name}`,
  ),
  notPublished: def(
    'RUNTIME_NOT_PUBLISHED',
    409,
    'The Live stage runs nothing until a game snapshot is published, so requests that need the configuration cannot run there yet.',
    (apiKey: string) => `Game ${apiKey} has no published snapshot: the Live stage runs nothing`,
  ),
};

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const runtimeCatalogue = entriesOf(runtimeErrors);
