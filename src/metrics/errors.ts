// Errors of GET /metrics: the scrape token missing or wrong, or a remote client where no token is set.
import { def, entriesOf, PlaybaseError } from '../errors.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="metrics"' };

const tokenRequired = def(
  'METRICS_TOKEN_REQUIRED',
  401,
  'GET /metrics needs `Authorization: Bearer <PLAYBASE_METRICS_TOKEN>` on this server, and none was sent.',
  () => 'Metrics need Authorization: Bearer <token>',
);

const tokenInvalid = def(
  'METRICS_TOKEN_INVALID',
  401,
  'The bearer token sent to GET /metrics is not the PLAYBASE_METRICS_TOKEN of this server.',
  () => 'Invalid metrics token',
);

export const metricsErrors = {
  tokenRequired: () => withChallenge(tokenRequired()),
  tokenInvalid: () => withChallenge(tokenInvalid()),
  loopbackOnly: def(
    'METRICS_LOOPBACK_ONLY',
    403,
    'Without PLAYBASE_METRICS_TOKEN, GET /metrics answers only clients on the loopback interface that did not come through a proxy.',
    () => 'Metrics are served to loopback clients only; set PLAYBASE_METRICS_TOKEN to scrape from elsewhere',
  ),
};

function withChallenge(e: PlaybaseError): PlaybaseError {
  return new PlaybaseError(e.status, e.code, e.message, undefined, CHALLENGE);
}

/** This module's entries of the catalogue (src/error-catalogue.ts). */
export const metricsCatalogue = entriesOf(tokenRequired, tokenInvalid, metricsErrors);
